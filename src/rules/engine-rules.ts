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
    id: 'session-test',
    title: 'A test that drives the deprecated transport or asserts protocol sessions',
    severity: 'warning',
    fix: 'manual',
    doc:
      'Tests are not endpoints: a test that boots a server over HTTP+SSE, reads `Mcp-Session-Id`, or expects a GET stream or ' +
      'a DELETE session asserts behaviour the migration removes. mcp-migrate never rewrites such a test or leaves a marker in ' +
      'it; it reports what the test relies on, so that it can be updated with the server (POST one endpoint; expect 405 on ' +
      'GET/DELETE and no session header).',
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
];
