import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';

/*
 * Real OS processes for e2e tests and benchmarks: `node bin/quarry.js gateway|worker` (the compiled
 * build in dist/), their output captured line by line, waits that are always bounded, and a group
 * that kills whatever is still running when the test or benchmark ends, even after a failure.
 *
 * Kept free of path-aliased imports so the benchmark build (tsc) can use it as well as jest.
 */

/** The checkout: the folder holding bin/quarry.js, from source or from dist/. */
export function repoRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'bin', 'quarry.js')) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`cannot find bin/quarry.js above ${from}`);
  }
}

export const QUARRY_BIN = path.join(repoRoot(), 'bin', 'quarry.js');

/** Throws a clear error when dist/ has not been built (spawned processes run the compiled CLI). */
export function assertBuilt(): void {
  const entry = path.join(repoRoot(), 'dist', 'apps', 'cli', 'src', 'main.js');
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first (npm test does it for you)`);
}

/**
 * The gateway's reconciler re-queues every queued/running row older than its grace period, from the
 * whole database, onto its own queue prefix. In a database shared by tests (or reused by benchmark
 * runs) that would pull other runs' jobs into this prefix, so spawned gateways keep it out of the way.
 */
export const NO_RECONCILER_ENV: Record<string, string> = {
  QUARRY_RECONCILE_INTERVAL_MS: '2000000000', // below 2^31: larger values overflow setInterval to 1 ms
  QUARRY_RECONCILE_GRACE_MS: '1000000000000',
};

/** A free TCP port on 127.0.0.1 (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface OutputLine {
  at: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

type LineMatcher = RegExp | ((line: string) => boolean);

const MAX_KEPT_LINES = 20_000;

/** One spawned process: its output lines, its exit, bounded waits on both. */
export class ChildHandle {
  readonly lines: OutputLine[] = [];
  readonly exited: Promise<ExitInfo>;
  exit: ExitInfo | undefined;
  private readonly listeners = new Set<(line: OutputLine) => void>();
  private dropped = 0;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    this.exited = new Promise<ExitInfo>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
      child.once('error', (error) => {
        this.record('stderr', `[spawn error] ${error.message}`);
        if (!this.exit) {
          this.exit = { code: -1, signal: null };
          resolve(this.exit);
        }
      });
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      const source = child[stream];
      if (source) readline.createInterface({ input: source, crlfDelay: Infinity }).on('line', (text) => this.record(stream, text));
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** Calls `listener` for every line from now on; returns the unsubscribe function. */
  onLine(listener: (line: OutputLine) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Output lines parsed as JSON (pino logs); other lines are skipped. */
  jsonLines(): Array<Record<string, unknown>> {
    const parsed: Array<Record<string, unknown>> = [];
    for (const line of this.lines) {
      const value = parseJsonLine(line.text);
      if (value) parsed.push(value);
    }
    return parsed;
  }

  /** Resolves with the first line (already seen or still to come) that matches; bounded. */
  waitForLine(match: LineMatcher, timeoutMs: number, what = String(match), signal?: AbortSignal): Promise<string> {
    const test = typeof match === 'function' ? match : (text: string) => match.test(text);
    const seen = this.lines.find((line) => test(line.text));
    if (seen) return Promise.resolve(seen.text);
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unsubscribe();
        outcome();
      };
      const timer = setTimeout(
        () => settle(() => reject(new Error(`${this.name}: no line matching ${what} within ${timeoutMs} ms\n${this.tail()}`))),
        timeoutMs,
      );
      const unsubscribe = this.onLine((line) => {
        if (test(line.text)) settle(() => resolve(line.text));
      });
      signal?.addEventListener('abort', () => settle(() => reject(new Error(`${this.name}: stopped waiting for ${what}`))), { once: true });
      void this.exited.then((exit) => {
        // Give readline time to deliver the last lines before calling it a failure.
        setTimeout(() => {
          const last = this.lines.find((line) => test(line.text));
          settle(() =>
            last ? resolve(last.text) : reject(new Error(`${this.name} exited (${describeExit(exit)}) before printing ${what}\n${this.tail()}`)),
          );
        }, 50);
      });
    });
  }

  /** Sends a signal if the process is still running; true when it was sent. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (!this.alive) return false;
    try {
      return this.child.kill(signal);
    } catch {
      return false;
    }
  }

  /** Resolves with the exit, or rejects after `timeoutMs` (the process keeps running). */
  waitForExit(timeoutMs: number): Promise<ExitInfo> {
    if (this.exit) return Promise.resolve(this.exit);
    return new Promise<ExitInfo>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} (pid ${this.pid}) did not exit within ${timeoutMs} ms\n${this.tail()}`)), timeoutMs);
      void this.exited.then((exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
  }

  /** SIGTERM, then SIGKILL if it is still running after `graceMs`. */
  async stop(graceMs = 5_000): Promise<ExitInfo> {
    if (this.exit) return this.exit;
    this.kill('SIGTERM');
    try {
      return await this.waitForExit(graceMs);
    } catch {
      this.kill('SIGKILL');
      return this.waitForExit(5_000).catch(() => ({ code: null, signal: 'SIGKILL' as NodeJS.Signals }));
    }
  }

  /** The last `count` output lines, prefixed with the process name, for failure messages. */
  tail(count = 25): string {
    const lines = this.lines.slice(-count).map((line) => `  [${this.name}${line.stream === 'stderr' ? ' err' : ''}] ${line.text}`);
    const state = this.exit ? `exited ${describeExit(this.exit)}` : 'running';
    const dropped = this.dropped ? `, ${this.dropped} older lines dropped` : '';
    return `--- ${this.name} (pid ${this.pid}, ${state}${dropped}), last ${lines.length} lines:\n${lines.join('\n')}`;
  }

  private record(stream: 'stdout' | 'stderr', text: string): void {
    const line: OutputLine = { at: Date.now(), stream, text };
    this.lines.push(line);
    if (this.lines.length > MAX_KEPT_LINES) {
      this.lines.splice(0, this.lines.length - MAX_KEPT_LINES);
      this.dropped++;
    }
    for (const listener of [...this.listeners]) listener(line);
  }
}

