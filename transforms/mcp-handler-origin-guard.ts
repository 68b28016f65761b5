/**
 * mcp-handler-origin-guard — rule `origin-validation` on mcp-handler's `createMcpHandler(…)` (1.x and 2.x, and
 * @vercel/mcp-adapter), from the position the rule put on the finding. The handler it returns is a Web
 * `(request) => Response` and checks no Origin, wherever it is mounted (a Next.js route, a Worker, another wrapper such
 * as `withMcpAuth`). The call is wrapped where it stands, `withOriginCheck(createMcpHandler(…))`, so every use of the
 * handler answers a present, foreign Origin with 403 first; the check and the wrapper are declared after the imports.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from './lib/context';
import type { AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports } from './lib/imports';
import { startsAtPosition } from './lib/locate';
import { uniqueName } from './lib/markers';
import { sourceText } from './lib/source-edit';
import { isLocalServer } from './lib/guard';
import { WEB_GUARD_NAME, webGuardFunction, webGuardWrapper } from './lib/guard-templates';
import type { Position } from '../src/analysis/mcp-frameworks/options';

export const id = 'mcp-handler-origin-guard';
export const rules = ['origin-validation'];
export const parser = 'tsx';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const positions = context.findings.flatMap((f) => (f.data?.guardedHandler ? [(f.data.guardedHandler as { call: Position }).call] : []));
  if (positions.length === 0) return undefined;
  const { j, root } = context;
  const calls = root
    .find(j.CallExpression)
    .filter((p) => positions.some((position) => startsAtPosition(context, p.node as unknown as AnyNode, position)))
    .paths();
  if (calls.length === 0) return undefined;
  const guard = uniqueName(context, WEB_GUARD_NAME);
  context.claimedNames.add(guard);
  const wrapper = uniqueName(context, 'withOriginCheck');
  context.claimedNames.add(wrapper);
  for (const call of calls) {
    const node = call.node as unknown as AnyNode;
    const text = sourceText(context, node.start as number, node.end as number);
    call.replace(j.identifier(inlinePlaceholder(context, `${wrapper}(${text})`)) as never);
  }
  const code = [
    webGuardFunction({ typescript: context.typescript, checkHost: isLocalServer(context), quote: context.quote, name: guard }),
    '',
    webGuardWrapper({ typescript: context.typescript, name: wrapper, guard }),
  ].join('\n');
  const body = root.find(j.Program).get('body').value as AnyNode[];
  body.splice(afterImports(body), 0, placeholder(context, code, 'block'));
  return print(context);
}
