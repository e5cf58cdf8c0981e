// Starts the search worker from its TypeScript source, for runs without compiled JavaScript
// (jest with @swc/jest transforms only the test process, never a worker thread). After
// `npm run build` the pool starts the compiled search-worker.js instead and this file is unused.
'use strict';
const { readFileSync } = require('node:fs');
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

require('./search-worker.ts');
