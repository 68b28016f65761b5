/**
 * zod-error-issues — zod 4 (needed by the v2 SDK) dropped `ZodError#errors`, zod 3's alias of `issues` (`error TS2339:
 * Property 'errors' does not exist on type 'ZodError<unknown>'`). Where the code has just checked that a value is a
 * ZodError (`if (error instanceof z.ZodError) { … error.errors … }`, or the same test before `?`), `error.errors`
 * becomes `error.issues`, which zod 3 has too. Anything else named `errors` is left alone.
 */
import type { API, ASTPath, FileInfo, JSCodeshift } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { moduleBindings, ZOD_MODULES, zodNamespaces } from './lib';

export const id = 'zod-error-issues';

export function mayApply(text: string): boolean {
  return text.includes('ZodError') && text.includes('.errors') && /['"]zod(?:\/v4)?['"]/.test(text);
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const isZodError = zodErrorClass(context);
  let changed = false;
  const rename = (checked: string, scope: AnyNode) => {
    j(scope as never)
      .find(j.MemberExpression, { object: { type: 'Identifier', name: checked }, property: { type: 'Identifier', name: 'errors' } })
      .filter((p) => !p.node.computed && !shadowed(j, p, checked, scope))
      .forEach((p) => {
        (p.node.property as unknown as AnyNode).name = 'issues';
        changed = true;
      });
  };
  root.find(j.IfStatement).forEach((p) => {
    const checked = checkedName(p.node.test as unknown as AnyNode, isZodError);
    if (checked) rename(checked, p.node.consequent as unknown as AnyNode);
  });
  root.find(j.ConditionalExpression).forEach((p) => {
    const checked = checkedName(p.node.test as unknown as AnyNode, isZodError);
    if (checked) rename(checked, p.node.consequent as unknown as AnyNode);
  });
  return changed ? print(context) : undefined;
}

/** A function or block between the use and the checked scope declares its own `name` (`.catch((error) => …)`). */
function shadowed(j: JSCodeshift, path: ASTPath, name: string, scope: AnyNode): boolean {
  for (let at = path.parent as ASTPath | null; at && (at.node as unknown) !== scope; at = at.parent as ASTPath | null) {
    const node = at.node as unknown as AnyNode;
    const declares =
      (/Function|Method/.test(node.type) && ((node.params as AnyNode[]) ?? []).some((param) => binds(j, param, name))) ||
      (node.type === 'CatchClause' && !!node.param && binds(j, node.param as AnyNode, name)) ||
      (node.type === 'BlockStatement' &&
        j(node as never)
          .find(j.VariableDeclarator)
          .some((d) => binds(j, d.node.id as unknown as AnyNode, name)));
    if (declares) return true;
  }
  return false;
}

function binds(j: JSCodeshift, pattern: AnyNode, name: string): boolean {
  return (
    (pattern.type === 'Identifier' && pattern.name === name) ||
    j(pattern as never)
      .find(j.Identifier, { name })
      .size() > 0
  );
}

/** Whether an expression names zod's ZodError class: `z.ZodError`, or `ZodError` imported from zod. */
function zodErrorClass(context: TransformContext): (node: AnyNode) => boolean {
  const namespaces = zodNamespaces(context);
  const named = moduleBindings(context, ZOD_MODULES).named.get('ZodError');
  return (node) =>
    (node.type === 'Identifier' && node.name === named) ||
    (node.type === 'MemberExpression' &&
      !node.computed &&
      (node.object as AnyNode).type === 'Identifier' &&
      namespaces.has((node.object as AnyNode).name as string) &&
      (node.property as AnyNode).name === 'ZodError');
}

/** `x instanceof ZodError` (alone, or first of an `&&` chain): the checked variable's name. */
function checkedName(test: AnyNode, isZodError: (node: AnyNode) => boolean): string | undefined {
  if (test.type === 'LogicalExpression' && test.operator === '&&') return checkedName(test.left as AnyNode, isZodError);
  if (test.type !== 'BinaryExpression' || test.operator !== 'instanceof') return undefined;
  const left = test.left as AnyNode;
  return left.type === 'Identifier' && isZodError(test.right as AnyNode) ? (left.name as string) : undefined;
}
