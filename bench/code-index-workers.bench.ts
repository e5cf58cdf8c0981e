/**
 * (k) The code index computed by the distributed scan, on Linux `fs/` served by a local
 * `git http-backend` (a commit holding only `fs/`: 2,075 files, 42 MB), gateway and workers as
 * separate processes, real Redis and Postgres (a database of this bench's own, its blob tables
 * emptied before each run):
 *
 *   - first scan with the code index on 1 and 2 worker processes (each its own QUARRY_DATA_DIR):
 *     index throughput per worker in MB/s of source, and 1→2 workers. Target ≥ 1.8×. Peer, same
 *     run: the same scan with `codeIndex: false` (facts only), to show what indexing costs;
 *   - `pack` of the commit as a job on the 2 workers once the scan stored the rows, submit →
 *     succeeded, then the artifact downloaded. Peer, same run: `repomix fs/` on the checkout.
 *     Target ≤ 0.5× Repomix's wall time;
 *   - peak RSS per worker (VmHWM); with --k-whole also a pack job of the whole Linux tree (no rows
 *     stored: counted as written) and the worker's peak RSS. Target < 500 MB.
 *
 *   node dist/bench/code-index-workers.bench.js [--k-whole] [--k-whole-only: that pack alone, on one fresh worker]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Client } from 'pg';
import { applyMigrations, ensureDatabase } from '../libs/db/src/migrator';
import { GitHttpServer } from '../libs/snapshot/src/testing/git-http-server';
import { NO_RECONCILER_ENV, ProcessGroup, assertBuilt, pollUntil, type ChildHandle } from '../test/support/processes';
import { ensureLinuxTree } from './linux-tree';
import { BENCH_DATABASE_URL, BENCH_REDIS_URL, benchPrefix, deletePrefixKeys, medianBy } from './support';
import { CpuMeter, RECOMMENDED_WORKER_MEMORY, cpuSecondsOf, describeCpuSeconds, describeWorkerMemory, peakRssMB, scanCpuTargets, jobPollInterval } from './support';

const DATABASE_URL = BENCH_DATABASE_URL.replace(/\/[^/]*$/, '/quarry_bench_code_index');
const REPOMIX = path.resolve(__dirname, '..', '..', 'node_modules/repomix/bin/repomix.cjs');
/** fs/'s 2,075 files make 2 shards at the default limits (an unseen blob counts 16 KiB): smaller shards balance 2 workers. */
/** fs/ in shards of 128 files: a code-index scan plans a quarter of the configured size (derivedWorkLimits). */
const SHARD_MAX_FILES = '512';
const PACK_ROUNDS = 3;

export interface CodeIndexWorkersRow {
  workers: number;
  /** Scan with the code index, submit → succeeded. */
  ms: number;
  /** The same scan with `codeIndex: false` (blob tables emptied again). */
  factsOnlyMs: number;
  shards: number;
  workersSeen: number;
  tokens: number;
  definitions: number;
  /** MB of source indexed per second per worker (the whole scan's wall time). */
  mbpsPerWorker: number;
  peakRssMB: number[];
  /** CPU seconds per group of processes during the scan with the code index (support.ts, scanCpuTargets). */
  cpuSeconds: Record<string, number>;
}

export interface CodeIndexWorkersReport {
  megabytes: number;
  files: number;
  rows: CodeIndexWorkersRow[];
  totalsMatch: boolean;
  pack: { ms: number; downloadMs: number; files: number; tokens: number; bytes: number; peakRssMB: number[] };
  repomix: { ms: number; maxRssMB?: number; files?: number; error?: string };
  whole?: { ms: number; files: number; bytes: number; peakRssMB: number[]; error?: string };
  load: string;
}

/**
 * `linux: true` (`--k-linux`): the 1 vs 2 workers scans run on the whole kernel commit at the
 * default shard limits (about 6 minutes for the first); the pack and Repomix parts stay on `fs/`.
 */
