import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { QuarryError, type ErrorKind } from '@quarry/contracts/errors';
import type { ThreadDerivation } from './blob-derivation';
import type { BlobFactStore } from './blob-facts';
import { workerId } from './in-process-executor';
import type { ShardTask } from './plan';
import type { ShardOutcome } from './run-shard';
import type { ShardExecutor } from './sharded-scan';
import type { FromThread, ShardMessage, ThreadProviderOptions, ThreadShardSource, ToThread } from './shard-thread-protocol';

/** Threads an in-process scan starts at most (one per core beyond that only adds start-up). */
export const MAX_SHARD_THREADS = 4;

/** The compiled thread beside this file (dist/). */
const COMPILED_THREAD = path.join(__dirname, 'shard-thread.js');

/**
 * The compiled thread's file. There is no from-source fallback: a worker thread started inside
 * jest's module sandbox crashes the process (a native addon loaded twice), so the executor is
 * tested from the build (test/e2e/shard-threads.spec.ts).
 */
function threadEntry(): string {
  if (!shardThreadsAvailable()) throw new Error(`${COMPILED_THREAD} is missing: shard threads run from the compiled build (npm run build)`);
  return COMPILED_THREAD;
}

/** Whether this process can run shards on threads (it runs the compiled build, not sources under jest). */
export function shardThreadsAvailable(): boolean {
  return existsSync(COMPILED_THREAD);
}

/**
 * The process's shard threads, started on first use and kept for the next scan (idle ones are
 * unref'd, so they never keep a process alive). They are never terminated while the process runs:
 * a thread that loaded the native re2 (through @quarry/workspace) crashes the whole process when
 * it is torn down, as the search pool found out before.
 */
class ShardThreadPool {
  private readonly threads: Worker[] = [];
  private readonly listeners = new Map<number, (thread: Worker, message: ShardMessage) => void>();
  private readonly busy = new Map<Worker, number>();
  /** Threads that said they have loaded (only those are ever unref'd, see start). */
  private readonly loaded = new Set<Worker>();
  private nextShard = 1;

  constructor(private readonly entry: string) {}

  /** Starts threads up to `count` (unref'd: they keep nothing alive) so their start-up overlaps other work. */
  warm(count: number): void {
    while (this.threads.length < count) this.start();
  }

  /** `count` threads (started as needed), ref'd until `release`. */
  acquire(count: number, onLost: (error: Error) => void): Worker[] {
    this.watchers.add(onLost);
    while (this.threads.length < count) this.start();
    const taken = this.threads.slice(0, count);
    for (const thread of taken) {
      this.busy.set(thread, (this.busy.get(thread) ?? 0) + 1);
      thread.ref();
    }
    return taken;
  }

  release(threads: readonly Worker[], onLost: (error: Error) => void): void {
    this.watchers.delete(onLost);
    for (const thread of threads) {
      const uses = (this.busy.get(thread) ?? 1) - 1;
      this.busy.set(thread, uses);
      if (uses <= 0 && this.loaded.has(thread)) thread.unref();
    }
  }

  /** A process-unique shard id whose messages go to `listener` until `forget`. */
  listen(listener: (thread: Worker, message: ShardMessage) => void): number {
    const id = this.nextShard++;
    this.listeners.set(id, listener);
    return id;
  }

  forget(id: number): void {
    this.listeners.delete(id);
  }

  /** The runs using the pool: a thread that dies fails them (its shards are lost with it). */
  private readonly watchers = new Set<(error: Error) => void>();

