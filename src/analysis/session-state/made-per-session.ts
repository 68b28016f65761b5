// Factory values that are different for every session though no handler changes them: a conversation a package keeps
// (a chat session whose history grows inside it), or a value drawn afresh (a random salt, the time the session
// started). Stateless, each request makes its own, and calls stop agreeing on it.
import { Node, SyntaxKind, type VariableDeclaration } from 'ts-morph';
import type { StateHandler } from './handlers';
import { identifiersReferringTo } from '../node-index';

/** `model.startChat()`, `new ConversationChain(…)`, `client.beta.threads.create()`: an object that keeps a dialogue. */
const CONVERSATION =
  /(?:\b(?:start|create|new|open)(?:Chat|ChatSession|Conversation|Thread)\s*\(|^(?:await\s+)?new\s+[\w$.]*(?:Chat|ChatSession|Conversation|ConversationChain|BufferMemory|ChatMessageHistory|Thread)\b)/;
/** A value drawn afresh on each evaluation. */
const DRAWN =
  /^(?:await\s+)?(?:[\w$.]*\b(?:randomUUID|randomBytes|randomInt|getRandomValues|nanoid|uuidv4|uuid|v4|cuid|ulid)\s*\(|Math\.random\s*\(|Date\.now\s*\(|new\s+Date\s*\(\s*\)|performance\.now\s*\()/;

/** What kind of per-session value the factory variable holds, and the first handler that uses it. */
export function madePerSession(
  variable: VariableDeclaration,
  handlers: readonly StateHandler[],
): { kind: 'conversation' | 'drawn'; made: string; user: string } | undefined {
  const init = variable.getInitializer()?.getText() ?? '';
  const kind = CONVERSATION.test(init) ? 'conversation' : DRAWN.test(init) ? 'drawn' : undefined;
  if (!kind || !Node.isIdentifier(variable.getNameNode())) return undefined;
  const symbol = variable.getSymbol();
  const user = handlers.find(({ handler }) => !!handler && identifiersReferringTo(handler, symbol).length > 0);
  return user ? { kind, made: init.split('\n')[0], user: user.name } : undefined;
}
