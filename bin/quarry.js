#!/usr/bin/env node
'use strict';
// The `quarry` command: runs the compiled CLI (build with `npm run build`).
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');
if (!fs.existsSync(entry)) {
  console.error('quarry is not built yet: run `npm run build` (or `npm start`) in ' + path.dirname(__dirname));
  process.exit(2);
}
require(entry)
  .main(process.argv.slice(2))
  .then((code) => {
    if (code !== undefined) process.exitCode = code;
  });
