/**
 * (h) One scan across worker processes, on the Linux tree served by a local `git http-backend`
 *     (facts only: `codeIndex: false`; the code index across workers is (k), code-index-workers.bench.ts):
 *
 *   - first scan of the URL with 1, 2 (and 4 with --h-four) worker processes, each with its own
 *     QUARRY_DATA_DIR (no shared cache: every worker fetches its own shards' blobs) and the blob
 *     table emptied before each run. Target: 2 workers ≥ 1.8× faster than 1;
 *   - the first scan with 1 worker vs `rg -c ''` over the checkout (every file read, lines counted).
 *     Target ≤ 1.5× (the scan also fetches the blobs from the server; a path scan is shown too);
 *   - a re-scan after a one-file commit: target < 1 s end to end (submit → succeeded);
 *   - peak RSS per worker (VmHWM). Target < 300 MB.
 *
 * The served repository is a `--shared` bare clone of the tree (its objects borrowed through
 * alternates), so the one-file commit never touches the cached tree.
 *
 *   node dist/bench/shards.bench.js [--h-four]
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { applyMigrations, ensureDatabase } from '../libs/db/src/migrator';
import { GitHttpServer } from '../libs/snapshot/src/testing/git-http-server';
import { NO_RECONCILER_ENV, ProcessGroup, assertBuilt, pollUntil, type ChildHandle } from '../test/support/processes';
import { ensureLinuxTree } from './linux-tree';
import { BENCH_DATABASE_URL, BENCH_REDIS_URL, benchPrefix, deletePrefixKeys } from './support';
import { CpuMeter, RECOMMENDED_WORKER_MEMORY, cpuSecondsOf, describeCpuSeconds, describeWorkerMemory, peakRssMB, scanCpuTargets, jobPollInterval } from './support';

const run = promisify(execFile);
/** One-file commits re-scanned in a row (the median is reported). */
const RESCANS = 3;
/** A database of this bench's own: it empties blob_facts between runs. */
const DATABASE_URL = BENCH_DATABASE_URL.replace(/\/[^/]*$/, '/quarry_bench_shards');

export interface ShardsBenchRow {
  workers: number;
  ms: number;
  shards: number;
  workersSeen: number;
  files: number;
  peakRssMB: number[];
  /** CPU seconds per group of processes during the scan (workers with their git children; the git server is this process's children). */
  cpuSeconds: Record<string, number>;
}

export interface ShardsBenchReport {
  rows: ShardsBenchRow[];
  rgMs: number;
  pathScanMs: number;
  /** The same directory scanned again with one file added. */
  pathRescanMs: number;
  pathRescanBlobs: unknown;
  /** The median of the re-scans. */
  rescanMs: number;
  rescans: number[];
  /** Per re-scan: whether it updated a remembered scan (the parent job landed on the worker that scanned the previous commit). */
  rescansUpdated: boolean[];
  rescanBlobs: unknown;
  countsMatch: boolean;
  load: string;
}

