// Starts the shard thread from its TypeScript source, for runs without compiled JavaScript (jest
// with @swc/jest transforms only the test process, never a worker thread). After `npm run build`
// the executor starts the compiled shard-thread.js instead and this file is unused. Like jest's
// moduleNameMapper, `@quarry/<lib>` resolves to libs/<lib>/src.
'use strict';
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const libs = path.resolve(__dirname, '..', '..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@quarry\/([a-z-]+)(\/.*)?$/.exec(request);
  if (alias) request = path.join(libs, alias[1], 'src', alias[2] ?? '');
  return resolve.call(this, request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};

require('./shard-thread.ts');
