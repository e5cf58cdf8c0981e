/**
 * (t) The trigram search index on the Linux tree, served by a local `git http-backend`:
 *
 *   - index build: a first scan of the URL by one worker without the index (QUARRY_SEARCH_INDEX=0)
 *     and one with it, each from empty tables and an empty git cache. Target: the index adds
 *     ≤ 50% to the scan. Index size vs the text it covers: target ≤ 1.5×;
 *   - repeat queries on the indexed commit through the running gateway (`POST /v1/search` with
 *     the commit as ref), p50 and p99 over RUNS each, vs `rg -c` over the checkout in the same run
 *     (its median). Targets for selective queries (a function name): p50 ≤ 0.25× rg, p99 ≤ 100 ms.
 *     Totals must equal rg's;
 *   - peak RSS (VmHWM) of the worker that built the index and of the gateway that answered.
 *
 *   node dist/bench/search-index.bench.js
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { applyMigrations, ensureDatabase } from '../libs/db/src/migrator';
import { GitHttpServer } from '../libs/snapshot/src/testing/git-http-server';
import { NO_RECONCILER_ENV, ProcessGroup, assertBuilt, pollUntil, type ChildHandle } from '../test/support/processes';
import { ensureLinuxTree } from './linux-tree';
import { BENCH_DATABASE_URL, BENCH_REDIS_URL, benchPrefix, deletePrefixKeys, latencyStats, processCpuMs, type LatencyStats } from './support';
import { peakRssMB, jobPollInterval } from './support';

const run = promisify(execFile);
/** A database of this bench's own: it empties the blob and index tables between scans. */
const DATABASE_URL = BENCH_DATABASE_URL.replace(/\/[^/]*$/, '/quarry_bench_search_index');
const RUNS = 40;
const RG_RUNS = 5;

export interface SearchIndexQuery {
  label: string;
  pattern: string;
  regex?: boolean;
  ignoreCase?: boolean;
  /** Judged against the targets (a rare identifier); the others are shown for scale. */
  selective: boolean;
}

export const INDEX_QUERIES: SearchIndexQuery[] = [
  { label: 'function name', pattern: 'ext4_fill_super', selective: true },
  { label: 'function name, -i', pattern: 'NVME_SUBMIT_SYNC_CMD', ignoreCase: true, selective: true },
  { label: 'regex with a literal', pattern: String.raw`\bi915_gem_object_pin_map\w*\(`, regex: true, selective: true },
  { label: 'common word, -i', pattern: 'todo', ignoreCase: true, selective: false },
  { label: 'regex, rare literal', pattern: String.raw`\w+_errr\(`, regex: true, selective: true },
  { label: 'no literal (cold)', pattern: '[A-Z]{12}_[0-9]{4}', regex: true, selective: false },
];

export interface SearchIndexBenchRow extends SearchIndexQuery {
  total: number;
  rgTotal: number;
  indexed: boolean;
  stats: LatencyStats;
  rgMs: number;
}

export interface SearchIndexBenchReport {
  files: number;
  textBytes: number;
  indexBytes: number;
  segments: number;
  scanMs: number;
  scanWithIndexMs: number;
  /** CPU (user + system) of the worker process during each scan: steadier than wall time on a shared machine. */
  scanCpuMs: number;
  scanWithIndexCpuMs: number;
  firstQueryMs: number;
  rows: SearchIndexBenchRow[];
  workerPeakRssMB: number;
  gatewayPeakRssMB: number;
  load: string;
}

