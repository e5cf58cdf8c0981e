#!/usr/bin/env node
// Runs `prisma generate`. Generating the client needs no schema engine, but the Prisma CLI checks
// for one at start and would try to download it; offline machines cannot. Point it at a stand-in
// that explains itself, unless a real engine was configured.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = path.join(__dirname, 'schema-engine-unavailable.sh');
}
const prisma = require.resolve('prisma/build/index.js');
const run = spawnSync(process.execPath, [prisma, 'generate'], { stdio: 'inherit', env, cwd: path.join(__dirname, '..') });
process.exit(run.status ?? 1);
