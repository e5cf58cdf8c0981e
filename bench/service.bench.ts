import http from 'node:http';
import { connectEvents, type EventsSocket } from '../test/support/events-socket';
import type { AddressInfo } from 'node:net';
/**
 * Service benchmarks on the real deployment shape: a spawned `quarry gateway` and spawned
 * `quarry worker` processes (the compiled build), real Redis and Postgres (database quarry_bench),
 * traffic to 127.0.0.1 only. Each figure is printed with its peer, measured in the same run:
 *
 *   (a) latency of a tiny scan, POST /v1/jobs → job.completed on a socket.io client,
 *       next to a bare BullMQ add → completed round trip (trivial processor, own process);
 *   (b) throughput of tiny jobs submitted 50 at a time over HTTP until every row is succeeded,
 *       next to bare BullMQ throughput of as many trivial jobs;
 *   (c) 20 scans of a 20,000-file tree on 1 and on 2 worker processes (concurrency 1 each);
 *   plus a profile: Postgres round trips per job (counting proxy), Redis calls, CPU per process.
 *
 * Run through bench/run.ts (`npm run bench`).
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Queue, QueueEvents } from 'bullmq';
import { Client } from 'pg';
import { applyMigrations, ensureDatabase } from '../libs/db/src/migrator';
import { createPrismaClient } from '../libs/db/src/prisma-client';
import { redisOptions } from '../libs/queue/src';
import { ChildHandle, NO_RECONCILER_ENV, ProcessGroup, QUARRY_BIN, SpawnedGateway, assertBuilt, pollUntil } from '../test/support/processes';
import { generatedTree } from '../test/support/trees';
import {
  BENCH_DATABASE_URL,
  BENCH_REDIS_URL,
  CpuMeter,
  LatencyStats,
  PgCountingProxy,
  QuietWait,
  benchPrefix,
  deletePrefixKeys,
  describeQuiet,
  waitForQuiet,
  ensureTinyTree,
  latencyStats,
  ms,
  num,
  pidsByName,
  printTable,
  redisCommandCalls,
  sleep,
} from './support';

const BARE_QUEUE = 'bare';
/** (b) runs each path this many times, interleaved, and reports the median round. */
const THROUGHPUT_ROUNDS = 3;

export interface ServiceBenchOptions {
  /** Which figures to measure: a = latency, b = throughput, p = round-trip profile, c = scaling. */
  parts: { a: boolean; b: boolean; p: boolean; c: boolean; f?: boolean };
  latencyJobs: number;
  latencyWarmup: number;
  throughputJobs: number;
  inFlight: number;
  /** (b) with POST /v1/jobs/batch: jobs per request, and requests in flight. */
  batchSize: number;
  batchesInFlight: number;
  /** QUARRY_WORKER_CONCURRENCY of the single worker process of (a) and (b). */
  workerConcurrency: number;
  scans: number;
  scanTreeFiles: number;
  profileSequentialJobs: number;
  profileConcurrentJobs: number;
  /**
   * (c) only: pin scan worker N to CPU N-1 with taskset, so one process cannot use more than one
   * core and the ratio measures processes alone (a variant; the default lets the OS schedule).
   */
  pinScanWorkers: boolean;
}

export const DEFAULT_SERVICE_OPTIONS: ServiceBenchOptions = {
  parts: { a: true, b: true, p: true, c: true, f: true },
  latencyJobs: 500,
  latencyWarmup: 50,
  throughputJobs: 5_000,
  inFlight: 50,
  batchSize: 100,
  batchesInFlight: 4,
  workerConcurrency: 50,
  scans: 20,
  scanTreeFiles: 20_000,
  profileSequentialJobs: 100,
  profileConcurrentJobs: 500,
  pinScanWorkers: false,
};

export interface ThroughputFigure {
  /** Redis commands executed per job, counting those run inside BullMQ's Lua scripts (server-wide INFO commandstats). */
  redisCallsPerJob?: number;
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  submitSeconds: number;
  failed: number;
  cpuMs: Record<string, number>;
}

export interface ScanRun {
  seconds: number;
  meanScanMs: number;
  cpuMs: Record<string, number>;
  quiet?: QuietWait;
}

export interface ServiceBenchReport {
  options: ServiceBenchOptions;
  latency?: { service: LatencyStats; servicePost: LatencyStats; viaSnapshot: number; bare: LatencyStats; quiet: QuietWait; stages: StageBreakdown };
  throughput?: { service: ThroughputFigure; single: ThroughputFigure; bare: ThroughputFigure; quiet: QuietWait; rounds: Array<{ service: number; single: number; bare: number }> };
  scaling?: { one: ScanRun; two: ScanRun; ratio: number };
  fetchCacheHit?: { service: LatencyStats; quiet: QuietWait };
  profile?: {
    sequential: { jobs: number; gatewayRoundTrips: number; workerRoundTrips: number };
    concurrent: { jobs: number; gatewayRoundTrips: number; workerRoundTrips: number };
    pgSelectRoundTrip: LatencyStats;
    pgCommit: LatencyStats;
    pgFindById: LatencyStats;
    prismaFindById: LatencyStats;
    /** The statements of one job (subscribe flow), per process, in order. */
    trace: { gateway: string[]; worker: string[] };
  };
}