export async function runSearchIndexBench(): Promise<SearchIndexBenchReport> {
  assertBuilt();
  const tree = ensureLinuxTree();
  const work = mkdtempSync(path.join(os.tmpdir(), 'quarry-search-index-bench-'));
  const served = path.join(work, 'served');
  mkdirSync(served);
  const bare = path.join(served, 'linux.git');
  execFileSync('git', ['clone', '-q', '--bare', '--shared', tree, bare]);
  const commit = execFileSync('git', ['-C', bare, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const server = await GitHttpServer.start(served);
  const url = server.url('linux.git');
  const group = new ProcessGroup();
  await ensureDatabase(DATABASE_URL);
  await applyMigrations(DATABASE_URL);
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  const empty = () => pg.query('TRUNCATE blob_facts, search_index_commits, search_index_blobs, search_index_segments');
  const env: Record<string, string> = {
    QUARRY_DATABASE_URL: DATABASE_URL,
    QUARRY_REDIS_URL: BENCH_REDIS_URL,
    QUARRY_QUEUE_PREFIX: benchPrefix('search-index'),
    QUARRY_WORKSPACE_ROOTS: path.dirname(tree),
    QUARRY_FETCH_ALLOW: '127.0.0.1/32',
    QUARRY_LOG_LEVEL: 'warn',
    ...NO_RECONCILER_ENV,
  };
  const report: SearchIndexBenchReport = {
    files: 0, textBytes: 0, indexBytes: 0, segments: 0, scanMs: 0, scanWithIndexMs: 0, scanCpuMs: 0, scanWithIndexCpuMs: 0, firstQueryMs: 0, rows: [], workerPeakRssMB: 0, gatewayPeakRssMB: 0,
    load: os.loadavg().map((value) => value.toFixed(1)).join(' '),
  };
  try {
    const gateway = await group.startGateway({ ...env, QUARRY_DATA_DIR: path.join(work, 'gateway') }, { timeoutMs: 60_000 });
    const api = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(gateway.url + route, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
      return response.json() as Promise<any>;
    };
    const scan = async (label: string, searchIndex: boolean): Promise<{ ms: number; cpuMs: number; result: any; worker: ChildHandle }> => {
      await empty();
      const worker = await group.startWorker(label, { ...env, QUARRY_LOG_LEVEL: 'info', QUARRY_SEARCH_INDEX: searchIndex ? '1' : '0', QUARRY_DATA_DIR: path.join(work, label), QUARRY_WORKER_ID: label }, { waitForReady: true, timeoutMs: 60_000 });
      const cpuBefore = processCpuMs(worker.pid) ?? 0;
      const started = performance.now();
      // Facts only in both runs: the code index (tokens, symbols) is its own cost, measured in (k);
      // left on, the first run paid for it and the second reused its rows.
      const { id } = await api('POST', '/v1/jobs', { kind: 'scan', input: { source: { git: url }, codeIndex: false } });
      const job = await pollUntil(async () => {
        const view = await api('GET', `/v1/jobs/${id}`);
        return ['succeeded', 'failed', 'cancelled'].includes(view.status) ? view : undefined;
      }, 30 * 60_000, `scan ${id}`, jobPollInterval);
      const ms = performance.now() - started;
      const cpuMs = (processCpuMs(worker.pid) ?? 0) - cpuBefore;
      if (job.status !== 'succeeded') throw new Error(`scan ${id} ${job.status}: ${JSON.stringify(job.error)}`);
      return { ms, cpuMs, result: job.result, worker };
    };

    console.log(`  scanning ${url} without the index`);
    const plain = await scan('plain', false);
    report.scanMs = plain.ms;
    report.scanCpuMs = plain.cpuMs;
    await plain.worker.stop(10_000);
    console.log(`    ${(plain.ms / 1000).toFixed(1)} s (worker CPU ${(plain.cpuMs / 1000).toFixed(1)} s); with the index`);
    const indexed = await scan('indexed', true);
    report.scanWithIndexMs = indexed.ms;
    report.scanWithIndexCpuMs = indexed.cpuMs;
    report.workerPeakRssMB = peakRssMB(indexed.worker);
    report.files = indexed.result.files;
    console.log(`    ${(indexed.ms / 1000).toFixed(1)} s (worker CPU ${(indexed.cpuMs / 1000).toFixed(1)} s)`);
    const manifest = (await pg.query('SELECT segments, text_bytes, index_bytes FROM search_index_commits WHERE "commit" = $1', [commit])).rows[0];
    if (!manifest) throw new Error('the scan wrote no search index manifest');
    report.segments = manifest.segments.length;
    report.textBytes = Number(manifest.text_bytes);
    report.indexBytes = Number(manifest.index_bytes);
    await indexed.worker.stop(10_000);

    const search = async (query: SearchIndexQuery) => {
      const started = performance.now();
      const answer = await api('POST', '/v1/search', { source: { git: url, ref: commit }, pattern: query.pattern, regex: query.regex === true, case: query.ignoreCase ? 'insensitive' : 'sensitive' });
      if (answer.kind) throw new Error(`search ${query.pattern}: ${JSON.stringify(answer)}`);
      return { ms: performance.now() - started, total: answer.total as number, indexed: answer.indexed as boolean };
    };
    // The gateway's first query checks the commit out into its cache and downloads the segments.
    console.log('  first query (the gateway checks the commit out and caches the segments)');
    report.firstQueryMs = (await search(INDEX_QUERIES[0])).ms;
    for (const query of INDEX_QUERIES) {
      const rgArgs = ['-c', '--no-messages', ...(query.regex ? [] : ['-F']), ...(query.ignoreCase ? ['-i'] : []), '--', query.pattern, tree];
      const rgSamples: number[] = [];
      let rgTotal = 0;
      for (let index = 0; index < RG_RUNS; index++) {
        const started = performance.now();
        const output = await run('rg', rgArgs, { maxBuffer: 1 << 28 }).then((result) => result.stdout, () => '');
        rgSamples.push(performance.now() - started);
        rgTotal = output.split('\n').filter(Boolean).reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1)), 0);
      }
      const samples: number[] = [];
      let last = await search(query);
      // A query the index cannot narrow reads the whole tree each time: a few runs show its scale.
      for (let index = 0; index < (query.selective ? RUNS : 3); index++) {
        last = await search(query);
        samples.push(last.ms);
      }
      const row: SearchIndexBenchRow = { ...query, total: last.total, rgTotal, indexed: last.indexed, stats: latencyStats(samples), rgMs: latencyStats(rgSamples).p50 };
      report.rows.push(row);
      console.log(`    ${query.label.padEnd(22)} ${query.pattern.padEnd(34)} p50 ${row.stats.p50.toFixed(1)} ms, p99 ${row.stats.p99.toFixed(1)} ms; rg ${row.rgMs.toFixed(0)} ms; ${row.total} vs rg ${rgTotal}${row.indexed ? ', indexed' : ', cold'}`);
    }
    report.gatewayPeakRssMB = peakRssMB(gateway.handle);
  } finally {
    await group.stopAll(5_000);
    // The run's queues, shards included: nothing of it stays in Redis.
    await deletePrefixKeys(BENCH_REDIS_URL, env.QUARRY_QUEUE_PREFIX).catch(() => undefined);
    await pg.end();
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
  return report;
}


if (require.main === module) {
  runSearchIndexBench().then(
    (report) => console.log(JSON.stringify(report, null, 2)),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
