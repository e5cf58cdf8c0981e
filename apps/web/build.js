#!/usr/bin/env node
// Assembles dist/web/public after `tsc -p apps/web/tsconfig.json`: the page, its stylesheet, the
// compiled modules (assets/) and the vendor ES modules (vendor/), so the gateway serves one folder
// and the page needs nothing from the network.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const out = path.join(root, 'dist', 'web', 'public');
const compiled = path.join(root, 'dist', 'web', 'tsc', 'apps', 'web', 'src');

const vendor = {
  'preact.mjs': 'preact/dist/preact.module.js',
  'preact-hooks.mjs': 'preact/hooks/dist/hooks.module.js',
  'htm.mjs': 'htm/dist/htm.module.js',
  'socket.io.mjs': 'socket.io-client/dist/socket.io.esm.min.js',
};

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'assets'), { recursive: true });
fs.mkdirSync(path.join(out, 'vendor'), { recursive: true });
for (const file of fs.readdirSync(path.join(__dirname, 'static'))) {
  fs.copyFileSync(path.join(__dirname, 'static', file), path.join(out, file));
}
for (const file of fs.readdirSync(compiled)) {
  if (file.endsWith('.js')) fs.copyFileSync(path.join(compiled, file), path.join(out, 'assets', file));
}
for (const [name, from] of Object.entries(vendor)) {
  fs.copyFileSync(path.join(root, 'node_modules', from), path.join(out, 'vendor', name));
}