export async function runShardsBench(options: { four?: boolean } = {}): Promise<ShardsBenchReport> {
  assertBuilt();
  const tree = ensureLinuxTree();
  const work = mkdtempSync(path.join(os.tmpdir(), 'quarry-shards-bench-'));
  const served = path.join(work, 'served');
  mkdirSync(served);
  const bare = path.join(served, 'linux.git');
  execFileSync('git', ['clone', '-q', '--bare', '--shared', tree, bare]);
  const server = await GitHttpServer.start(served);
  const url = server.url('linux.git');
  const group = new ProcessGroup();
  await ensureDatabase(DATABASE_URL);
  await applyMigrations(DATABASE_URL);
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  const prefix = benchPrefix('shards');
  const env: Record<string, string> = {
    QUARRY_DATABASE_URL: DATABASE_URL,
    QUARRY_REDIS_URL: BENCH_REDIS_URL,
    QUARRY_QUEUE_PREFIX: prefix,
    QUARRY_WORKSPACE_ROOTS: path.dirname(tree),
    QUARRY_FETCH_ALLOW: '127.0.0.1/32',
    QUARRY_LOG_LEVEL: 'warn',
    ...NO_RECONCILER_ENV,
  };
  console.log(`  ${describeWorkerMemory()}`);
  const report: ShardsBenchReport = { rows: [], rgMs: 0, pathScanMs: 0, pathRescanMs: 0, pathRescanBlobs: undefined, rescanMs: 0, rescans: [], rescansUpdated: [], rescanBlobs: undefined, countsMatch: true, load: os.loadavg().map((value) => value.toFixed(1)).join(' ') };
  try {
    const gateway = await group.startGateway({ ...env, QUARRY_DATA_DIR: path.join(work, 'gateway') }, { timeoutMs: 60_000 });
    const api = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(gateway.url + route, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
      return response.json() as Promise<any>;
    };
    const scan = async (input: unknown) => {
      const started = performance.now();
      const { id } = await api('POST', '/v1/jobs', { kind: 'scan', input });
      const job = await pollUntil(async () => {
        const view = await api('GET', `/v1/jobs/${id}`);
        return ['succeeded', 'failed', 'cancelled'].includes(view.status) ? view : undefined;
      }, 30 * 60_000, `scan ${id}`, jobPollInterval);
      const ms = performance.now() - started;
      if (job.status !== 'succeeded') throw new Error(`scan ${id} ${job.status}: ${JSON.stringify(job.error)}`);
      return { ms, result: job.result };
    };
    const startWorkers = (count: number, label: string) =>
      Promise.all(
        Array.from({ length: count }, (_, index) =>
          group.startWorker(`${label}-w${index + 1}`, { ...env, ...RECOMMENDED_WORKER_MEMORY, QUARRY_LOG_LEVEL: 'info', QUARRY_DATA_DIR: path.join(work, `${label}-w${index + 1}`), QUARRY_WORKER_ID: `${label}-w${index + 1}`, QUARRY_WORKER_CONCURRENCY: '2' }, { waitForReady: true, timeoutMs: 60_000 }),
        ),
      );

    // Peer: every file read and its lines counted, on a warm page cache (a first run after the
    // tree was prepared or the machine was busy read the disk: 5.9–15.6 s against ~1.3 s warm).
    const rg = () => run('rg', ['-c', '', '--hidden', '--glob', '!.git', tree], { maxBuffer: 1 << 30 }).catch((error) => error);
    await rg();
    const rgStarted = performance.now();
    await rg();
    report.rgMs = performance.now() - rgStarted;

    let reference: unknown;
    let survivors: ChildHandle[] = [];
    for (const count of options.four ? [1, 2, 4] : [1, 2]) {
      await pg.query('TRUNCATE blob_facts');
      const workers = await startWorkers(count, `n${count}`);
      console.log(`  ${count} worker(s): scanning ${url}`);
      const meter = new CpuMeter(scanCpuTargets(workers, gateway.handle.pid));
      meter.start();
      const { ms, result } = await scan({ source: { git: url }, codeIndex: false });
      const cpuSeconds = cpuSecondsOf(meter.stop().cpuMs);
      const counts = JSON.stringify([result.files, result.bytes, result.lines, result.languages]);
      reference ??= counts;
      if (counts !== reference) report.countsMatch = false;
      report.rows.push({ workers: count, ms, shards: result.shards, workersSeen: result.workers, files: result.files, peakRssMB: workers.map(peakRssMB), cpuSeconds });
      console.log(`    ${(ms / 1000).toFixed(1)} s, ${result.shards} shards, ${result.workers} workers took part`);
      console.log(`    ${describeCpuSeconds(cpuSeconds, ms)}`);
      if (count === 2) survivors = workers;
      else await Promise.all(workers.map((worker) => worker.stop(10_000)));
    }

    // One file changes: the 2 workers re-scan (the table holds every other blob). Three commits in
    // a row, each changing one file, and the median re-scan reported (one alone varied by 30%).
    const git = (...args: string[]) => execFileSync('git', ['-C', bare, ...args], { env: { ...process.env, GIT_INDEX_FILE: path.join(work, 'index'), GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } }).toString().trim();
    const branch = git('symbolic-ref', '--short', 'HEAD');
    for (let round = 0; round < RESCANS; round++) {
      git('read-tree', 'HEAD');
      const blob = execFileSync('git', ['-C', bare, 'hash-object', '-w', '--stdin'], { input: `one-file change ${round} ${Date.now()}\n` }).toString().trim();
      git('update-index', '--cacheinfo', `100644,${blob},README`);
      const commit = git('commit-tree', git('write-tree'), '-p', 'HEAD', '-m', `one file ${round}`);
      git('update-ref', `refs/heads/${branch}`, commit);
      const rescan = await scan({ source: { git: url }, codeIndex: false });
      report.rescans.push(rescan.ms);
      report.rescanBlobs = rescan.result.blobs;
      report.rescansUpdated.push(Boolean(rescan.result.updatedFrom));
      console.log(`  re-scan after a one-file commit: ${rescan.ms.toFixed(0)} ms, blobs ${JSON.stringify(rescan.result.blobs)}, ${rescan.result.updatedFrom ? `updated the scan of ${String(rescan.result.updatedFrom).slice(0, 12)}` : 'through the whole tree'}`);
    }
    report.rescanMs = [...report.rescans].sort((a, b) => a - b)[Math.floor(report.rescans.length / 2)];
    for (const row of report.rows) if (row.workers === 2) row.peakRssMB = survivors.map(peakRssMB);

    // The same tree by path, on a fresh worker's shard threads (blob ids from git's index, nothing
    // hashed). Fresh: the others keep the URL scans' facts in memory, and a checkout's blob ids
    // are the commit's, so they would read nothing.
    await Promise.all(survivors.map((worker) => worker.stop(10_000)));
    await pg.query('TRUNCATE blob_facts');
    await startWorkers(1, 'p1');
    const path1 = await scan({ source: { path: tree }, codeIndex: false });
    report.pathScanMs = path1.ms;
    console.log(`  scan by path: ${path1.ms.toFixed(0)} ms, blobs ${JSON.stringify(path1.result.blobs)}`);
    // Then again with one new file in the checkout (untracked, removed after): one file read.
    const added = path.join(tree, 'QUARRY-BENCH-ADDED.txt');
    try {
      writeFileSync(added, `one new file ${Date.now()}\n`);
      const path2 = await scan({ source: { path: tree }, codeIndex: false });
      report.pathRescanMs = path2.ms;
      report.pathRescanBlobs = path2.result.blobs;
      console.log(`  re-scan by path with one new file: ${path2.ms.toFixed(0)} ms, blobs ${JSON.stringify(path2.result.blobs)}`);
    } finally {
      rmSync(added, { force: true });
    }
  } finally {
    await group.stopAll(5_000);
    // The run's queues, shards included: nothing of it stays in Redis.
    await deletePrefixKeys(BENCH_REDIS_URL, prefix).catch(() => undefined);
    await pg.end();
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
  return report;
}


if (require.main === module) {
  runShardsBench({ four: process.argv.includes('--h-four') }).then(
    (report) => console.log(JSON.stringify(report, null, 2)),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
