/** What test files are called in the ecosystems the index reads. */
const TEST_PATTERNS: readonly RegExp[] = [
  /\.(spec|test|e2e-spec)\.[cm]?[jt]sx?$/,
  /(^|\/)(__tests__|__test__)\//,
  /(^|\/)test_[^/]+\.py$/,
  /_test\.py$/,
  /(^|\/)conftest\.py$/,
  /_test\.go$/,
  /(Test|Tests|IT|Spec)\.(java|kt|scala|cs)$/,
  /_(spec|test)\.rb$/,
  /(^|\/)tests?\/.+\.(rs|py|c|cc|cpp|php|[jt]sx?)$/,
  /(^|\/)spec\/.+\.rb$/,
  /Test\.php$/,
];

export function isTestFile(path: string): boolean {
  return TEST_PATTERNS.some((pattern) => pattern.test(path));
}

/** The stem tests are named after: `src/app/server.ts` → `server`, `flask/app.py` → `app`. */
export function stemOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.replace(/\.[^.]+$/, '').replace(/\.(d|spec|test)$/, '');
}

/**
 * Whether `test` is named after source `source` by a convention (`server.spec.ts`,
 * `server.test.ts`, `__tests__/server.ts`, `test_server.py`, `server_test.go`, `ServerTest.java`,
 * `server_spec.rb`, `tests/server.rs`).
 */
export function testNamedAfter(test: string, source: string): boolean {
  const stem = stemOf(source).toLowerCase();
  if (stem.length < 2 || stem === 'index' || stem === '__init__' || stem === 'mod' || stem === 'lib' || stem === 'main') return false;
  const base = test.slice(test.lastIndexOf('/') + 1).toLowerCase();
  const testStem = base.replace(/\.[^.]+$/, '');
  return (
    testStem === `${stem}.spec` ||
    testStem === `${stem}.test` ||
    testStem === `test_${stem}` ||
    testStem === `${stem}_test` ||
    testStem === `${stem}test` ||
    testStem === `${stem}tests` ||
    testStem === `${stem}_spec` ||
    (testStem === stem && isTestFile(test))
  );
}
