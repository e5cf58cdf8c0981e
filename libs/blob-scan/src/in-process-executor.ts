import os from 'node:os';
import type { Snapshot } from '@quarry/snapshot';
import type { BlobDerivation } from './blob-derivation';
import type { BlobFactStore } from './blob-facts';
import type { ShardTask } from './plan';
import { runShard, type ShardIndexer, type ShardOutcome } from './run-shard';
import type { ShardExecutor } from './sharded-scan';

/**
 * Shards run in this process, a few at a time, on the same snapshot: `quarry scan --local`
 * (no Redis, no Postgres) and a worker scanning a directory of its own disk, which no other
 * worker can read.
 */
export class InProcessShardExecutor implements ShardExecutor {
  constructor(
    private readonly snapshot: Snapshot,
    private readonly store: BlobFactStore,
    private readonly concurrency = 2,
    private readonly worker = workerId(),
    private readonly derive?: BlobDerivation,
    private readonly index?: ShardIndexer,
  ) {}

  async run(tasks: readonly ShardTask[], options: { signal: AbortSignal; onProgress: (index: number, done: number, worker?: string) => void }): Promise<ShardOutcome[]> {
    const outcomes = new Array<ShardOutcome>(tasks.length);
    let next = 0;
    const lane = async () => {
      while (next < tasks.length) {
        const task = tasks[next++];
        options.signal.throwIfAborted();
        outcomes[task.index] = await runShard(this.snapshot, task.files, this.store, {
          worker: this.worker,
          derive: this.derive,
          index: this.index,
          signal: options.signal,
          onProgress: (done) => options.onProgress(task.index, done, this.worker),
        });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.concurrency, tasks.length)) }, lane));
    return outcomes;
  }
}

/** This process's name in a scan's `workerIds`: QUARRY_WORKER_ID, else host:pid. */
export function workerId(): string {
  return process.env.QUARRY_WORKER_ID || `${os.hostname()}:${process.pid}`;
}
