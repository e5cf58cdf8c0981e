'use strict';
/*
 * A second worker process for the cross-process limiter tests:
 *
 *   node limiter-child.js <redisUrl> <prefix> <limiterOptionsJson> <workloadJson>
 *
 * It loads the REAL RedisDomainLimiter TypeScript source (compiled on the fly with @swc/core, as
 * jest does), prints "ready", waits for a line on stdin, runs the workload and prints the grants
 * as JSON. Plain JavaScript so that it needs no build step; it talks only to the given Redis.
 */
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const readline = require('node:readline');
const swc = require('@swc/core');

const repoRoot = path.resolve(__dirname, '../../../..');
const originalResolve = Module._resolveFilename;
Module._resolveFilename = function resolveQuarry(request, ...rest) {
  const alias = /^@quarry\/([a-z-]+)$/.exec(request);
  return originalResolve.call(this, alias ? path.join(repoRoot, 'libs', alias[1], 'src') : request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};

const Redis = require('ioredis');
const { RedisDomainLimiter } = require('../redis-domain-limiter.ts');
const { runLimiterWorkload } = require('./limiter-workload.ts');

async function main() {
  const [redisUrl, prefix, optionsJson, workloadJson] = process.argv.slice(2);
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const limiter = new RedisDomainLimiter(redis, prefix, JSON.parse(optionsJson));
  const workload = JSON.parse(workloadJson);
  await redis.ping();
  process.stdout.write('ready\n');
  const lines = readline.createInterface({ input: process.stdin });
  const command = await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  if (command === 'hold') {
    // Take one slot and keep it until killed: a worker that crashes mid-fetch.
    await limiter.acquire(workload.domain);
    process.stdout.write('holding\n');
    setInterval(() => undefined, 1_000);
    return;
  }
  const grants = await runLimiterWorkload(limiter, workload);
  process.stdout.write(JSON.stringify(grants) + '\n');
  await redis.quit();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