export function parseJsonLine(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function describeExit(exit: ExitInfo): string {
  return exit.signal ? `by signal ${exit.signal}` : `with code ${exit.code}`;
}

/** The environment a child gets: this process's, minus any QUARRY_* setting, plus `env`. */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('QUARRY_')) base[key] = value;
  for (const [key, value] of Object.entries(env)) if (value !== undefined) base[key] = value;
  return base;
}

export interface SpawnedGateway {
  handle: ChildHandle;
  url: string;
  port: number;
}

/**
 * The processes of one test file or benchmark. Everything spawned through it is stopped by
 * `stopAll()`, and SIGKILLed if this process exits first (a crashed or interrupted run).
 */
export class ProcessGroup {
  readonly children: ChildHandle[] = [];
  private readonly onExit = () => {
    for (const child of this.children) child.kill('SIGKILL');
  };

  constructor() {
    process.once('exit', this.onExit);
  }

  /** `node bin/quarry.js ...args` with `env` on top of a QUARRY_-free copy of this environment. */
  spawnQuarry(name: string, args: string[], env: Record<string, string | undefined>): ChildHandle {
    // QUARRY_BENCH_CPU_PROF=<dir>: every spawned quarry process writes a V8 CPU profile there on a
    // clean exit (node refuses --cpu-prof in NODE_OPTIONS, so it has to be an argument).
    const profileDir = process.env.QUARRY_BENCH_CPU_PROF;
    const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
    return this.spawn(name, process.execPath, [...nodeArgs, QUARRY_BIN, ...args], env);
  }

  spawn(name: string, command: string, args: string[], env: Record<string, string | undefined>): ChildHandle {
    const child = spawn(command, args, { cwd: repoRoot(), env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    const handle = new ChildHandle(name, child);
    this.children.push(handle);
    return handle;
  }

  /**
   * Spawns `quarry gateway` on a free port (QUARRY_PORT=0 cannot be discovered from outside) and
   * waits for its "listening on URL" line.
   */
  async startGateway(env: Record<string, string | undefined>, options: { name?: string; timeoutMs?: number } = {}): Promise<SpawnedGateway> {
    const port = await freePort();
    const handle = this.spawnQuarry(options.name ?? 'gateway', ['gateway'], { QUARRY_HOST: '127.0.0.1', ...env, QUARRY_PORT: String(port) });
    const line = await handle.waitForLine(/quarry gateway listening on (\S+)/, options.timeoutMs ?? 30_000, '"quarry gateway listening on URL"');
    const url = /quarry gateway listening on (\S+)/.exec(line)?.[1] as string;
    return { handle, url, port };
  }

  /**
   * Spawns `quarry worker`. With `waitForReady` (needs QUARRY_LOG_LEVEL info or lower) it waits for
   * the "worker taking jobs" log line; otherwise the caller checks readiness (e.g. Queue.getWorkersCount).
   */
  async startWorker(
    name: string,
    env: Record<string, string | undefined>,
    options: { waitForReady?: boolean; timeoutMs?: number } = {},
  ): Promise<ChildHandle> {
    const handle = this.spawnQuarry(name, ['worker'], env);
    if (options.waitForReady) await handle.waitForLine(/worker taking jobs/, options.timeoutMs ?? 30_000, '"worker taking jobs"');
    return handle;
  }

  alive(): ChildHandle[] {
    return this.children.filter((child) => child.alive);
  }

  /** Stops every child still running (SIGTERM, SIGKILL after `graceMs`); never throws. */
  async stopAll(graceMs = 5_000): Promise<void> {
    await Promise.all(this.children.map((child) => child.stop(graceMs).catch(() => undefined)));
    process.removeListener('exit', this.onExit);
  }

  /** The last lines of every child, for failure messages. */
  dumpLogs(linesPerChild = 25): string {
    return this.children.map((child) => child.tail(linesPerChild)).join('\n');
  }
}

/** Runs `body`; on failure, appends the children's last log lines to the error before rethrowing. */
export async function withChildLogs<T>(group: ProcessGroup, body: () => Promise<T>, linesPerChild = 25): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const logs = group.dumpLogs(linesPerChild);
    if (error instanceof Error) {
      error.message = `${error.message}\n\nchild processes:\n${logs}`;
      throw error;
    }
    throw new Error(`${String(error)}\n\nchild processes:\n${logs}`);
  }
}

/** Polls until `check` returns a truthy value; rejects naming `what` after `timeoutMs`. */
/** `everyMs`: a fixed interval, or one chosen from the time waited so far. */
export async function pollUntil<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs: number,
  what: string,
  everyMs: number | ((waitedMs: number) => number) = 50,
): Promise<T> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, typeof everyMs === 'number' ? everyMs : everyMs(Date.now() - started)));
  }
}
