// Tests are not endpoints: a test that boots a server to assert sessions or the SSE handshake needs updating, not
// migrating. A file is a test by its path (`test/`, `__tests__/`, `*.test.ts`, `*.spec.ts`) or by importing a test
// runner.
import type { SourceFile } from 'ts-morph';

const TEST_PATH = /(?:^|\/)(?:tests?|__tests__|__mocks__|e2e|spec)\/|\.(?:test|spec|e2e)\.[cm]?[jt]sx?$/i;
const TEST_RUNNERS = /^(?:vitest|jest|@jest\/globals|mocha|node:test|ava|tap|uvu|bun:test|@playwright\/test)$/;

export function isTestFile(relPath: string, file?: SourceFile): boolean {
  if (TEST_PATH.test(relPath)) return true;
  return !!file?.getImportDeclarations().some((d) => TEST_RUNNERS.test(d.getModuleSpecifierValue()));
}
