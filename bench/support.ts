/**
 * Small helpers shared by the service benchmarks: statistics, tables, the tiny tree, CPU time per
 * process from /proc, and a counting TCP proxy in front of Postgres (to count round trips per job).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';

export const BENCH_DATABASE_URL = process.env.QUARRY_BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/quarry_bench';
export const BENCH_REDIS_URL = process.env.QUARRY_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The worker memory settings the README recommends and docker-compose.yml sets (README, "Worker
 * memory"): the peak RSS figures are measured with them. `QUARRY_BENCH_DEFAULT_MEMORY=1` measures
 * Node's and glibc's defaults instead.
 */
export const RECOMMENDED_WORKER_MEMORY: Record<string, string> = process.env.QUARRY_BENCH_DEFAULT_MEMORY
  ? {}
  : { NODE_OPTIONS: '--max-old-space-size=192 --max-semi-space-size=4', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' };

export function describeWorkerMemory(): string {
  const settings = Object.entries(RECOMMENDED_WORKER_MEMORY).map(([key, value]) => `${key}=${value}`);
  return settings.length ? `workers run with ${settings.join(' ')} (README, "Worker memory")` : 'workers run with Node\'s default heap and glibc\'s default malloc';
}

/**
 * How often a bench asks the gateway whether a job is done: every 25 ms for its first 2 s (a
 * re-scan's figure is ~1 s), then every 250 ms. Asking every 25 ms through a 6-minute kernel scan
 * cost the gateway and the bench 27 s of CPU — CPU the workers being measured did not get.
 */
export const jobPollInterval = (waitedMs: number): number => (waitedMs < 2_000 ? 25 : 250);

export function benchPrefix(label: string): string {
  return `quarry-bench-${label}-${randomBytes(4).toString('hex')}`;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export interface LatencyStats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** The round whose `key` is the median (the middle one of an odd count). */
export function medianBy<T>(rounds: readonly T[], key: (round: T) => number): T {
  return [...rounds].sort((a, b) => key(a) - key(b))[Math.floor(rounds.length / 2)];
}

export function latencyStats(samples: readonly number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

/** Runs `task` `runs` times in a row; the quickest run and its value (the least disturbed by other load). */
export async function bestOf<T>(runs: number, task: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  let best: { seconds: number; value: T } | undefined;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const value = await task();
    const seconds = (performance.now() - started) / 1000;
    if (!best || seconds < best.seconds) best = { seconds, value };
  }
  return best as { seconds: number; value: T };
}

/** A small seeded PRNG: generated trees and texts are the same on every machine. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ms = (value: number, digits = 1) => (Number.isFinite(value) ? `${value.toFixed(digits)} ms` : '-');
export const num = (value: number, digits = 0) => (Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-');

/** Prints a titled table; numeric-looking cells are right-aligned. */
export function printTable(title: string, header: string[], rows: string[][], notes: string[] = []): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const numeric = (cell: string) => /^[-+~≈≥≤]?[\d,.]+\s*(ms|s|x|×|%|jobs\/s|\/s|MiB)?$/.test(cell.trim());
  const line = (row: string[]) =>
    row.map((cell, column) => (column > 0 && numeric(cell) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join('  ').trimEnd();
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
  for (const note of notes) console.log(`  ${note}`);
}

/** A fixed 10-file text tree for the tiny-job figures (a scan of it is nearly free). */
export function ensureTinyTree(): { root: string; files: number } {
  const root = path.join(os.tmpdir(), 'quarry-bench-tiny-10');
  const files = 10;
  const marker = path.join(root, '.git', 'quarry-tiny.json');
  if (!fs.existsSync(marker)) {
    fs.rmSync(root, { recursive: true, force: true });
    for (let i = 0; i < files; i++) {
      const dir = path.join(root, i % 2 ? 'src' : 'lib');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(1 + (i % 3)));
    }
    // .git is never listed by the walker, so the marker does not count as a file.
    fs.mkdirSync(path.dirname(marker), { recursive: true });
    fs.writeFileSync(marker, JSON.stringify({ files }));
  }
  return { root: fs.realpathSync(root), files };
}

/** Removes every key of one BullMQ prefix (and nothing else). */
export async function deletePrefixKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 3 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

// ---- CPU time per process ----------------------------------------------------------------------

const CLOCK_TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux x86-64

/**
 * CPU ms of one process, or undefined when it is gone: its own (utime + stime), its waited-for
 * children's (cutime + cstime: the git processes a worker or a git server ran and reaped), or both.
 */
export function processCpuMs(pid: number, part: CpuPart = 'self'): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    const self = fields[11] + fields[12];
    const children = fields[13] + fields[14];
    return ((part === 'self' ? self : part === 'children' ? children : self + children) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export type CpuPart = 'self' | 'children' | 'all';

/** Pids whose command name is `comm` (e.g. postgres, redis-server). */
export function pidsByName(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** Per group, the pids to count (their own CPU), or `{pid, part}` to count a process's children too. */
export type CpuTargets = Record<string, () => Array<number | { pid: number; part: CpuPart }>>;

/** Busy (non-idle, non-iowait) CPU ms of the whole machine, from /proc/stat. */
export function machineBusyMs(): number {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
    void idle;
    void iowait;
    return ((user + nice + system + irq + softirq + (steal ?? 0)) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

export interface QuietWait {
  quiet: boolean;
  waitedMs: number;
  /** Machine-wide busy cores over the last window looked at. */
  busyCores: number;
}

/**
 * Waits (bounded) for a window in which the whole machine is nearly idle, so a figure is not
 * measured while someone else's build or test run holds the cores. Never throws: when the machine
 * does not calm down in time the caller measures anyway and reports the load.
 */
export async function waitForQuiet(maxWaitMs = 45_000, windowMs = 1_500, maxBusyCores = 0.35): Promise<QuietWait> {
  const started = performance.now();
  for (;;) {
    const before = machineBusyMs();
    await sleep(windowMs);
    const busyCores = (machineBusyMs() - before) / windowMs;
    const waitedMs = performance.now() - started;
    if (busyCores <= maxBusyCores || !Number.isFinite(busyCores)) return { quiet: true, waitedMs, busyCores };
    if (waitedMs >= maxWaitMs) return { quiet: false, waitedMs, busyCores };
  }
}

export function describeQuiet(wait: QuietWait): string {
  return wait.quiet
    ? `machine quiet before the run (${wait.busyCores.toFixed(2)} busy cores; waited ${(wait.waitedMs / 1000).toFixed(1)} s)`
    : `machine NOT quiet before the run: ${wait.busyCores.toFixed(2)} busy cores after waiting ${(wait.waitedMs / 1000).toFixed(0)} s (other users' load)`;
}

/**
 * The groups a scan's CPU goes to: the workers (their Node threads), the git processes they ran
 * (fetch, index-pack, cat-file: reaped children), the git server this bench process runs (its
 * children), Postgres, Redis and the gateway.
 */
export function scanCpuTargets(workers: ReadonlyArray<{ pid: number }>, gatewayPid: number): CpuTargets {
  return {
    workers: () => workers.map((worker) => worker.pid),
    "workers' git": () => workers.map((worker) => ({ pid: worker.pid, part: 'children' as const })),
    'git server': () => [{ pid: process.pid, part: 'children' as const }],
    postgres: () => pidsByName('postgres'),
    redis: () => pidsByName('redis-server'),
    gateway: () => [{ pid: gatewayPid, part: 'all' as const }],
  };
}

/** "workers 24.1, workers' git 12.2, …" in CPU seconds, one decimal. */
export function cpuSecondsOf(cpuMs: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(cpuMs).map(([name, value]) => [name, Math.round(value / 100) / 10]));
}

export function describeCpuSeconds(seconds: Record<string, number>, wallMs: number): string {
  const busy = seconds.machine / (wallMs / 1000);
  return `CPU s: ${Object.entries(seconds).map(([name, value]) => `${name} ${value}`).join(', ')} (machine ${busy.toFixed(2)} cores busy)`;
}

/**
 * CPU ms used per named group of processes between `start()` and `stop()`, plus `machine` (every
 * process on the box: the difference to the named groups is load that is not ours).
 */
export class CpuMeter {
  private before = new Map<string, Map<number, number>>();
  private startedAt = 0;
  private selfBefore = process.cpuUsage();
  private machineBefore = 0;

  constructor(private readonly targets: CpuTargets) {}

  start(): void {
    this.startedAt = performance.now();
    this.selfBefore = process.cpuUsage();
    this.machineBefore = machineBusyMs();
    this.before = this.read();
  }

  /** CPU ms per group, plus `bench client` (this process) and the wall time. */
  stop(): { wallMs: number; cpuMs: Record<string, number> } {
    const wallMs = performance.now() - this.startedAt;
    const after = this.read();
    const cpuMs: Record<string, number> = {};
    for (const [name, pids] of after) {
      let total = 0;
      for (const [pid, value] of pids) total += value - (this.before.get(name)?.get(pid) ?? 0);
      cpuMs[name] = total;
    }
    const self = process.cpuUsage(this.selfBefore);
    cpuMs['bench client'] = (self.user + self.system) / 1000;
    cpuMs.machine = machineBusyMs() - this.machineBefore;
    return { wallMs, cpuMs };
  }

  private read(): Map<string, Map<number, number>> {
    const snapshot = new Map<string, Map<number, number>>();
    for (const [name, pidsOf] of Object.entries(this.targets)) {
      const values = new Map<number, number>();
      for (const target of pidsOf()) {
        const { pid, part } = typeof target === 'number' ? { pid: target, part: 'self' as const } : target;
        const cpu = processCpuMs(pid, part);
        if (cpu !== undefined) values.set(pid, cpu);
      }
      snapshot.set(name, values);
    }
    return snapshot;
  }
}

// ---- Postgres round-trip counter -------------------------------------------------------------

export interface PgMessageCounts {
  connections: number;
  /** Simple-protocol queries ('Q'). */
  simple: number;
  /** Extended-protocol messages: Parse, Bind, Execute, Sync. */
  parse: number;
  bind: number;
  execute: number;
  sync: number;
}

/**
 * A TCP proxy on 127.0.0.1 in front of Postgres that counts the frontend protocol messages going
 * through it. A round trip ends with a Sync (extended protocol) or is one simple Query, so
 * `sync + simple` is the number of times the client waited for the server.
 */
export class PgCountingProxy {
  counts: PgMessageCounts = PgCountingProxy.zero();
  /** When set, the SQL of every Query and Parse message is appended (unnamed re-parses included). */
  trace: string[] | undefined;
  /** Text of the named (prepared) statements seen, by name: later executions only bind them. */
  private readonly prepared = new Map<string, string>();
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    private readonly upstreamHost = '127.0.0.1',
    private readonly upstreamPort = 5432,
  ) {}

  static zero(): PgMessageCounts {
    return { connections: 0, simple: 0, parse: 0, bind: 0, execute: 0, sync: 0 };
  }

  async start(): Promise<number> {
    this.server = net.createServer((client) => this.relay(client));
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  reset(): void {
    this.counts = PgCountingProxy.zero();
  }

  roundTrips(): number {
    return this.counts.sync + this.counts.simple;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.upstreamPort, this.upstreamHost);
    this.sockets.add(client);
    this.sockets.add(upstream);
    this.counts.connections++;
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    upstream.pipe(client);
    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    let parsedJustBefore = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (!started) {
          // Startup-phase messages have no type byte: int32 length, int32 code.
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code !== 80877103 && code !== 80877104) started = true; // not SSLRequest / GSSENCRequest
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]);
        this.count(type);
        const body = pending.subarray(5, 1 + length);
        if (type === 'P') {
          // Named statements are parsed once per connection and then only bound: remember their text.
          const name = body.subarray(0, body.indexOf(0)).toString('utf8');
          if (name) this.prepared.set(name, sqlOf(type, body));
        }
        if (this.trace && (type === 'Q' || type === 'P')) this.trace.push(sqlOf(type, body));
        if (this.trace && type === 'B' && !parsedJustBefore) {
          const afterPortal = body.indexOf(0) + 1;
          const name = body.subarray(afterPortal, body.indexOf(0, afterPortal)).toString('utf8');
          if (name) this.trace.push(`${this.prepared.get(name) ?? name} (prepared)`);
        }
        parsedJustBefore = type === 'P';
        pending = pending.subarray(1 + length);
      }
    });
  }

  private count(type: string): void {
    if (type === 'Q') this.counts.simple++;
    else if (type === 'P') this.counts.parse++;
    else if (type === 'B') this.counts.bind++;
    else if (type === 'E') this.counts.execute++;
    else if (type === 'S') this.counts.sync++;
  }
}

/** The statement text of a Query (text\0) or Parse (name\0 text\0 …) message body, on one line. */
function sqlOf(type: string, body: Buffer): string {
  let start = 0;
  if (type === 'P') start = body.indexOf(0) + 1;
  const end = body.indexOf(0, start);
  return body
    .subarray(start, end === -1 ? body.length : end)
    .toString('utf8')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Redis `INFO commandstats` total calls (server-wide: other clients count too). */
export async function redisCommandCalls(redisUrl: string): Promise<number> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const info = await redis.info('commandstats');
    let total = 0;
    for (const match of info.matchAll(/calls=(\d+)/g)) total += Number(match[1]);
    return total;
  } finally {
    redis.disconnect();
  }
}

/** Peak resident memory (VmHWM) of a child process in MB, -1 once it is gone. */
export function peakRssMB(child: { pid?: number }): number {
  try {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return -1;
  }
}
