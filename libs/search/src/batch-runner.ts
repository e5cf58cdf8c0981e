import type { SearchWorkerPool } from './worker-pool';
import type { SearchTask, TaskResult } from './worker-protocol';

/** About this many batches per worker once the tree's size is known: small enough to balance the load, large enough that messaging stays cheap. */
const BATCHES_PER_WORKER = 8;
const MIN_BATCH_FILES = 32;
const MAX_BATCH_FILES = 1_000;
/** After a stop, how long running batches get to report what they did before the result goes out without them. */
const STOP_GRACE_MS = 250;

/**
 * Feeds files to the pool in batches while the walk is still finding them, so reading starts
 * with the first directories instead of after the last. Batches start small (the threads get
 * work at once) and grow with the files seen so far; what is left when the walk ends is split
 * evenly between the threads.
 */
export class BatchRunner {
  private pending: string[] = [];
  private seen = 0;
  private readonly results: TaskResult[] = [];
  private readonly running = new Map<number, Promise<void>>();
  private failure: unknown;

  constructor(
    private readonly pool: SearchWorkerPool,
    private readonly template: Omit<SearchTask, 'files'>,
  ) {}

  /** More files found by the walk. */
  add(files: readonly string[]): void {
    for (const file of files) this.pending.push(file);
    this.seen += files.length;
    const size = Math.min(MAX_BATCH_FILES, Math.max(MIN_BATCH_FILES, Math.ceil(this.seen / (this.pool.size * BATCHES_PER_WORKER))));
    let start = 0;
    for (; start + size <= this.pending.length; start += size) this.dispatch(this.pending.slice(start, start + size));
    this.pending = start === 0 ? this.pending : this.pending.slice(start);
    // The threads have taken every batch: hand them what is pending rather than let them wait
    // for a full batch while the walk is slower than the search.
    if (this.pool.queued === 0 && this.pending.length >= MIN_BATCH_FILES) {
      this.dispatch(this.pending);
      this.pending = [];
    }
  }

  /** The walk is over: the files still pending go out, one even share per thread. */
  flush(): void {
    const share = Math.max(1, Math.ceil(this.pending.length / this.pool.size));
    for (let start = 0; start < this.pending.length; start += share) this.dispatch(this.pending.slice(start, start + share));
    this.pending = [];
  }

  /**
   * Waits for every dispatched batch, or for `stopped` (budget or abort): then the workers are
   * asked to stop, get a short grace to report what they finished, and queued batches are dropped.
   */
  async collect(stopped: Promise<void>, isStopping: () => boolean): Promise<TaskResult[]> {
    const allDone = Promise.all(this.running.values());
    await Promise.race([allDone, stopped]);
    if (isStopping()) {
      this.stop();
      await Promise.race([Promise.all(this.running.values()), delay(STOP_GRACE_MS)]);
      return this.results;
    }
    if (this.failure !== undefined) throw this.failure;
    return this.results;
  }

  /** Asks the running batches to stop between files and drops the queued ones. */
  stop(): void {
    Atomics.store(this.template.cancel, 0, 1);
    for (const id of [...this.running.keys()]) this.pool.abandon(id);
  }

  private dispatch(files: string[]): void {
    const { id, result } = this.pool.run({ ...this.template, files });
    this.running.set(
      id,
      result
        .then(
          (batch) => void this.results.push(batch),
          (error: unknown) => void (this.failure ??= error),
        )
        .finally(() => this.running.delete(id)),
    );
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
