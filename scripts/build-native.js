#!/usr/bin/env node
// Builds the native C parser (libs/code-index/native: tree-sitter's runtime and the C grammar from
// their npm packages, and c_syntax.c) with node-gyp, as `npm ci` builds re2. Run by `npm run
// build`; make rebuilds only what changed. Without it C is parsed by the WebAssembly build
// (native-c.ts), so a failed build fails loudly here instead of making scans silently slower.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const directory = path.join(__dirname, '..', 'libs', 'code-index', 'native');
// npm hands its scripts its own node-gyp (and its settings, such as nodedir, as npm_config_*).
const nodeGyp = process.env.npm_config_node_gyp ?? require.resolve('node-gyp/bin/node-gyp.js');
const configured = fs.existsSync(path.join(directory, 'build', 'Makefile'));
const result = spawnSync(process.execPath, [nodeGyp, configured ? 'build' : 'rebuild', '--loglevel=error'], { cwd: directory, stdio: ['ignore', 'ignore', 'inherit'] });
if (result.status !== 0) {
  console.error(`building the native C parser failed (node-gyp in ${directory}); it needs python3, make and a C compiler, as re2 does`);
  process.exit(result.status ?? 1);
}
