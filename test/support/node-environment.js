// The jest test environment of every project: jest's node environment, plus the native `re2`
// module loaded once per process. Jest gives each test file a fresh module registry, so a plain
// require('re2') would run the addon's initialiser again in the same V8 isolate, and re2's NAN
// templates then crash the process ("Check failed: node->IsInUse()") as soon as a second test file
// uses it. Loaded here, outside the registries, it is loaded once; test/support/re2-shared.js
// (mapped to 're2' in jest.config.js) hands every test file that same instance.
const { TestEnvironment } = require('jest-environment-node');
const RE2 = require('re2');

class QuarryTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__quarrySharedRe2 = RE2;
  }
}

module.exports = QuarryTestEnvironment;
