/**
 * Fetch benchmark: what the SSRF guard costs, against a local origin on 127.0.0.1 (the only place
 * this benchmark sends traffic; the fetcher's allow list is exactly 127.0.0.1/32).
 *
 *   node dist/bench/fetch.bench.js            (after the tsc build)
 *
 * (1) requests/s through a plain undici Agent vs the guarded Agent (same `request` call), with
 *     keep-alive and with a new connection per request (where the guard does all its work:
 *     resolve, check, dial, re-check);
 * (2) the whole SafeFetcher.fetch path (gate, limiter, redirects, deadline, capped decoding,
 *     text extraction) vs the plain Agent;
 * (3) a MemoryDocumentCache hit through SafeFetcher.fetch: library time, p50/p99.
 *
 * Each figure is the best of ROUNDS alternating rounds, so a noisy neighbour hurts both sides.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, Dispatcher } from 'undici';
import { createGuardedAgent, LocalDomainLimiter, MemoryDocumentCache, parseAllowList, SafeFetcher } from '../libs/fetch/src';
import { latencyStats, LatencyStats, ms, num, printTable } from './support';

export interface FetchBenchOptions {
  /** Requests per measured run. */
  requests: number;
  /** Concurrent requests in the concurrent runs. */
  concurrency: number;
  /** Requests per run with a new connection each. */
  freshConnectionRequests: number;
  /** Requests per run against the origin that takes SLOW_ORIGIN_MS to answer. */
  slowOriginRequests: number;
  rounds: number;
  cacheHits: number;
}

export const DEFAULT_FETCH_OPTIONS: FetchBenchOptions = { requests: 2_000, concurrency: 20, freshConnectionRequests: 500, slowOriginRequests: 300, rounds: 5, cacheHits: 20_000 };

export interface FetchBenchRow {
  name: string;
  plainPerSecond: number;
  guardedPerSecond: number;
  /** Extra time per request through the guarded path, in % of the plain one. */
  overheadPercent: number;
}

export interface FetchBenchReport {
  rows: FetchBenchRow[];
  cacheHit: LatencyStats;
  /** The largest overhead among the guarded-agent rows (target ≤ 15%). */
  agentOverheadPercent: number;
  /** SafeFetcher.fetch vs the plain Agent, keep-alive, sequential (pure library CPU on loopback). */
  fetcherOverheadPercent: number;
  /** SafeFetcher.fetch vs the plain Agent against an origin that takes SLOW_ORIGIN_MS to answer. */
  fetcherSlowOriginOverheadPercent: number;
}

const BODY = 'Quarry fetch benchmark document.\n'.repeat(32); // ~1 KiB of text/plain
const SLOW_ORIGIN_MS = 2;

