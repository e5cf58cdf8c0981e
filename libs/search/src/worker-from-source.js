// Starts a worker thread from its TypeScript source, for runs without compiled JavaScript (jest
// with @swc/jest transforms only the test process, never a worker thread): the search worker, or
// the file named by `workerData.sourceEntry` (the search index's segment thread). After
// `npm run build` the compiled workers are started instead and this file is unused.
'use strict';
const { readFileSync } = require('node:fs');
const { workerData } = require('node:worker_threads');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};

require(workerData && workerData.sourceEntry ? workerData.sourceEntry : './search-worker.ts');
