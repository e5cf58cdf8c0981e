// Starts the search worker from its TypeScript source, for runs without compiled JavaScript
// (jest with @swc/jest transforms only the test process, never a worker thread). After
// `npm run build` the pool starts the compiled search-worker.js instead and this file is unused.
'use strict';
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

// The path aliases tsconfig.json maps (`@quarry/workspace/binary` → libs/workspace/src/binary.ts).
const libs = path.resolve(__dirname, '../..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@quarry\/([\w-]+)(?:\/([\w-]+))?$/.exec(request);
  if (alias) return path.join(libs, alias[1], 'src', `${alias[2] ?? 'index'}.ts`);
  return resolve.call(this, request, ...rest);
};

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