/** Runs (a), (b), the profile and (c); prints a table per figure; cleans up after itself. */
export async function runServiceBench(options: ServiceBenchOptions = DEFAULT_SERVICE_OPTIONS): Promise<ServiceBenchReport> {
  assertBuilt();
  const group = new ProcessGroup();
  const prefixes = { service: benchPrefix('svc'), bare: benchPrefix('bare'), profile: benchPrefix('prof') };
  const tiny = ensureTinyTree();
  const tree = generatedTree(options.scanTreeFiles);
  const pg = new Client({ connectionString: BENCH_DATABASE_URL });
  const closers: Array<() => Promise<unknown>> = [];
  const report: ServiceBenchReport = { options };

  await ensureDatabase(BENCH_DATABASE_URL);
  await applyMigrations(BENCH_DATABASE_URL);
  await pg.connect();
  try {
    await prepareDatabase(pg);
    const env = (prefix: string, databaseUrl = BENCH_DATABASE_URL): Record<string, string> => ({
      QUARRY_DATABASE_URL: databaseUrl,
      QUARRY_REDIS_URL: BENCH_REDIS_URL,
      QUARRY_QUEUE_PREFIX: prefix,
      QUARRY_WORKSPACE_ROOTS: `${tiny.root},${tree.root}`,
      QUARRY_LOG_LEVEL: 'warn',
      // (f) fetches from an origin this bench runs on 127.0.0.1.
      QUARRY_FETCH_ALLOW: '127.0.0.1/32',
      ...NO_RECONCILER_ENV,
    });

    console.log(`service prefix ${prefixes.service}; bare prefix ${prefixes.bare}; database ${BENCH_DATABASE_URL}`);
    const gateway = await group.startGateway(env(prefixes.service), { timeoutMs: 60_000 });
    const scanQueue = new Queue('scan', { connection: redisOptions(BENCH_REDIS_URL), prefix: prefixes.service });
    closers.push(() => scanQueue.close());
    const cpuTargets = (workers: ChildHandle[]) => ({
      gateway: () => [gateway.handle.pid],
      'worker(s)': () => workers.map((worker) => worker.pid),
      postgres: () => pidsByName('postgres'),
      'redis-server': () => pidsByName('redis-server'),
    });

    if (options.parts.a || options.parts.b || options.parts.f) {
      const mainWorker = await group.startWorker('worker-c50', { ...env(prefixes.service), QUARRY_WORKER_CONCURRENCY: String(options.workerConcurrency) });
      await waitForWorkers(scanQueue, 1);
      const bareWorker = group.spawn('bare-worker', process.execPath, [path.join(__dirname, 'bare-worker.js')], {
        BENCH_PREFIX: prefixes.bare,
        BENCH_REDIS_URL,
        BENCH_CONCURRENCY: String(options.workerConcurrency),
      });
      await bareWorker.waitForLine(/bare worker ready/, 30_000, '"bare worker ready"');
      const bareQueue = new Queue(BARE_QUEUE, { connection: redisOptions(BENCH_REDIS_URL), prefix: prefixes.bare });
      const bareEvents = new QueueEvents(BARE_QUEUE, { connection: redisOptions(BENCH_REDIS_URL, true), prefix: prefixes.bare });
      closers.push(() => bareEvents.close(), () => bareQueue.close());
      await Promise.all([bareQueue.waitUntilReady(), bareEvents.waitUntilReady()]);

      if (options.parts.a) {
        console.log(`\n(a) latency: ${options.latencyJobs} sequential tiny scans (${options.latencyWarmup} warm-up) …`);
        const socket = await connectEvents(gateway.url);
        closers.push(async () => socket.disconnect());
        const quiet = await waitForQuiet();
        const service = await serviceLatency(gateway.url, socket, tiny.root, options.latencyJobs, options.latencyWarmup);
        const bare = await bareLatency(bareQueue, bareEvents, options.latencyJobs, options.latencyWarmup);
        const stages = await stageBreakdown(pg, service.timeline);
        const latency = {
          stages,
          service: latencyStats(service.total),
          servicePost: latencyStats(service.post),
          viaSnapshot: service.viaSnapshot,
          bare: latencyStats(bare),
          quiet,
        };
        report.latency = latency;
        printTable(
          `(a) round-trip latency, ${options.latencyJobs} sequential jobs (target: service p50 ≤ 10 ms, p99 ≤ 40 ms)`,
          ['path', 'n', 'p50', 'p90', 'p99', 'max', 'mean'],
          [
            statsRow('quarry: POST /v1/jobs → job.completed (socket.io)', latency.service),
            statsRow('  of which POST /v1/jobs → 202', latency.servicePost),
            statsRow('bare BullMQ: Queue.add → waitUntilFinished', latency.bare),
          ],
          [
            `tiny scan = ${tiny.files}-file tree; worker: 1 process, QUARRY_WORKER_CONCURRENCY=${options.workerConcurrency}; subscribe sent right after the 202;`,
            `${service.viaSnapshot} of ${options.latencyJobs} jobs had already finished at subscribe time (completion seen in job.snapshot).`,
            `ratio quarry/bare: p50 ${(latency.service.p50 / latency.bare.p50).toFixed(1)}x, p99 ${(latency.service.p99 / latency.bare.p99).toFixed(1)}x`,
            describeQuiet(quiet),
          ],
        );
        printTable(
          '(a) where the time goes: stages of the same jobs, from the row timestamps (ms precision)',
          ['stage', 'n', 'p50', 'p90', 'p99', 'max', 'mean'],
          [
            statsRow('submit: POST sent → row created_at', stages.submit),
            statsRow('queue: created_at → started_at (claim)', stages.queue),
            statsRow('run: started_at → finished_at (handler, writes)', stages.run),
            statsRow('notify: finished_at → job.completed at client', stages.notify),
          ],
        );
      }

      if (options.parts.f) {
        const jobs = Math.max(50, Math.round(options.latencyJobs * 0.6));
        console.log(`\n(f) fetch cache hits: ${jobs} sequential fetch jobs of one cached URL …`);
        const origin = http.createServer((_request, response) => {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<title>bench</title><h1>Cached page</h1><p>text</p>');
        });
        await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
        closers.push(() => new Promise((resolve) => origin.close(resolve)));
        const fetchUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/page`;
        const socket = await connectEvents(gateway.url);
        closers.push(async () => socket.disconnect());
        await serviceLatency(gateway.url, socket, { kind: 'fetch', input: { url: fetchUrl } }, 1, 0); // fills the cache
        const quiet = await waitForQuiet();
        const hits = await serviceLatency(gateway.url, socket, { kind: 'fetch', input: { url: fetchUrl } }, jobs, 10);
        report.fetchCacheHit = { service: latencyStats(hits.total), quiet };
        printTable(
          `(f) fetch cache hit through the whole job path, ${jobs} sequential jobs`,
          ['path', 'n', 'p50', 'p90', 'p99', 'max', 'mean'],
          [statsRow('quarry: POST fetch (cached) → job.completed', report.fetchCacheHit.service), statsRow('  of which POST /v1/jobs → 202', latencyStats(hits.post))],
          ['library time of a cache hit is in bench/fetch.bench.ts; this adds the queue, Postgres and socket.io hops.', describeQuiet(quiet)],
        );
      }

      if (options.parts.b) {
        console.log(
          `\n(b) throughput: ${num(options.throughputJobs)} tiny scans, batches of ${options.batchSize} (${options.batchesInFlight} requests in flight), ` +
            `then ${options.inFlight} single POSTs in flight, then bare BullMQ; interleaved, ${THROUGHPUT_ROUNDS} rounds …`,
        );
        const quiet = await waitForQuiet();
        // Interleaved rounds (batch, single, bare, batch, …): load from other users of the machine
        // hits all three alike. The figure of each path is its median round.
        const rounds: Array<{ service: ThroughputFigure; single: ThroughputFigure; bare: ThroughputFigure }> = [];
        for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
          let redisBefore = await redisCommandCalls(BENCH_REDIS_URL);
          const service = await quarryThroughput(gateway.url, pg, tiny.root, options.throughputJobs, options.inFlight, new CpuMeter(cpuTargets([mainWorker])), {
            size: options.batchSize,
            inFlight: options.batchesInFlight,
          });
          service.redisCallsPerJob = ((await redisCommandCalls(BENCH_REDIS_URL)) - redisBefore) / service.jobs;
          redisBefore = await redisCommandCalls(BENCH_REDIS_URL);
          const single = await quarryThroughput(gateway.url, pg, tiny.root, options.throughputJobs, options.inFlight, new CpuMeter(cpuTargets([mainWorker])));
          single.redisCallsPerJob = ((await redisCommandCalls(BENCH_REDIS_URL)) - redisBefore) / single.jobs;
          redisBefore = await redisCommandCalls(BENCH_REDIS_URL);
          const bare = await bareThroughput(
            bareQueue,
            bareEvents,
            options.throughputJobs,
            options.inFlight,
            new CpuMeter({ 'bare worker': () => [bareWorker.pid], 'redis-server': () => pidsByName('redis-server') }),
          );
          bare.redisCallsPerJob = ((await redisCommandCalls(BENCH_REDIS_URL)) - redisBefore) / bare.jobs;
          rounds.push({ service, single, bare });
        }
        const median = (pick: (round: (typeof rounds)[number]) => ThroughputFigure) =>
          rounds.map(pick).sort((a, b) => a.jobsPerSecond - b.jobsPerSecond)[Math.floor(rounds.length / 2)];
        const service = median((round) => round.service);
        const single = median((round) => round.single);
        const bare = median((round) => round.bare);
        report.throughput = {
          service,
          single,
          bare,
          quiet,
          rounds: rounds.map((round) => ({ service: round.service.jobsPerSecond, single: round.single.jobsPerSecond, bare: round.bare.jobsPerSecond })),
        };
        printTable(
          `(b) throughput, ${num(options.throughputJobs)} tiny jobs, median of ${THROUGHPUT_ROUNDS} interleaved rounds (target: service ≥ 1,000 jobs/s)`,
          ['path', 'jobs', 'wall', 'jobs/s', 'submit phase', 'failed'],
          [
            throughputRow(`quarry: POST /v1/jobs/batch (${options.batchSize}/request) → row succeeded`, service),
            throughputRow(`quarry: POST /v1/jobs, ${options.inFlight} in flight → row succeeded`, single),
            throughputRow('bare BullMQ: Queue.add → completed (QueueEvents)', bare),
          ],
          [
            `rounds (jobs/s, batch / single / bare): ${rounds.map((round) => `${num(round.service.jobsPerSecond)} / ${num(round.single.jobsPerSecond)} / ${num(round.bare.jobsPerSecond)}`).join('; ')}`,
            `quarry worker: 1 process, QUARRY_WORKER_CONCURRENCY=${options.workerConcurrency}; bare worker: 1 process, concurrency ${options.workerConcurrency}.`,
            `CPU, batch submit (ms per job): ${cpuPerJob(service)}`,
            `CPU, single POSTs (ms per job): ${cpuPerJob(single)}`,
            `CPU, bare (ms per job): ${cpuPerJob(bare)}`,
            `Redis commands per job (incl. those inside BullMQ's Lua scripts; server-wide INFO commandstats): batch ${num(service.redisCallsPerJob ?? NaN, 1)}, ` +
              `single ${num(single.redisCallsPerJob ?? NaN, 1)}, bare ${num(bare.redisCallsPerJob ?? NaN, 1)}`,
            `load average before (1/5/15 min): ${os.loadavg().map((load) => load.toFixed(2)).join(' / ')}`,
            describeQuiet(quiet),
          ],
        );
      }
      await bareWorker.stop(5_000);
      await mainWorker.stop(10_000);
      await waitForWorkers(scanQueue, 0);
    }

    if (options.parts.p) {
      console.log('\nprofile: Postgres round trips per job through a counting proxy …');
      const profile = await profileRoundTrips(group, env, prefixes.profile, pg, tiny.root, options);
      report.profile = profile;
      const row = (name: string, flow: { jobs: number; gatewayRoundTrips: number; workerRoundTrips: number }) => [
        name,
        num(flow.jobs),
        num(flow.gatewayRoundTrips, 1),
        num(flow.workerRoundTrips, 1),
        num(flow.gatewayRoundTrips + flow.workerRoundTrips, 1),
      ];
      printTable(
        'profile: Postgres round trips per tiny job (counting proxy; Sync + simple Query messages)',
        ['flow', 'jobs', 'gateway', 'worker', 'total'],
        [row('sequential, with socket subscribe (as in a)', profile.sequential), row('concurrent, no subscriber (as in b)', profile.concurrent)],
        [
          `Postgres floor on this machine: SELECT 1 round trip p50 ${ms(profile.pgSelectRoundTrip.p50, 2)} (p99 ${ms(profile.pgSelectRoundTrip.p99, 2)}); ` +
            `single-row INSERT commit p50 ${ms(profile.pgCommit.p50, 2)} (p99 ${ms(profile.pgCommit.p99, 2)})`,
          `Read one job by id, sequential: node-postgres p50 ${ms(profile.pgFindById.p50, 2)}, Prisma job.findUnique p50 ${ms(profile.prismaFindById.p50, 2)} ` +
            `(${(profile.prismaFindById.p50 / profile.pgFindById.p50).toFixed(1)}x)`,
        ],
      );
      for (const [process, statements] of Object.entries(profile.trace)) {
        console.log(`  statements of one job, ${process}:`);
        for (const statement of statements) console.log(`    ${statement.length > 150 ? `${statement.slice(0, 147)}...` : statement}`);
      }
    }

    if (options.parts.c) {
      console.log(`\n(c) scaling: ${options.scans} scans of the ${num(tree.files)}-file tree on 1, then 2 worker processes (concurrency 1) …`);
      const scanEnv = { ...env(prefixes.service), QUARRY_WORKER_CONCURRENCY: '1' };
      const scanWorker = (n: number) =>
        options.pinScanWorkers
          ? group.spawn(`scan-worker-${n}`, 'taskset', ['-c', String((n - 1) % os.cpus().length), process.execPath, QUARRY_BIN, 'worker'], scanEnv)
          : group.startWorker(`scan-worker-${n}`, scanEnv);
      const w1 = await scanWorker(1);
      await waitForWorkers(scanQueue, 1);
      await runScans(gateway.url, pg, tree.root, tree.files, 1); // warm-up: page cache, JIT
      const quietOne = await waitForQuiet();
      const one = await runScans(gateway.url, pg, tree.root, tree.files, options.scans, new CpuMeter(cpuTargets([w1])));
      const w2 = await scanWorker(2);
      await waitForWorkers(scanQueue, 2);
      await runScans(gateway.url, pg, tree.root, tree.files, 2); // warm the second process too
      const quietTwo = await waitForQuiet();
      const two = await runScans(gateway.url, pg, tree.root, tree.files, options.scans, new CpuMeter(cpuTargets([w1, w2])));
      const ratio = one.seconds / two.seconds;
      report.scaling = { one: { ...one, quiet: quietOne }, two: { ...two, quiet: quietTwo }, ratio };
      const scanRow = (name: string, run: ScanRun, speedUp: number) => [
        name,
        `${run.seconds.toFixed(2)} s`,
        (options.scans / run.seconds).toFixed(2),
        ms(run.meanScanMs, 0),
        `${(run.cpuMs['worker(s)'] / 1000).toFixed(1)} s`,
        (run.cpuMs['worker(s)'] / (run.seconds * 1000)).toFixed(2),
        (run.cpuMs.machine / (run.seconds * 1000)).toFixed(2),
        `${speedUp.toFixed(2)}x`,
      ];
      printTable(
        `(c) CPU-bound scaling, ${options.scans} scans of ${num(tree.files)} files (target: ≥ 1.7x with 2 processes)${options.pinScanWorkers ? ', workers pinned to one CPU each (taskset)' : ''}`,
        ['workers', 'wall', 'scans/s', 'mean scan (durationMs)', 'worker CPU', 'worker cores', 'machine busy cores', 'speed-up'],
        [scanRow('1 process x concurrency 1', one, 1), scanRow('2 processes x concurrency 1', two, ratio)],
        [
          `machine has ${os.cpus().length} cores; "machine busy cores" counts every process on the box (/proc/stat), ours and anyone else's.`,
          `CPU in the 1-process / 2-process runs: gateway ${(one.cpuMs.gateway / 1000).toFixed(1)} s / ${(two.cpuMs.gateway / 1000).toFixed(1)} s, ` +
            `postgres ${(one.cpuMs.postgres / 1000).toFixed(1)} s / ${(two.cpuMs.postgres / 1000).toFixed(1)} s, ` +
            `bench client ${(one.cpuMs['bench client'] / 1000).toFixed(1)} s / ${(two.cpuMs['bench client'] / 1000).toFixed(1)} s, ` +
            `not ours ${(notOurs(one) / 1000).toFixed(1)} s / ${(notOurs(two) / 1000).toFixed(1)} s`,
          `1 process: ${describeQuiet(quietOne)}`,
          `2 processes: ${describeQuiet(quietTwo)}`,
        ],
      );
    }
    return report;
  } catch (error) {
    console.error(`\nservice bench failed; last output of the child processes:\n${group.dumpLogs(15)}`);
    throw error;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await group.stopAll(5_000);
    await pg.end().catch(() => undefined);
    for (const prefix of Object.values(prefixes)) await deletePrefixKeys(BENCH_REDIS_URL, prefix).catch(() => undefined);
    console.log('\nservice bench: child processes stopped, queue prefixes deleted');
  }
}

