// Generated code is written exactly as our templates spell it, not as recast would pretty-print it: a transform
// inserts a one-line placeholder statement, recast prints the file (keeping every untouched line as it was), and
// the placeholder line is replaced with the template text at the placeholder's indentation.
import type { TransformContext } from './context';
import { statementsOf, type AnyNode } from './ast';

/** `tight`: no blank line around it (an import, a guard line); `block`: one blank line before and after. */
export type Spacing = 'tight' | 'block';

export interface Placeholder {
  token: string;
  code: string;
  spacing: Spacing;
}

const placeholders = new WeakMap<TransformContext, Placeholder[]>();
let counter = 0;

export function placeholder(context: TransformContext, code: string, spacing: Spacing): AnyNode {
  const token = `__mcpMigrateGenerated${(counter++).toString(36)}__`;
  const list = placeholders.get(context) ?? [];
  list.push({ token, code, spacing });
  placeholders.set(context, list);
  return statementsOf(context.j, `${token};`)[0];
}

/** A placeholder class member (`token;`, a property), for code written into a class body (a NestJS route method). */
export function memberPlaceholder(context: TransformContext, code: string): AnyNode {
  const statement = placeholder(context, code, 'block');
  const token = ((statement.expression as AnyNode).name as string) ?? '';
  const [holder] = statementsOf(context.j, `class Holder {\n  ${token};\n}`);
  return ((holder.body as AnyNode).body as AnyNode[])[0];
}

/** Change the code a placeholder statement stands for (an import that takes one more name). */
export function rewritePlaceholder(context: TransformContext, node: AnyNode, code: string): void {
  const token = (node.expression as AnyNode | undefined)?.name;
  const entry = (placeholders.get(context) ?? []).find((p) => p.token === token);
  if (!entry) throw new Error('not a placeholder of this transform');
  entry.code = code;
}

/**
 * An inline placeholder (an identifier, or a shorthand property `{ token }`), replaced by `code` wherever recast
 * printed it: for an argument or an object property that must read exactly as written.
 */
export function inlinePlaceholder(context: TransformContext, code: string): string {
  return registerInline(context, code, '');
}

/** A statement (a function declaration) that must read exactly as written, without the `;` recast ends it with. */
export function declarationPlaceholder(context: TransformContext, code: string): AnyNode {
  return statementsOf(context.j, `${registerInline(context, code, ';')};`)[0];
}

/** A new inline token; `suffix` is printed after it and replaced with it (a statement's `;`). */
function registerInline(context: TransformContext, code: string, suffix: string): string {
  const token = `__mcpMigrateInline${(counter++).toString(36)}__`;
  const list = inlines.get(context) ?? [];
  list.push({ token: token + suffix, code, spacing: 'tight' });
  inlines.set(context, list);
  return token;
}

const inlines = new WeakMap<TransformContext, Placeholder[]>();

export function expandPlaceholders(context: TransformContext, printed: string): string {
  let out = printed;
  for (const { token, code } of inlines.get(context) ?? []) {
    if (!out.includes(token)) throw new Error(`generated code placeholder ${token} was lost while printing`);
    out = out.split(token).join(code);
  }
  const unit = context.useTabs ? '\t' : ' '.repeat(context.tabWidth);
  for (const { token, code, spacing } of placeholders.get(context) ?? []) {
    const lines = out.split('\n');
    const index = lines.findIndex((line) => line.trim() === `${token};`);
    if (index < 0) throw new Error(`generated code placeholder ${token} was lost while printing`);
    let indentation = /^[ \t]*/.exec(lines[index])![0];
    // recast may indent a new statement with spaces even in a tab-indented file.
    if (context.useTabs) indentation = indentation.replace(new RegExp(` {${context.tabWidth}}`, 'g'), '\t');
    const body = code
      .split('\n')
      .map((line) => (line.length === 0 ? '' : indentation + line.replace(/^( {2})+/, (m) => unit.repeat(m.length / 2))));
    let start = index;
    let end = index + 1;
    // Drop the blank lines recast put around the new statement, then add the spacing we want.
    while (start > 0 && lines[start - 1].trim() === '') start--;
    // (never the final empty line: the file's closing newline stays)
    while (end < lines.length - 1 && lines[end].trim() === '') end++;
    const before = start > 0 && !/[{(\[]\s*$/.test(lines[start - 1]) && spacing === 'block' ? [''] : [];
    const after = end < lines.length - 1 && !/^\s*[})\]]/.test(lines[end]) && spacing === 'block' ? [''] : [];
    const keepBefore =
      spacing === 'tight' && start < index && !isImportLine(lines[start - 1]) && !/[{(\[]\s*$/.test(lines[start - 1] ?? '') ? [''] : [];
    const keepAfter = spacing === 'tight' && end > index + 1 && !isImportLine(lines[end] ?? '') ? [''] : [];
    lines.splice(start, end - start, ...before, ...keepBefore, ...body, ...keepAfter, ...after);
    out = lines.join('\n');
  }
  return out;
}

function isImportLine(line: string): boolean {
  return /^\s*(?:import\b|(?:const|let|var)\s+.*=\s*require\()/.test(line);
}

/** Identifiers the generated code refers to, so dead-code pruning keeps what the templates use. */
export function placeholderNames(context: TransformContext): Set<string> {
  const names = new Set<string>();
  for (const { code } of [...(placeholders.get(context) ?? []), ...(inlines.get(context) ?? [])]) {
    // Words in comments and strings are not references.
    const bare = code.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, ' ');
    // A name the code declares itself (`const transport = …`) refers to that declaration, not to one outside.
    const declared = new Set([...bare.matchAll(/\b(?:const|let|var|function)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1]));
    for (const match of bare.matchAll(/[A-Za-z_$][\w$]*/g)) if (!declared.has(match[0])) names.add(match[0]);
  }
  return names;
}