export async function runCodeIndexWorkersBench(options: { whole?: boolean; wholeOnly?: boolean; linux?: boolean } = {}): Promise<CodeIndexWorkersReport> {
  assertBuilt();
  const tree = ensureLinuxTree();
  const work = mkdtempSync(path.join(os.tmpdir(), 'quarry-code-index-bench-'));
  const served = path.join(work, 'served');
  mkdirSync(served);
  const bare = path.join(served, 'linux.git');
  execFileSync('git', ['clone', '-q', '--bare', '--shared', tree, bare]);
  // A commit whose tree is `fs/` alone (objects shared with the kernel's).
  const git = (args: string[], input?: string) => execFileSync('git', ['-C', bare, ...args], { input, maxBuffer: 1 << 30, env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } }).toString().trim();
  const fsTree = git(['rev-parse', 'HEAD:fs']);
  const root = git(['mktree'], `040000 tree ${fsTree}\tfs\n`);
  git(['update-ref', 'refs/heads/fs-only', git(['commit-tree', root, '-m', 'fs only'])]);
  const scanned = options.linux ? git(['symbolic-ref', '--short', 'HEAD']) : 'fs-only';
  const sizes = git(['ls-tree', '-r', '-l', scanned]).split('\n').map((line) => Number(line.split(/\s+/)[3]) || 0);
  const megabytes = sizes.reduce((sum, size) => sum + size, 0) / 1e6;

  const server = await GitHttpServer.start(served);
  const source = { git: server.url('linux.git'), ref: 'fs-only' };
  const group = new ProcessGroup();
  await ensureDatabase(DATABASE_URL);
  await applyMigrations(DATABASE_URL);
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  const env: Record<string, string> = {
    QUARRY_DATABASE_URL: DATABASE_URL,
    QUARRY_REDIS_URL: BENCH_REDIS_URL,
    QUARRY_QUEUE_PREFIX: benchPrefix('code-index'),
    QUARRY_WORKSPACE_ROOTS: path.dirname(tree),
    QUARRY_FETCH_ALLOW: '127.0.0.1/32',
    QUARRY_LOG_LEVEL: 'warn',
    ...(options.linux ? {} : { QUARRY_SHARD_MAX_FILES: SHARD_MAX_FILES }),
    // The code index alone: the trigram search index, on by default, is (t)'s subject. Left on,
    // its segment thread took the second core for free in the 1-worker run and shared it in the
    // 2-worker one, so the ratio measured the search index as much as the code index.
    QUARRY_SEARCH_INDEX: '0',
    QUARRY_ARTIFACT_DIR: path.join(work, 'artifacts'),
    ...NO_RECONCILER_ENV,
  };
  console.log(`  ${describeWorkerMemory()}`);
  const report: CodeIndexWorkersReport = {
    megabytes,
    files: sizes.length,
    rows: [],
    totalsMatch: true,
    pack: { ms: 0, downloadMs: 0, files: 0, tokens: 0, bytes: 0, peakRssMB: [] },
    repomix: { ms: 0 },
    load: os.loadavg().map((value) => value.toFixed(1)).join(' '),
  };
  try {
    const gateway = await group.startGateway({ ...env, QUARRY_DATA_DIR: path.join(work, 'gateway') }, { timeoutMs: 60_000 });
    const api = async (method: string, route: string, body?: unknown, retried = false): Promise<any> => {
      try {
        const response = await fetch(gateway.url + route, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
        return await response.json();
      } catch (error) {
        // A pooled connection the gateway closed while idle (a long peer run in between) fails once: ask again.
        if (retried) throw new Error(`${method} ${route}: ${(error as Error).message} (${String((error as { cause?: unknown }).cause)})`);
        return api(method, route, body, true);
      }
    };
    const job = async (kind: string, input: unknown) => {
      const started = performance.now();
      const { id } = await api('POST', '/v1/jobs', { kind, input });
      const done = await pollUntil(async () => {
        const view = await api('GET', `/v1/jobs/${id}`);
        return ['succeeded', 'failed', 'cancelled'].includes(view.status) ? view : undefined;
      }, 60 * 60_000, `${kind} ${id}`, jobPollInterval);
      const ms = performance.now() - started;
      if (done.status !== 'succeeded') throw new Error(`${kind} ${id} ${done.status}: ${JSON.stringify(done.error)}`);
      return { id, ms, result: done.result };
    };
    const empty = () => pg.query('TRUNCATE blob_facts, blob_code_index');
    const startWorkers = (count: number, label: string) =>
      Promise.all(
        Array.from({ length: count }, (_, index) =>
          group.startWorker(`${label}-w${index + 1}`, { ...env, ...RECOMMENDED_WORKER_MEMORY, QUARRY_LOG_LEVEL: 'info', QUARRY_DATA_DIR: path.join(work, `${label}-w${index + 1}`), QUARRY_WORKER_ID: `${label}-w${index + 1}`, QUARRY_WORKER_CONCURRENCY: '2' }, { waitForReady: true, timeoutMs: 60_000 }),
        ),
      );

    let reference: string | undefined;
    let survivors: ChildHandle[] = options.wholeOnly ? await startWorkers(1, 'whole') : [];
    for (const count of options.wholeOnly ? [] : [1, 2]) {
      const workers = await startWorkers(count, `n${count}`);
      await empty();
      const scanSource = { ...source, ref: scanned };
      const factsOnly = await job('scan', { source: scanSource, codeIndex: false });
      await empty();
      console.log(`  ${count} worker(s): scanning ${source.git} @ ${scanned} with the code index`);
      const meter = new CpuMeter(scanCpuTargets(workers, gateway.handle.pid));
      meter.start();
      const { ms, result } = await job('scan', { source: scanSource });
      const cpuSeconds = cpuSecondsOf(meter.stop().cpuMs);
      const totals = JSON.stringify([result.tokens, result.symbols]);
      reference ??= totals;
      if (totals !== reference) report.totalsMatch = false;
      const row: CodeIndexWorkersRow = {
        workers: count,
        ms,
        factsOnlyMs: factsOnly.ms,
        shards: result.shards,
        workersSeen: result.workers,
        tokens: result.tokens.total,
        definitions: result.symbols.definitions,
        mbpsPerWorker: megabytes / (ms / 1000) / count,
        peakRssMB: workers.map(peakRssMB),
        cpuSeconds,
      };
      report.rows.push(row);
      console.log(`    ${(ms / 1000).toFixed(1)} s (facts only: ${(factsOnly.ms / 1000).toFixed(1)} s), ${row.shards} shards, ${row.workersSeen} workers took part, ${row.mbpsPerWorker.toFixed(2)} MB/s per worker, ${row.tokens.toLocaleString('en-US')} tokens, ${row.definitions.toLocaleString('en-US')} definitions, peak RSS ${row.peakRssMB.join(' / ')} MB`);
      console.log(`    ${describeCpuSeconds(cpuSeconds, ms)}`);
      if (count === 2) survivors = workers;
      else await Promise.all(workers.map((worker) => worker.stop(10_000)));
    }

    if (!options.wholeOnly) {
      // The pack job on the 2 workers (the rows stored by their scan, then the document downloaded),
      // and the peer, Repomix on the checkout's fs/ (its defaults: worker threads, its security
      // check), taking turns three times: Repomix's first run of a session is up to twice as slow
      // as the next ones (3.5 s, then 1.6 s), so the medians are compared.
      const packRounds: Array<{ ms: number; downloadMs: number; files: number; tokens: number; bytes: number }> = [];
      const repomixRounds: Array<NonNullable<CodeIndexWorkersReport['repomix']>> = [];
      for (let round = 0; round < PACK_ROUNDS; round++) {
        const pack = await job('pack', { source, style: 'xml' });
        const out = path.join(work, 'pack.xml');
        const downloadStarted = performance.now();
        const response = await fetch(`${gateway.url}/v1/jobs/${pack.id}/artifact`);
        await finished(Readable.fromWeb(response.body as never).pipe(createWriteStream(out)));
        packRounds.push({ ms: pack.ms, downloadMs: performance.now() - downloadStarted, files: pack.result.files, tokens: pack.result.tokens, bytes: statSync(out).size });
        rmSync(out, { force: true });

        const repomixOut = path.join(work, 'repomix.xml');
        const repomix = spawnSync('/usr/bin/time', ['-f', '\n@@time %e %M', process.execPath, REPOMIX, path.join(tree, 'fs'), '--style', 'xml', '-o', repomixOut], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' } });
        const time = /@@time ([\d.]+) (\d+)/.exec(repomix.stderr ?? '');
        const files = /Total Files:\s*([\d,]+)/.exec((repomix.stdout ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''));
        repomixRounds.push({
          ms: time ? Number(time[1]) * 1000 : NaN,
          maxRssMB: time ? Math.round(Number(time[2]) / 1024) : undefined,
          ...(files ? { files: Number(files[1].replaceAll(',', '')) } : {}),
          ...(repomix.status === 0 ? {} : { error: (repomix.stderr ?? '').slice(-300) }),
        });
        rmSync(repomixOut, { force: true });
      }
      const pack = medianBy(packRounds, (round) => round.ms);
      report.pack = { ...pack, peakRssMB: survivors.map(peakRssMB) };
      report.repomix = medianBy(repomixRounds, (round) => round.ms);
      console.log(`  pack job, XML, rows stored (median of ${PACK_ROUNDS}: ${packRounds.map((round) => (round.ms / 1000).toFixed(2)).join(' / ')} s): ${(pack.ms / 1000).toFixed(2)} s to succeeded, download ${(pack.downloadMs / 1000).toFixed(2)} s, ${pack.files} files, ${(pack.bytes / 1e6).toFixed(1)} MB`);
      console.log(`    peer: repomix fs/ (median of ${PACK_ROUNDS}: ${repomixRounds.map((round) => (round.ms / 1000).toFixed(2)).join(' / ')} s) ${(report.repomix.ms / 1000).toFixed(2)} s, peak RSS ${report.repomix.maxRssMB} MB (ratio ${(pack.ms / report.repomix.ms).toFixed(2)}×, with the download ${((pack.ms + pack.downloadMs) / report.repomix.ms).toFixed(2)}×)`);
    }

    if (options.whole || options.wholeOnly) {
      // The whole kernel, packed as a job: no rows stored for it, so counted and searched as written.
      try {
        const whole = await job('pack', { source: { git: server.url('linux.git') }, style: 'xml' });
        report.whole = { ms: whole.ms, files: whole.result.files, bytes: whole.result.bytes, peakRssMB: survivors.map(peakRssMB) };
      } catch (error) {
        report.whole = { ms: 0, files: 0, bytes: 0, peakRssMB: survivors.map(peakRssMB), error: (error as Error).message.slice(0, 300) };
      }
      console.log(`  pack job of the whole Linux tree: ${(report.whole.ms / 1000).toFixed(0)} s, ${report.whole.files} files, ${(report.whole.bytes / 1e9).toFixed(2)} GB, worker peak RSS ${report.whole.peakRssMB.join(' / ')} MB${report.whole.error ? `, FAILED ${report.whole.error}` : ''}`);
    }
  } finally {
    await group.stopAll(5_000);
    // The run's queues, shards included: nothing of it stays in Redis.
    await deletePrefixKeys(BENCH_REDIS_URL, env.QUARRY_QUEUE_PREFIX).catch(() => undefined);
    await pg.end();
    await server.close();
    if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  }
  return report;
}


if (require.main === module) {
  runCodeIndexWorkersBench({ whole: process.argv.includes('--k-whole'), wholeOnly: process.argv.includes('--k-whole-only'), linux: process.argv.includes('--k-linux') }).then(
    (report) => console.log(JSON.stringify(report, null, 2)),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
