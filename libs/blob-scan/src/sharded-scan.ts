import { performance } from 'node:perf_hooks';
import type { JobProgress, ScanResult } from '@quarry/contracts';
import { number } from '@quarry/render';
import type { Snapshot } from '@quarry/snapshot';
import type { FileMeasure } from '@quarry/workspace';
import { assembleScan } from './assemble';
import type { BlobFactStore } from './blob-facts';
import { DEFAULT_SHARD_LIMITS, planShards, type ShardFile, type ShardLimits, type ShardTask } from './plan';
import type { ShardOutcome } from './run-shard';

/** Runs a scan's shards somewhere: as child jobs on any worker, or in this process. */
export interface ShardExecutor {
  /** Resolves once every shard succeeded, in task order; rejects with the first shard that failed for good. */
  run(tasks: readonly ShardTask[], options: { signal: AbortSignal; onProgress: (index: number, done: number, worker?: string) => void }): Promise<ShardOutcome[]>;
}

export interface ShardedScanOptions {
  store: BlobFactStore;
  executor: ShardExecutor;
  signal: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
  limits?: ShardLimits;
  largestFiles?: number;
  /**
   * Runs the shards of a scan with at most `inlineBelowFiles` files to read (a re-scan after a small
   * commit): handing one tiny shard to another worker costs more (its own commit fetch and tree
   * listing, the queue's round trip) than reading it here.
   */
  inline?: ShardExecutor;
  inlineBelowFiles?: number;
}

/** A scan with this few files left to read runs them in place when it can (`inline`). */
export const INLINE_BELOW_FILES = 256;

export type ShardedScanResult = ScanResult & Required<Pick<ScanResult, 'shards' | 'workers' | 'workerIds' | 'blobs'>>;

/**
 * A scan as shards: list the commit (entries and their blobs), skip every blob whose facts are
 * already stored (by any worker, for any commit), split the rest into shards balanced by bytes,
 * run them through the executor, then assemble the result from the facts of all the commit's
 * blobs. Progress is one bar over all files: reused ones count as done from the start.
 */
export async function shardedScan(snapshot: Snapshot, options: ShardedScanOptions): Promise<ShardedScanResult> {
  const { signal, onProgress, store } = options;
  const started = performance.now();
  signal.throwIfAborted();
  onProgress?.({ stage: 'listing', done: 0 });
  const listing = await snapshot.walk({
    signal,
    onProgress: onProgress && ((found) => onProgress({ stage: 'listing', done: 0, message: `${found} files found` })),
  });

  // The blob of every file when the snapshot lists them (a git tree); a directory's are learnt by reading.
  const blobs = new Map<string, string | undefined>();
  const listsBlobs = snapshot.kind === 'git';
  for (const path of listing.files) blobs.set(path, listsBlobs ? (await snapshot.entry(path))?.blob : undefined);
  const listedBlobs = [...new Set([...blobs.values()].filter((blob): blob is string => blob !== undefined))];
  const known = await store.lookup(listedBlobs);

  const toRead: ShardFile[] = [];
  const seen = new Set<string>();
  for (const [path, blob] of blobs) {
    if (blob === undefined) toRead.push({ path });
    else if (!known.has(blob) && !seen.has(blob)) {
      seen.add(blob);
      toRead.push({ path, blob });
    }
  }
  const tasks = planShards(toRead, options.limits ?? DEFAULT_SHARD_LIMITS);

  const total = listing.files.length;
  const skippedFiles = total - toRead.length;
  const shardDone = new Array<number>(tasks.length).fill(0);
  let doneSum = 0;
  /** Workers seen running a shard so far (the bar's "· K workers"); the result counts those that finished one. */
  const workersSeen = new Set<string>();
  const report = () =>
    onProgress?.({
      stage: 'reading',
      done: skippedFiles + doneSum,
      total,
      message: `indexing ${number(skippedFiles + doneSum)} / ${number(total)} files · ${Math.max(1, workersSeen.size)} worker${workersSeen.size > 1 ? 's' : ''}`,
    });
  report();
  const executor = options.inline && toRead.length <= (options.inlineBelowFiles ?? INLINE_BELOW_FILES) ? options.inline : options.executor;
  const outcomes = tasks.length === 0 ? [] : await executor.run(tasks, {
    signal,
    onProgress: (index, done, worker) => {
      if (worker) workersSeen.add(worker);
      doneSum += Math.max(0, done - shardDone[index]);
      shardDone[index] = Math.max(shardDone[index], done);
      report();
    },
  });

  const finishedBy = new Set<string>();
  for (const outcome of outcomes) {
    finishedBy.add(outcome.worker);
    for (const [path, blob] of outcome.blobs) blobs.set(path, blob);
  }
  const allBlobs = [...new Set([...blobs.values()].filter((blob): blob is string => blob !== undefined))];
  const missing = allBlobs.filter((blob) => !known.has(blob));
  const facts: Map<string, FileMeasure> = missing.length === 0 ? known : new Map([...known, ...(await store.lookup(missing))]);
  const processed = outcomes.reduce((sum, outcome) => sum + outcome.processed, 0);

  const result = assembleScan({
    root: snapshot.root,
    files: [...blobs],
    facts,
    skipped: listing.skipped,
    largestFiles: options.largestFiles,
    durationMs: Math.round(performance.now() - started),
  });
  const workerIds = [...finishedBy].sort();
  return {
    ...result,
    shards: tasks.length,
    workers: workerIds.length,
    workerIds,
    blobs: { total: allBlobs.length, processed, reused: allBlobs.length - processed },
  };
}

