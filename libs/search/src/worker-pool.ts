import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SearchTask, TaskResult, WorkerReady, WorkerReply } from './worker-protocol';

export const MAX_POOL_SIZE = 4;

interface Job {
  id: number;
  task: SearchTask;
  resolve: (result: TaskResult) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  job?: Job;
  /** Settles once the thread has loaded its modules (or is gone). */
  loaded: Promise<void>;
}

/** How long `close` waits for a starting thread to finish loading. */
const LOAD_WAIT_MS = 10_000;

/**
 * The compiled worker when it exists (after `npm run build`, beside this file in dist/), else a
 * small loader that compiles the TypeScript source on the fly (jest, which transforms only the
 * test process).
 */
function defaultWorkerEntry(): string {
  const compiled = path.join(__dirname, 'search-worker.js');
  return existsSync(compiled) ? compiled : path.join(__dirname, 'worker-from-source.js');
}

/**
 * A few worker threads, started lazily and reused across searches; tasks queue first come, first
 * served. Idle workers are unref'd so they never keep a process alive; busy ones are ref'd so an
 * awaited search does.
 */
export class SearchWorkerPool {
  private readonly workers: PoolWorker[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    readonly size = Math.max(1, Math.min(os.availableParallelism(), MAX_POOL_SIZE)),
    private readonly entry = defaultWorkerEntry(),
  ) {}

  /** Batches waiting for a thread (0: every thread that is free has work, or soon will). */
  get queued(): number {
    return this.queue.length;
  }

  /** Queues a batch; returns its id (for `abandon`) and the promise of its result. */
  run(task: SearchTask): { id: number; result: Promise<TaskResult> } {
    if (this.closed) throw new Error('The search worker pool is closed.');
    const id = this.nextId++;
    const result = new Promise<TaskResult>((resolve, reject) => this.queue.push({ id, task, resolve, reject }));
    this.pump();
    return { id, result };
  }

  /**
   * Starts the threads now rather than at the first batch, so they load while the caller walks
   * the tree. A thread is unref'd once it has loaded (see spawn): warming keeps a process alive
   * only that long.
   */
  warm(): void {
    if (this.closed) return;
    while (this.workers.length < this.size) this.spawn();
  }

  /**
   * Drops a batch still waiting in the queue. A running batch is left to finish: workers look at
   * their cancel flag every few hundred matching lines, so it ends within milliseconds, and
   * terminating a thread inside a native RE2 call can crash the process.
   */
  abandon(id: number): void {
    const queued = this.queue.findIndex((job) => job.id === id);
    if (queued !== -1) this.queue.splice(queued, 1)[0].reject(new Error('abandoned'));
  }

  /**
   * Refuses new work and lets the threads go idle — without ending them. A thread that loaded
   * the native re2 addon must live as long as the process: once one has exited, the next thread
   * that loads re2 aborts the whole process in V8 ("Check failed: node->IsInUse()", re2 1.23 on
   * Node 20, reproduced with two plain worker threads). Idle threads are unref'd, so they never
   * keep a process alive, and they end with it.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('The search worker pool was closed.'));
    const workers = this.workers.splice(0);
    // Threads still loading stay ref'd until they have (spawn); waiting for them here means the
    // caller's next step (often the end of the process) finds none half-loaded.
    await Promise.all(workers.map(({ loaded }) => Promise.race([loaded, new Promise<void>((resolve) => setTimeout(resolve, LOAD_WAIT_MS).unref())])));
    for (const { worker } of workers) {
      worker.removeAllListeners('message');
      worker.unref();
    }
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const entry = this.workers.find((candidate) => candidate.job === undefined) ?? this.spawn();
      if (entry === undefined) return;
      const job = this.queue.shift() as Job;
      entry.job = job;
      entry.worker.ref();
      entry.worker.postMessage({ id: job.id, task: job.task });
    }
  }

  private spawn(): PoolWorker | undefined {
    if (this.workers.length >= this.size) return undefined;
    const worker = new Worker(this.entry);
    let markLoaded!: () => void;
    const entry: PoolWorker = { worker, loaded: new Promise<void>((resolve) => (markLoaded = resolve)) };
    // A new thread is ref'd until it says it has loaded: a process that ends while a thread is
    // still loading re2 can die of a segmentation fault (`quarry search` refusing a cursor or a
    // pattern right after `warm`: 5 of 300 runs). Then, idle, it is unref'd.
    worker.on('message', (message: WorkerReply | WorkerReady) => {
      if (!('ready' in message)) return this.settle(entry, message);
      markLoaded();
      if (entry.job === undefined) worker.unref();
    });
    // A thread that failed or exited will never load: nothing waits for it.
    worker.on('error', (error) => {
      markLoaded();
      this.retire(entry, error);
    });
    worker.on('exit', (code) => {
      markLoaded();
      this.retire(entry, new Error(`search worker exited with code ${code}`));
    });
    this.workers.push(entry);
    return entry;
  }

  private settle(entry: PoolWorker, reply: WorkerReply): void {
    const job = entry.job;
    if (job === undefined || job.id !== reply.id) return;
    entry.job = undefined;
    entry.worker.unref();
    if ('error' in reply) job.reject(new Error(`search worker failed: ${reply.error}`));
    else job.resolve(reply.result);
    this.pump();
  }

  /** Removes a worker that failed, exited or was given up on; a later batch starts a fresh one. */
  private retire(entry: PoolWorker, error: Error): void {
    const index = this.workers.indexOf(entry);
    if (index === -1) return;
    this.workers.splice(index, 1);
    const job = entry.job;
    entry.job = undefined;
    entry.worker.removeAllListeners('message');
    void entry.worker.terminate();
    job?.reject(error);
    if (!this.closed) this.pump();
  }
}

let shared: SearchWorkerPool | undefined;

/** The process-wide pool every searchWorkspace call uses unless given another. */
export function sharedSearchPool(): SearchWorkerPool {
  shared ??= new SearchWorkerPool();
  return shared;
}

/** Retires the shared pool (tests, graceful shutdown; see `close`); the next search starts a new one. */
export async function closeSharedSearchPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
