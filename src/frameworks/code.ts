// Code-text helpers every adapter and template shares: literals in the file's quote style, JSON-RPC error objects,
// two-space template indentation (the writer converts it to the file's own unit).
import type { ErrorAnswer, HandlerParams, Style } from './adapter';

/** A string literal in the file's quote style. */
export function quoted(quote: Style['quote'], text: string): string {
  return quote === 'double' ? `"${text}"` : `'${text}'`;
}

/** Templates are written with two-space indents; the placeholder expansion converts to the file's unit. */
export function indent(code: string): string {
  return code
    .split('\n')
    .map((line) => (line.length > 0 ? `  ${line}` : line))
    .join('\n');
}

/** A JSON-RPC error object literal, as code. */
export function jsonRpcError(code: number, message: string, quote: Style['quote']): string {
  const s = (t: string) => quoted(quote, t);
  return `{ jsonrpc: ${s('2.0')}, error: { code: ${code}, message: ${s(message)} }, id: null }`;
}

/** Node's `res.writeHead(status, headers).end(body)`: works for express, Router, node:http and raw responses. */
export function nodeAnswer(res: string, answer: ErrorAnswer, style: Style): string {
  const s = (t: string) => quoted(style.quote, t);
  const headers = `${answer.allowPost ? `Allow: ${s('POST')}, ` : ''}${s('Content-Type')}: ${s('application/json')}`;
  return `${res}.writeHead(${answer.status}, { ${headers} }).end(JSON.stringify(${jsonRpcError(answer.code, answer.message, style.quote)}));`;
}

/** `new Response(JSON.stringify(error), { status, headers })`. */
export function webResponse(answer: ErrorAnswer, style: Style): string {
  const s = (t: string) => quoted(style.quote, t);
  const headers = `${answer.allowPost ? `Allow: ${s('POST')}, ` : ''}${s('Content-Type')}: ${s('application/json')}`;
  return `new Response(JSON.stringify(${jsonRpcError(answer.code, answer.message, style.quote)}), { status: ${answer.status}, headers: { ${headers} } })`;
}

/** `name: Type` for each parameter, as a parameter list. */
export function parameterList(params: HandlerParams): string {
  return params.names.map((name, i) => `${name}${params.types[i] ?? ''}`).join(', ');
}

/** The first `count` parameter names, or the defaults where the handler had none (or a pattern). */
export function paramNames(params: HandlerParams, defaults: string[]): string[] {
  return defaults.map((fallback, i) => params.names[i] || fallback);
}
