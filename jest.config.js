// One runner, two projects: unit specs beside the code, and integration + e2e tests under test/.
// Integration and e2e tests share one Redis and one Postgres database, so files run one at a time.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const moduleNameMapper = {
  // The LLM settings alone, so loading the config does not load the openai client.
  '^@quarry/llm/(settings|testing)$': '<rootDir>/libs/llm/src/$1',
  // The configuration without NestJS, for the CLI's start-up.
  '^@quarry/config/settings$': '<rootDir>/libs/config/src/settings',
  // QuarryError and the edit distance without zod, for the scan's shard threads.
  '^@quarry/contracts/(errors|suggest|format)$': '<rootDir>/libs/contracts/src/$1',
  // URL and address checks without the fetcher (no undici), for the git snapshot's shard threads.
  '^@quarry/fetch/policy$': '<rootDir>/libs/fetch/src/policy',
  // The use cases and in-memory ports without the worker's adapters, for the CLI's start-up.
  '^@quarry/jobs/in-process$': '<rootDir>/libs/jobs/src/in-process',
  // The binary rule alone, for the search and shard threads.
  '^@quarry/workspace/binary$': '<rootDir>/libs/workspace/src/binary',
  // Budgets and cursors without the MCP server, for REST reads and the CLI's --json.
  '^@quarry/mcp/answers$': '<rootDir>/libs/mcp/src/answers',
  // The token counter alone (gpt-tokenizer), without the parsers: the MCP answers' budgets.
  '^@quarry/code-index/tokens$': '<rootDir>/libs/code-index/src/tokens/token-counter',
  // One native re2 per process (see test/support/node-environment.js).
  '^re2$': '<rootDir>/test/support/re2-shared.js',
  '^@quarry/(contracts|config|db|queue|workspace|fetch|llm|detect|search|mentions|interpret|render|mcp|code-index|code-graph|context|snapshot|blob-scan|search-index|jobs)$': '<rootDir>/libs/$1/src',
};
const common = {
  transform: { '^.+\\.(t|j)s$': swc },
  moduleNameMapper,
  testEnvironment: '<rootDir>/test/support/node-environment.js',
};

module.exports = {
  maxWorkers: 1,
  // Integration and e2e tests wait on real queues and processes; each wait inside has its own bound.
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.spec.ts', '<rootDir>/test/e2e/**/*.spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    // `npm run test:faults`: compiled gateway and workers on a Redis and a Postgres the suite starts
    // (and kills) itself; no global setup, it does not use the shared database.
    { ...common, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.spec.ts'] },
    // The dashboard in real headless Chromium (/usr/bin/chromium) against an in-process gateway and worker.
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
