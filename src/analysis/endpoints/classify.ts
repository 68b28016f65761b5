// Tests are not endpoints: a test that boots a server to assert sessions or the SSE handshake needs updating, not
// migrating. A file is a test by its path or by importing a test runner. Test paths: a `test/`, `tests/`,
// `__tests__/`, `e2e/` or `spec/` folder, a `*.test.*`, `*.spec.*` or `*.e2e.*` name, and the folders that hold test
// support by convention — `__mocks__/`, `__fixtures__/`, `testHelpers/` (`test-helpers/`, `test_helpers/`),
// `testUtils/` (`test-utils/`) and `testSupport/` (`test-support/`): a mock remote server there is a test double.
// A plain `fixtures/` folder is not a test path: a fixture server is a runnable server (tests spawn it by path, and
// this repository's own fixtures/servers/ are the servers its end-to-end tests migrate), so it is migrated like any
// other; under a test folder (`test/fixtures/`) it is a test already.
import type { SourceFile } from 'ts-morph';

const TEST_PATH =
  /(?:^|\/)(?:tests?|__tests__|__mocks__|__fixtures__|e2e|spec|test[-_]?(?:helpers?|utils?|support))\/|\.(?:test|spec|e2e)\.[cm]?[jt]sx?$/i;
const TEST_RUNNERS = /^(?:vitest|jest|@jest\/globals|mocha|node:test|ava|tap|uvu|bun:test|@playwright\/test)$/;

export function isTestFile(relPath: string, file?: SourceFile): boolean {
  if (TEST_PATH.test(relPath)) return true;
  return !!file?.getImportDeclarations().some((d) => TEST_RUNNERS.test(d.getModuleSpecifierValue()));
}