export async function runFetchBench(options: FetchBenchOptions = DEFAULT_FETCH_OPTIONS): Promise<FetchBenchReport> {
  const server = http.createServer((req, res) => {
    const answer = () => {
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': Buffer.byteLength(BODY),
        ...(req.url?.startsWith('/close') ? { connection: 'close' } : {}),
      });
      res.end(BODY);
    };
    // /slow stands in for a real origin, which takes milliseconds, not microseconds, to answer.
    if (req.url?.startsWith('/slow')) setTimeout(answer, SLOW_ORIGIN_MS);
    else answer();
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const allow = parseAllowList('127.0.0.1/32');
  const plain = new Agent({ keepAliveTimeout: 30_000 });
  const guarded = createGuardedAgent({ allow, keepAliveTimeoutMs: 30_000 });
  // Politeness would pace the benchmark to 5 requests/s; it is measured by its own tests.
  const fetcher = new SafeFetcher({ allow, limiter: new LocalDomainLimiter({ ratePerSecond: 1e9, burst: 1e9, concurrency: 10_000 }) });
  const cache = new MemoryDocumentCache();
  const cached = new SafeFetcher({ allow, cache, limiter: new LocalDomainLimiter({ ratePerSecond: 1e9, burst: 1e9, concurrency: 10_000 }) });

  const viaAgent = (agent: Dispatcher, path: string) => async () => {
    const response = await agent.request({ origin, path, method: 'GET' });
    await response.body.text();
  };
  const viaFetcher = (path: string) => async () => {
    await fetcher.fetch(`${origin}${path}`);
  };

  try {
    const rows: FetchBenchRow[] = [];
    const compare = async (name: string, count: number, concurrency: number, plainCall: () => Promise<void>, guardedCall: () => Promise<void>) => {
      await rate(plainCall, Math.min(200, count), concurrency); // warm up: connections, JIT
      await rate(guardedCall, Math.min(200, count), concurrency);
      let plainBest = 0;
      let guardedBest = 0;
      // Alternate which side goes first, so neither always runs on a warmer (or busier) machine.
      for (let round = 0; round < options.rounds; round++) {
        if (round % 2 === 0) {
          plainBest = Math.max(plainBest, await rate(plainCall, count, concurrency));
          guardedBest = Math.max(guardedBest, await rate(guardedCall, count, concurrency));
        } else {
          guardedBest = Math.max(guardedBest, await rate(guardedCall, count, concurrency));
          plainBest = Math.max(plainBest, await rate(plainCall, count, concurrency));
        }
      }
      rows.push({ name, plainPerSecond: plainBest, guardedPerSecond: guardedBest, overheadPercent: (plainBest / guardedBest - 1) * 100 });
    };

    await compare(`guarded Agent, keep-alive, sequential (N=${options.requests})`, options.requests, 1, viaAgent(plain, '/doc'), viaAgent(guarded, '/doc'));
    await compare(`guarded Agent, keep-alive, ${options.concurrency} concurrent`, options.requests, options.concurrency, viaAgent(plain, '/doc'), viaAgent(guarded, '/doc'));
    await compare(`guarded Agent, new connection each (N=${options.freshConnectionRequests})`, options.freshConnectionRequests, 1, viaAgent(plain, '/close'), viaAgent(guarded, '/close'));
    await compare(`SafeFetcher.fetch, keep-alive, sequential (N=${options.requests})`, options.requests, 1, viaAgent(plain, '/doc'), viaFetcher('/doc'));
    await compare(`SafeFetcher.fetch, keep-alive, ${options.concurrency} concurrent`, options.requests, options.concurrency, viaAgent(plain, '/doc'), viaFetcher('/doc'));
    await compare(`SafeFetcher.fetch, origin answering in ${SLOW_ORIGIN_MS} ms, sequential (N=${options.slowOriginRequests})`, options.slowOriginRequests, 1, viaAgent(plain, '/slow'), viaFetcher('/slow'));

    // Cache hits: one network fetch, then every call is served from MemoryDocumentCache.
    const url = `${origin}/cached`;
    const first = await cached.fetch(url);
    if (first.fromCache) throw new Error('the first fetch cannot be a cache hit');
    const samples: number[] = [];
    for (let i = 0; i < options.cacheHits; i++) {
      const started = performance.now();
      const result = await cached.fetch(url);
      samples.push(performance.now() - started);
      if (!result.fromCache) throw new Error('expected a cache hit');
    }
    const cacheHit = latencyStats(samples.slice(Math.floor(samples.length / 10))); // first 10%: warm-up

    const agentRows = rows.filter((row) => row.name.startsWith('guarded Agent'));
    const report: FetchBenchReport = {
      rows,
      cacheHit,
      agentOverheadPercent: Math.max(...agentRows.map((row) => row.overheadPercent)),
      fetcherOverheadPercent: rows.find((row) => row.name.startsWith('SafeFetcher.fetch, keep-alive, sequential'))?.overheadPercent ?? Number.NaN,
      fetcherSlowOriginOverheadPercent: rows.find((row) => row.name.startsWith('SafeFetcher.fetch, origin answering'))?.overheadPercent ?? Number.NaN,
    };
    print(report, options);
    return report;
  } finally {
    await Promise.all([plain.close(), guarded.close(), fetcher.close(), cached.close()]);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Requests per second for `count` calls, `concurrency` at a time. */
async function rate(call: () => Promise<void>, count: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await call();
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

function print(report: FetchBenchReport, options: FetchBenchOptions): void {
  printTable(
    `Fetch: plain undici Agent vs the guarded path, 127.0.0.1 origin, ~1 KiB text/plain (best of ${options.rounds})`,
    ['path', 'plain req/s', 'guarded req/s', 'overhead'],
    report.rows.map((row) => [row.name, num(row.plainPerSecond), num(row.guardedPerSecond), `${row.overheadPercent.toFixed(1)}%`]),
    [
      'overhead = extra time per request: plain rate / guarded rate - 1 (target for the guarded Agent: ≤ 15%)',
      'SafeFetcher.fetch also gates the URL, takes a domain slot, runs a deadline, decodes and extracts text: a fixed CPU cost',
      'per request that shows on loopback (µs-fast origin) and vanishes against an origin that takes milliseconds',
    ],
  );
  const hit = report.cacheHit;
  printTable(
    `Fetch: cache hit through SafeFetcher.fetch + MemoryDocumentCache (library time, n=${hit.n})`,
    ['p50', 'p90', 'p99', 'max', 'target'],
    [[ms(hit.p50, 4), ms(hit.p90, 4), ms(hit.p99, 4), ms(hit.max, 3), '< 1 ms']],
  );
}

if (require.main === module) {
  const quick = process.argv.includes('--quick');
  runFetchBench(quick ? { requests: 300, concurrency: 20, freshConnectionRequests: 100, slowOriginRequests: 50, rounds: 1, cacheHits: 2_000 } : DEFAULT_FETCH_OPTIONS).then(
    (report) => {
      const met = report.agentOverheadPercent <= 15 && report.cacheHit.p99 < 1;
      console.log(`\nguarded Agent overhead ${report.agentOverheadPercent.toFixed(1)}% (≤ 15%), cache hit p99 ${report.cacheHit.p99.toFixed(3)} ms (< 1 ms): ${met ? 'met' : 'NOT met'}`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