// ---- setup -------------------------------------------------------------------------------------

/** quarry_bench belongs to the benchmark: start every run from empty tables, refuse API keys. */
async function prepareDatabase(pg: Client): Promise<void> {
  await pg.query('TRUNCATE job_events, jobs');
  await pg.query('CREATE TABLE IF NOT EXISTS bench_commits (id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())');
  await pg.query('TRUNCATE bench_commits');
  const keys = await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE revoked_at IS NULL').catch(() => ({ rows: [{ n: 0 }] }));
  if (keys.rows[0].n > 0) throw new Error('quarry_bench has API keys: the benchmark talks to the gateway anonymously; revoke them first');
}

async function waitForWorkers(queue: Queue, count: number): Promise<void> {
  let seen = -1;
  await pollUntil(
    async () => (seen = await queue.getWorkersCount()) === count,
    60_000,
    `${count} worker process(es) on ${queue.name} (last count ${seen})`,
    50,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; Redis last reported ${seen}`);
  });
  // Connected is not yet taking jobs: the worker pings Redis and Postgres first.
  if (count > 0) await sleep(500);
}


async function post(url: string, body: unknown): Promise<{ id: string }> {
  const response = await fetch(`${url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const payload = (await response.json()) as { id: string; message?: string };
  if (response.status !== 202) throw new Error(`POST /v1/jobs answered ${response.status}: ${JSON.stringify(payload)}`);
  return payload;
}

async function postBatch(url: string, jobs: unknown[]): Promise<string[]> {
  const response = await fetch(`${url}/v1/jobs/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jobs }),
    signal: AbortSignal.timeout(30_000),
  });
  const payload = (await response.json()) as { accepted: number; items: Array<{ ok: boolean; job?: { id: string } }> };
  if (response.status !== 202 || payload.accepted !== jobs.length) throw new Error(`POST /v1/jobs/batch answered ${response.status}: ${JSON.stringify(payload).slice(0, 500)}`);
  return payload.items.map((item) => item.job?.id as string);
}

// ---- (a) ---------------------------------------------------------------------------------------

async function serviceLatency(url: string, socket: EventsSocket, root: string | { kind: string; input: unknown }, jobs: number, warmup: number) {
  const body = typeof root === 'string' ? { kind: 'scan', input: { root } } : root;
  type How = 'event' | 'snapshot' | 'failed';
  const waiters = new Map<string, (how: How) => void>();
  socket.on('job.completed', ({ jobId }) => waiters.get(jobId)?.('event'));
  socket.on('job.failed', ({ jobId }) => waiters.get(jobId)?.('failed'));
  socket.on('job.cancelled', ({ jobId }) => waiters.get(jobId)?.('failed'));
  socket.on('job.snapshot', ({ job }) => {
    if (job.status === 'succeeded') waiters.get(job.id)?.('snapshot');
    else if (job.status === 'failed' || job.status === 'cancelled') waiters.get(job.id)?.('failed');
  });
  const total: number[] = [];
  const postMs: number[] = [];
  const timeline: Array<{ id: string; startedAt: number; finishedAt: number }> = [];
  let viaSnapshot = 0;
  for (let i = 0; i < warmup + jobs; i++) {
    const started = performance.now();
    const job = await post(url, body);
    const posted = performance.now();
    const how = await new Promise<How>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`job ${job.id}: no outcome on the socket within 10 s`)), 10_000);
      waiters.set(job.id, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
      socket.emit('subscribe', { jobId: job.id }, (ack) => {
        if (!ack.ok) {
          clearTimeout(timer);
          reject(new Error(`subscribe refused: ${ack.error.message}`));
        }
      });
    });
    const finished = performance.now();
    waiters.delete(job.id);
    socket.emit('unsubscribe', { jobId: job.id });
    if (how === 'failed') throw new Error(`job ${job.id} did not succeed`);
    if (i < warmup) continue;
    total.push(finished - started);
    postMs.push(posted - started);
    timeline.push({ id: job.id, startedAt: performance.timeOrigin + started, finishedAt: performance.timeOrigin + finished });
    if (how === 'snapshot') viaSnapshot++;
  }
  return { total, post: postMs, viaSnapshot, timeline };
}

export interface StageBreakdown {
  /** Client sends POST → row's created_at (HTTP, validation, admission, the INSERT's start). */
  submit: LatencyStats;
  /** created_at → started_at (commit, Queue.add, worker pick-up, the claim's start). */
  queue: LatencyStats;
  /** started_at → finished_at (claim, handler, progress, the completing UPDATE's start). */
  run: LatencyStats;
  /** finished_at → job.completed at the client (commit, BullMQ completion, QueueEvents, relay read, emit). */
  notify: LatencyStats;
}

/**
 * Where the time of each round trip goes, from the row's timestamps (now() of the statements
 * that wrote them, millisecond precision) against the client's clock: same machine, same clock.
 */
async function stageBreakdown(pg: Client, timeline: Array<{ id: string; startedAt: number; finishedAt: number }>): Promise<StageBreakdown> {
  const { rows } = await pg.query<{ id: string; created: number; started: number; finished: number }>(
    `SELECT id::text, extract(epoch FROM created_at) * 1000 AS created, extract(epoch FROM started_at) * 1000 AS started,
            extract(epoch FROM finished_at) * 1000 AS finished
       FROM jobs WHERE id = ANY($1::uuid[])`,
    [timeline.map((job) => job.id)],
  );
  const byId = new Map(rows.map((row) => [row.id, { created: Number(row.created), started: Number(row.started), finished: Number(row.finished) }]));
  const stages = { submit: [] as number[], queue: [] as number[], run: [] as number[], notify: [] as number[] };
  for (const job of timeline) {
    const row = byId.get(job.id);
    if (!row) continue;
    stages.submit.push(row.created - job.startedAt);
    stages.queue.push(row.started - row.created);
    stages.run.push(row.finished - row.started);
    stages.notify.push(job.finishedAt - row.finished);
  }
  return { submit: latencyStats(stages.submit), queue: latencyStats(stages.queue), run: latencyStats(stages.run), notify: latencyStats(stages.notify) };
}

async function bareLatency(queue: Queue, events: QueueEvents, jobs: number, warmup: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + jobs; i++) {
    const started = performance.now();
    const job = await queue.add('trivial', { n: i }, { removeOnComplete: { age: 3_600, count: 1_000 } });
    await job.waitUntilFinished(events, 10_000);
    if (i >= warmup) samples.push(performance.now() - started);
  }
  return samples;
}

function statsRow(name: string, stats: LatencyStats): string[] {
  return [name, num(stats.n), ms(stats.p50, 2), ms(stats.p90, 2), ms(stats.p99, 2), ms(stats.max, 2), ms(stats.mean, 2)];
}

// ---- (b) ---------------------------------------------------------------------------------------

async function submitConcurrently(total: number, inFlight: number, submit: (n: number) => Promise<string>): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const n = next++;
        ids.push(await submit(n));
      }
    }),
  );
  return ids;
}

async function quarryThroughput(
  url: string,
  pg: Client,
  root: string,
  total: number,
  inFlight: number,
  cpu: CpuMeter,
  batch?: { size: number; inFlight: number },
): Promise<ThroughputFigure> {
  cpu.start();
  const started = performance.now();
  const ids = batch
    ? (
        await submitConcurrently(Math.ceil(total / batch.size), batch.inFlight, async (n) => {
          const jobs = Array.from({ length: Math.min(batch.size, total - n * batch.size) }, () => ({ kind: 'scan', input: { root } }));
          return (await postBatch(url, jobs)).join(',');
        })
      ).flatMap((joined) => joined.split(','))
    : await submitConcurrently(total, inFlight, async () => (await post(url, { kind: 'scan', input: { root } })).id);
  const submitted = performance.now();
  let failed = 0;
  await pollUntil(
    async () => {
      const { rows } = await pg.query<{ ok: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE status = 'succeeded' AND result IS NOT NULL)::int AS ok,
                count(*) FILTER (WHERE status IN ('failed', 'cancelled'))::int AS failed
           FROM jobs WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      failed = rows[0].failed;
      return rows[0].ok + rows[0].failed >= total;
    },
    300_000,
    `${total} job rows to finish`,
    20,
  );
  const finished = performance.now();
  const { cpuMs } = cpu.stop();
  const seconds = (finished - started) / 1000;
  return { jobs: total, seconds, jobsPerSecond: (total - failed) / seconds, submitSeconds: (submitted - started) / 1000, failed, cpuMs };
}

async function bareThroughput(queue: Queue, events: QueueEvents, total: number, inFlight: number, cpu: CpuMeter): Promise<ThroughputFigure> {
  const completed = new Set<string>();
  let allDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allDone = resolve));
  const onCompleted = ({ jobId }: { jobId: string }) => {
    completed.add(jobId);
    if (completed.size >= total) allDone();
  };
  cpu.start();
  const started = performance.now();
  events.on('completed', onCompleted);
  try {
    await submitConcurrently(total, inFlight, async (n) => (await queue.add('trivial', { n }, { removeOnComplete: { age: 3_600, count: 1_000 } })).id as string);
    const submitted = performance.now();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      done,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`bare: only ${completed.size}/${total} completed in 120 s`)), 120_000))),
    ]).finally(() => clearTimeout(timer));
    const finished = performance.now();
    const seconds = (finished - started) / 1000;
    return { jobs: total, seconds, jobsPerSecond: total / seconds, submitSeconds: (submitted - started) / 1000, failed: 0, cpuMs: cpu.stop().cpuMs };
  } finally {
    events.off('completed', onCompleted);
  }
}

function throughputRow(name: string, figure: ThroughputFigure): string[] {
  return [name, num(figure.jobs), `${figure.seconds.toFixed(2)} s`, num(figure.jobsPerSecond), `${figure.submitSeconds.toFixed(2)} s`, num(figure.failed)];
}

/** Machine-wide busy CPU minus the processes we measured: other people's load during a run. */
function notOurs(run: { cpuMs: Record<string, number> }): number {
  const ours = Object.entries(run.cpuMs)
    .filter(([name]) => name !== 'machine')
    .reduce((sum, [, value]) => sum + value, 0);
  return Math.max(0, run.cpuMs.machine - ours);
}

function cpuPerJob(figure: ThroughputFigure): string {
  return [
    ...Object.entries(figure.cpuMs)
      .filter(([name]) => name !== 'machine')
      .map(([name, cpuMs]) => `${name} ${(cpuMs / figure.jobs).toFixed(2)}`),
    `not ours ${(notOurs(figure) / figure.jobs).toFixed(2)}`,
  ].join(', ') + ` (machine busy ${(figure.cpuMs.machine / (figure.seconds * 1000)).toFixed(2)} of ${os.cpus().length} cores)`;
}

// ---- profile -----------------------------------------------------------------------------------

async function profileRoundTrips(
  group: ProcessGroup,
  env: (prefix: string, databaseUrl?: string) => Record<string, string>,
  prefix: string,
  pg: Client,
  root: string,
  options: ServiceBenchOptions,
): Promise<NonNullable<ServiceBenchReport['profile']>> {
  const gatewayProxy = new PgCountingProxy();
  const workerProxy = new PgCountingProxy();
  const viaProxy = (port: number) => {
    const url = new URL(BENCH_DATABASE_URL);
    url.port = String(port);
    return url.toString();
  };
  const gatewayPort = await gatewayProxy.start();
  const workerPort = await workerProxy.start();
  let gateway: SpawnedGateway | undefined;
  let worker: ChildHandle | undefined;
  const queue = new Queue('scan', { connection: redisOptions(BENCH_REDIS_URL), prefix });
  try {
    gateway = await group.startGateway(env(prefix, viaProxy(gatewayPort)), { name: 'profile-gateway', timeoutMs: 60_000 });
    worker = await group.startWorker('profile-worker', { ...env(prefix, viaProxy(workerPort)), QUARRY_WORKER_CONCURRENCY: String(options.workerConcurrency) });
    await waitForWorkers(queue, 1);
    const socket = await connectEvents(gateway.url);
    try {
      await serviceLatency(gateway.url, socket, root, 20, 0); // warm-up, not counted
      await sleep(300);
      gatewayProxy.reset();
      workerProxy.reset();
      await serviceLatency(gateway.url, socket, root, options.profileSequentialJobs, 0);
      await sleep(300); // the last job's trailing writes
      const sequential = {
        jobs: options.profileSequentialJobs,
        gatewayRoundTrips: gatewayProxy.roundTrips() / options.profileSequentialJobs,
        workerRoundTrips: workerProxy.roundTrips() / options.profileSequentialJobs,
      };

      // One more job with the statements recorded: what the round trips are.
      gatewayProxy.trace = [];
      workerProxy.trace = [];
      await serviceLatency(gateway.url, socket, root, 1, 0);
      await sleep(300);
      const trace = { gateway: gatewayProxy.trace, worker: workerProxy.trace };
      gatewayProxy.trace = undefined;
      workerProxy.trace = undefined;

      gatewayProxy.reset();
      workerProxy.reset();
      const figure = await quarryThroughput(gateway.url, pg, root, options.profileConcurrentJobs, options.inFlight, new CpuMeter({}));
      await sleep(300);
      const concurrent = {
        jobs: figure.jobs,
        gatewayRoundTrips: gatewayProxy.roundTrips() / figure.jobs,
        workerRoundTrips: workerProxy.roundTrips() / figure.jobs,
      };

      const pgSelectRoundTrip = await timeSequential(200, () => pg.query('SELECT 1'));
      const pgCommit = await timeSequential(200, () => pg.query('INSERT INTO bench_commits DEFAULT VALUES'));
      // The same primary-key read through node-postgres and through Prisma (as the service reads).
      const someId = (await pg.query<{ id: string }>('SELECT id::text FROM jobs LIMIT 1')).rows[0]?.id ?? '00000000-0000-0000-0000-000000000000';
      const pgFindById = await timeSequential(500, () => pg.query('SELECT * FROM jobs WHERE id = $1::uuid', [someId]));
      const prisma = createPrismaClient(BENCH_DATABASE_URL, 1);
      try {
        await timeSequential(200, () => prisma.job.findUnique({ where: { id: someId } })); // warm-up
        const prismaFindById = await timeSequential(500, () => prisma.job.findUnique({ where: { id: someId } }));
        return { sequential, concurrent, pgSelectRoundTrip, pgCommit, pgFindById, prismaFindById, trace };
      } finally {
        await prisma.$disconnect();
      }
    } finally {
      socket.disconnect();
    }
  } finally {
    await worker?.stop(5_000);
    await gateway?.handle.stop(5_000);
    await queue.close().catch(() => undefined);
    await gatewayProxy.close();
    await workerProxy.close();
  }
}

async function timeSequential(count: number, task: () => Promise<unknown>): Promise<LatencyStats> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await task();
    samples.push(performance.now() - started);
  }
  return latencyStats(samples);
}

// ---- (c) ---------------------------------------------------------------------------------------

async function runScans(url: string, pg: Client, root: string, files: number, count: number, cpu = new CpuMeter({})) {
  cpu.start();
  const started = performance.now();
  const ids = await Promise.all(Array.from({ length: count }, async () => (await post(url, { kind: 'scan', input: { root } })).id));
  const rows = await pollUntil(
    async () => {
      const { rows } = await pg.query<{ status: string; files: number | null; duration: number | null }>(
        `SELECT status::text, (result->>'files')::int AS files, (result->>'durationMs')::int AS duration FROM jobs WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      return rows.length === count && rows.every((row) => row.status !== 'queued' && row.status !== 'running') ? rows : undefined;
    },
    300_000,
    `${count} scans to finish`,
    20,
  );
  const seconds = (performance.now() - started) / 1000;
  const { cpuMs } = cpu.stop();
  const bad = rows.filter((row) => row.status !== 'succeeded' || row.files !== files);
  if (bad.length) throw new Error(`${bad.length} scans did not succeed with ${files} files: ${JSON.stringify(bad.slice(0, 3))}`);
  const meanScanMs = rows.reduce((sum, row) => sum + (row.duration ?? 0), 0) / rows.length;
  return { seconds, meanScanMs, cpuMs };
}
