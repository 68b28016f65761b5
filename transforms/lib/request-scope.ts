// Credentials that were filed by session id, made request-scoped (the plan's `credentials`, see
// src/analysis/endpoints/request-credentials.ts): beside the store an AsyncLocalStorage holds the value of the request
// being served, each lookup by session id reads it, and the endpoint serves every request inside `scope.run(value, …)`.
import type { ASTPath } from 'jscodeshift';
import type { RequestCredentials, Span } from '../../src/analysis/endpoints/model';
import type { TransformContext } from './context';
import { topStatement, type AnyNode } from './ast';
import { placeholder } from './emit';
import { ensureNamedImport } from './imports';
import { pathAt } from './locate';

const ASYNC_HOOKS = ['node:async_hooks', 'async_hooks'];
const LOOKUPS = ['CallExpression', 'MemberExpression', 'OptionalCallExpression', 'OptionalMemberExpression'];

/** The scope's local name in `file`: declared there, or imported from the store's module. */
export function scopeIn(context: TransformContext, credentials: RequestCredentials, file: string): string {
  if (credentials.store.file === file) return credentials.scope;
  const module = credentials.imports.find((i) => i.file === file)?.module;
  if (!module) throw new Error(`no import of ${credentials.scope} planned for ${file}`);
  return ensureNamedImport(context, [module], credentials.scope);
}

/** `await scope.run(value, () => serve)`: what serving the request becomes. */
export function servedInScope(scope: string, value: string, serve: string): string {
  return `${scope}.run(${value}, () => ${serve})`;
}

/** The store's file declares the scope; every file with lookups reads it. Returns whether the file changed. */
export function scopeStoreAndReaders(context: TransformContext, credentials: RequestCredentials, file: string): boolean {
  let changed = false;
  if (credentials.store.file === file) changed = declareScope(context, credentials);
  const readers = credentials.readers.filter((r) => r.lookup.file === file);
  if (readers.length === 0) return changed;
  const scope = scopeIn(context, credentials, file);
  const read = () =>
    context.j.callExpression(context.j.memberExpression(context.j.identifier(scope), context.j.identifier('getStore')), []);
  const done = new Set<string>();
  const once = (span: Span, types: string[], edit: (path: ASTPath) => void) => {
    const key = `${span.start}:${span.end}`;
    if (done.has(key)) return;
    done.add(key);
    const path = pathAt(context, span, types);
    if (!path) throw new Error(`${types.join('/')} at ${span.file}:${span.line} was not found`);
    edit(path);
  };
  for (const reader of readers) {
    once(reader.lookup, LOOKUPS, (path) => path.replace(read()));
    for (const test of reader.keyTests) once(test, ['Identifier'], (path) => path.replace(read()));
    if (reader.unusedKey) once(reader.unusedKey, ['VariableDeclaration'], (path) => path.prune());
    if (reader.unusedParameter)
      once(reader.unusedParameter, ['Identifier'], (path) => {
        const node = path.node as unknown as AnyNode;
        if (!(node.name as string).startsWith('_')) node.name = `_${node.name as string}`;
      });
  }
  return true;
}

/** `export const contextsOfRequest = new AsyncLocalStorage<Auth>();` after the store's declaration. */
function declareScope(context: TransformContext, credentials: RequestCredentials): boolean {
  const declarator = pathAt(context, credentials.store, ['VariableDeclarator']);
  if (!declarator) throw new Error(`the store at ${credentials.store.file}:${credentials.store.line} was not found`);
  const statement = topStatement(declarator);
  const body = (statement.parent?.node as AnyNode | undefined)?.body as AnyNode[] | undefined;
  if (!body) throw new Error(`the store at ${credentials.store.file}:${credentials.store.line} is not declared at module level`);
  const storage = ensureNamedImport(context, ASYNC_HOOKS, 'AsyncLocalStorage');
  const type = credentials.valueType ? `<${credentials.valueType}>` : '';
  const code = [
    `// mcp-migrate: without sessions each request carries its own value: the endpoint serves every request inside this`,
    `// scope, and the lookups that read the value by session id read the request's instead.`,
    `${credentials.exported ? 'export ' : ''}const ${credentials.scope} = new ${storage}${type}();`,
  ];
  body.splice(body.indexOf(statement.node as unknown as AnyNode) + 1, 0, placeholder(context, code.join('\n'), 'block'));
  return true;
}