  private start(): void {
    // Shards allocate file contents outside the heap, but the code index makes short-lived
    // garbage per file (names, rows): a young generation of 16 MB, not Node's default (semi-spaces
    // of 16 MB each), keeps two threads from adding ~60 MB to a path scan, while 8 MB had the
    // scavenger take 6.5% of the threads' CPU on Linux `fs/` (16 MB: 5%).
    const thread = new Worker(this.entry, { resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    // Ref'd until it has loaded its modules: a process that ends while a thread is still loading
    // the native re2 can die of a segmentation fault (seen with search threads: a scan that fails
    // right after warming its threads would be the same). Then unref'd unless it has a shard, so
    // an idle thread never keeps a process alive (a warmed thread that never got a shard, in a
    // one-shard scan, once did).
    thread.on('message', (message: FromThread) => {
      if (message.type !== 'ready') return this.listeners.get(message.id)?.(thread, message);
      this.loaded.add(thread);
      if ((this.busy.get(thread) ?? 0) <= 0) thread.unref();
    });
    this.threads.push(thread);
    const drop = (error: Error) => {
      this.loaded.delete(thread);
      const index = this.threads.indexOf(thread);
      if (index !== -1) this.threads.splice(index, 1);
      for (const notify of [...this.watchers]) notify(error);
    };
    thread.on('error', drop);
    thread.on('exit', (code) => drop(new Error(`a shard thread exited (code ${code})`)));
  }
}

const pools = new Map<string, ShardThreadPool>();

/**
 * Runs a scan's shards on worker threads of this process (`quarry scan --local`: no Redis, no
 * Postgres). Each thread opens its own snapshot of the same commit or directory and runs
 * `runShard`, the function a worker process runs for a shard job; its facts come back to this
 * thread's store. Threads are shared by the process's scans (see ShardThreadPool).
 */
export class ThreadShardExecutor implements ShardExecutor {
  /** Threads the last run used (tests and the bench look at it). */
  threadsStarted = 0;

  constructor(
    private readonly source: ThreadShardSource,
    private readonly provider: ThreadProviderOptions,
    private readonly store: BlobFactStore,
    private readonly threads = Math.max(1, Math.min(os.availableParallelism(), MAX_SHARD_THREADS)),
    private readonly worker = workerId(),
    private readonly entry = threadEntry(),
    /** Per-blob work the threads run on their shards' blobs, their rows stored through it. */
    private readonly derivation?: ThreadDerivation,
  ) {}

  /**
   * Starts the threads now: each loads its modules (~150 ms of CPU) while the scan still lists
   * the directory, instead of after it.
   */
  prepare(): void {
    this.pool().warm(this.threads);
  }

  private pool(): ShardThreadPool {
    let pool = pools.get(this.entry);
    if (!pool) pools.set(this.entry, (pool = new ShardThreadPool(this.entry)));
    return pool;
  }

  run(tasks: readonly ShardTask[], options: { signal: AbortSignal; onProgress: (index: number, done: number, worker?: string) => void }): Promise<ShardOutcome[]> {
    const { signal } = options;
    const outcomes = new Array<ShardOutcome>(tasks.length);
    if (signal.aborted) return Promise.reject(signal.reason);
    if (tasks.length === 0) return Promise.resolve(outcomes);
    const count = Math.max(1, Math.min(this.threads, tasks.length));
    this.threadsStarted = count;
    const shared = this.pool();
    return new Promise<ShardOutcome[]>((resolve, reject) => {
      /** Shard id → its thread, task and the writes of its facts, while it runs. */
      const running = new Map<number, { thread: Worker; task: ShardTask; writes: Array<Promise<number>> }>();
      let next = 0;
      let finished = 0;
      let settled = false;
      const settle = (error?: unknown) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        for (const [id, { thread }] of running) {
          thread.postMessage({ type: 'cancel', id } satisfies ToThread);
          shared.forget(id);
        }
        shared.release(threads, onLost);
        if (error === undefined) resolve(outcomes);
        else reject(error);
      };
      const onAbort = () => settle(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });

      const handOut = (thread: Worker) => {
        if (settled || next >= tasks.length) return;
        const task = tasks[next++];
        const id = shared.listen(onMessage);
        running.set(id, { thread, task, writes: [] });
        thread.postMessage({ type: 'shard', id, files: task.files, source: this.source, provider: this.provider, worker: this.worker, derive: derivation?.spec } satisfies ToThread);
      };
      function onMessage(thread: Worker, message: ShardMessage): void {
        const shard = running.get(message.id);
        if (settled || !shard) return;
        const { task, writes } = shard;
        if (message.type === 'progress') options.onProgress(task.index, message.done, worker);
        else if (message.type === 'record' || message.type === 'derived') {
          // Derived rows are awaited with the facts, but only facts count as the shard's `processed`.
          const write = message.type === 'record' ? store.record(message.facts) : derivation!.accept(message.rows).then(() => 0);
          write.catch((error: unknown) => settle(error));
          writes.push(write);
        } else if (message.type === 'done') {
          running.delete(message.id);
          shared.forget(message.id);
          // The thread takes the next shard now; this one is done once its facts are stored.
          handOut(thread);
          void Promise.all(writes).then((added) => {
            if (settled) return;
            outcomes[task.index] = { ...message.outcome, processed: added.reduce((sum, count) => sum + count, 0) };
            options.onProgress(task.index, task.files.length, message.outcome.worker);
            if (++finished === tasks.length) settle();
          }, () => undefined); // a failed write settled the run above
        } else if (message.type === 'failed') {
          const { kind, message: text, suggestion, permanent } = message.error;
          settle(kind ? new QuarryError(kind as ErrorKind, text, { suggestion, permanent }) : new Error(text));
        }
      }
      const { store, worker, derivation } = this;
      const onLost = (error: Error) => settle(error);
      const threads = shared.acquire(count, onLost);
      for (const thread of threads) handOut(thread);
    });
  }
}
