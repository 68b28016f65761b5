// Findings the engine itself produces (markers, suppressions, files it could not read), described like rules so every
// reporter, `rules` and `explain` treat them alike. No ts-morph here: the CLI lists these without loading the parser.
import type { RuleMeta } from './rule';

/** The finding for a file the pre-filter marked as MCP code that did not parse or could not be analysed. */
export const PARSE_ERROR_ID = 'parse-error';

export const engineRuleMetas: readonly RuleMeta[] = [
  {
    id: PARSE_ERROR_ID,
    title: 'A file that looks like MCP code but could not be parsed or analysed',
    severity: 'error',
    fix: 'none',
    doc: 'The text pre-filter found MCP markers in this file, but it does not parse (a syntax error, a dialect the parser rejects) or its syntax tree is too deep to analyse. No rule could look at it, so the gate cannot vouch for it: `check` fails until the file parses or is excluded.',
    hint: 'Fix the syntax error, or exclude the file (--exclude) if it is not meant to be compiled.',
    sources: [],
  },
  {
    id: 'session-client',
    title: 'Client code that relies on protocol sessions or the deprecated transport',
    severity: 'warning',
    fix: 'manual',
    doc:
      'Clients are not endpoints: code that only sends requests to an MCP server (a browser or CLI client calling `fetch`, ' +
      '`axios` or an MCP client module, and serving nothing) and echoes `Mcp-Session-Id`, opens the GET stream or ends its ' +
      'session with DELETE keeps working against 2025-era servers, but a migrated server mints no session id and answers GET ' +
      'and DELETE with 405. mcp-migrate never rewrites such a client or leaves a marker in it; it reports what the client relies on.',
    hint: 'Send each request on its own: no session header, no GET stream, no DELETE; expect no `Mcp-Session-Id` back.',
    sources: ['spec 2026-07-28 basic/transports/streamable-http.mdx § Earlier Streamable HTTP Revisions'],
  },
  {
    id: 'session-test',
    title: 'A test or a hand-written client that drives the deprecated transport or relies on protocol sessions',
    severity: 'warning',
    fix: 'manual',
    doc:
      'Tests are not endpoints: a test that boots a server over HTTP+SSE, reads `Mcp-Session-Id`, or expects a GET stream or ' +
      'a DELETE session asserts behaviour the migration removes. Nor is a hand-written client (it sends requests with `fetch` ' +
      'and keeps the `Mcp-Session-Id` a server handed out, serving nothing itself). mcp-migrate never rewrites such a file or ' +
      'leaves a marker in it; it reports what the file relies on, so that it can be updated with the server (POST one ' +
      'endpoint; expect 405 on GET/DELETE and no session header).',
    hint: 'Update the test for stateless Streamable HTTP: one POST endpoint, no session id, 405 on GET and DELETE.',
    sources: ['spec 2026-07-28 basic/transports/streamable-http.mdx § Earlier Streamable HTTP Revisions'],
  },
  {
    id: 'unused-suppression',
    title: 'An mcp-migrate-ignore comment that silences nothing',
    severity: 'warning',
    fix: 'manual',
    doc: 'A suppression comment whose rule no longer reports anything on its line (or file) hides nothing and should be removed, so that it cannot hide a future regression.',
    hint: 'Delete the comment.',
    sources: [],
  },
  {
    id: 'sdk-v2-surface',
    title: 'A spot the official v1→v2 SDK codemod could not migrate',
    severity: 'error',
    fix: 'manual',
    doc: 'On the 2026-07-28 target, mcp-migrate runs the official `@modelcontextprotocol/codemod` (v1-to-v2) for the SDK surface. Where it cannot rewrite a site it leaves a `/* @mcp-codemod-error … */` comment; each one is reported here until a human resolves it.',
    hint: 'Follow the comment, then delete it.',
    sources: ['typescript-sdk packages/codemod', 'typescript-sdk docs/migration/upgrade-to-v2.md'],
  },
  {
    id: 'v2-peer-ranges',
    title: 'A package.json whose ranges the v2 SDK packages it depends on do not accept',
    severity: 'error',
    fix: 'auto',
    doc:
      'Each v2 package states what it needs from the project: its peer dependencies (express, hono, fastify, the server) and the ' +
      'dependencies its public types import (zod: the project hands its schemas to the server, and server 2.4 reads zod >= 4.2 only). ' +
      "mcp-migrate reads these from the installed packages (the project's own copy when it matches the declared range, else its " +
      'own) and reports a declared range that admits versions outside them: such a project installs, then fails to compile ' +
      '(TS2769) or answers tools/list with -32603. On 2026-07-28, `apply` raises the range to the lowest one inside the requirement. ' +
      'It also reports a range that a package the project has locked (package-lock.json, else node_modules) and keeps installed ' +
      'does not accept as a peer (`ai@4` wants zod ^3 while the v2 packages need zod 4): npm install stops with ERESOLVE. `apply` ' +
      'never writes such a manifest: it keeps the project on 2025-11-25 (`v2-deferred`). And it reports a v2 package, or what one ' +
      'requires (zod), that the code imports and neither the package.json nor the workspace root above it declares: the install ' +
      "does not bring it for the package, so the code runs on another package's copy if npm hoisted one, and on none with pnpm.",
    hint: 'Raise the range into what the v2 package requires (add it where the code imports it undeclared), then install.',
    sources: [
      '@modelcontextprotocol/server package.json (dependencies.zod)',
      '@modelcontextprotocol/express package.json (peerDependencies)',
    ],
  },
  {
    id: 'v2-deferred',
    title: 'A project kept on 2025-11-25 because its move to 2026-07-28 did not type-check or would not install',
    severity: 'warning',
    fix: 'manual',
    doc:
      'On the 2026-07-28 target, when the v2 move (v2 packages, the official codemod, the v2 fix-ups) leaves type errors that the ' +
      '2025-11-25 migration does not, or its package.json would not install beside a package the project has locked (a peer ' +
      'range the raised zod or framework leaves), `apply` writes the 2025-11-25 result instead: stateless Streamable HTTP on ' +
      'the v1 SDK, which compiles. The report lists the errors of the v2 move (file, line, message, the line itself) and the ' +
      'lock conflicts (package, locked version, its peer range, the range the move needs); a marker at the endpoint quotes ' +
      "the first of them and keeps the project's state visible. A warning, not an error: nothing deprecated remains (the CI gate's purpose), " +
      'but 2026-07-28 clients are served through the 2025 handshake only; `--max-warnings 0` makes CI insist on the move.',
    hint: 'Run `mcp-migrate apply --dry-run` for the errors of the v2 move, fix them in the code, then run apply again.',
    sources: ['typescript-sdk docs/migration/upgrade-to-v2.md', 'typescript-sdk docs/migration/support-2026-07-28.md'],
  },
  {
    id: 'zod-4',
    title: 'zod 3 API the v2 move could not rewrite for zod 4',
    severity: 'error',
    fix: 'manual',
    doc:
      'The v2 SDK packages need zod >= 4.2, so the v2 move raises a zod 3 range and rewrites the zod 3 API zod 4 changed ' +
      '(one-argument `z.record`, `ZodError#errors`, the `required_error` and `invalid_type_error` parameters, `zodToJsonSchema` from zod-to-json-schema, which reads zod 3 schemas only and returns a wrong ' +
      'schema for a zod 4 one). A use it cannot rewrite safely gets this marker.',
    hint: 'Rewrite the call for zod 4 as the marker says, then delete the marker.',
    sources: ['zod.dev/v4/changelog', 'zod.dev/json-schema'],
  },
];
