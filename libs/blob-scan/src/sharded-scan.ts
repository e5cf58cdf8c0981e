import { performance } from 'node:perf_hooks';
import type { JobProgress, ScanResult } from '@quarry/contracts';
import { number } from '@quarry/render';
import type { Snapshot } from '@quarry/snapshot';
import type { FileMeasure } from '@quarry/workspace';
import { assembleScan } from './assemble';
import type { BlobDerivation } from './blob-derivation';
import type { BlobFactStore } from './blob-facts';
import { DEFAULT_SHARD_LIMITS, planShards, type ShardFile, type ShardLimits, type ShardTask } from './plan';
import type { ShardOutcome } from './run-shard';

/** Runs a scan's shards somewhere: as child jobs on any worker, or in this process. */
export interface ShardExecutor {
  /** Resolves once every shard succeeded, in task order; rejects with the first shard that failed for good. */
  run(tasks: readonly ShardTask[], options: { signal: AbortSignal; onProgress: (index: number, done: number, worker?: string) => void }): Promise<ShardOutcome[]>;
  /**
   * Starts what running shards will need (an in-process scan's threads), called once the listing
   * has found more files than a scan reads inline, so that start-up overlaps the rest of the walk.
   */
  prepare?(): void;
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
  /**
   * Per-blob work beyond the facts (the code index), which the executors' shards run: blobs it
   * lacks are read again even when their facts are known, and it adds to the result.
   */
  derive?: BlobDerivation;
  /**
   * Called once the result is assembled, with every listed file's blob and the facts of all the
   * commit's blobs: what a step after the scan (the search index's manifest) would otherwise list
   * and look up again.
   */
  onAssembled?: (files: ReadonlyArray<{ path: string; blob: string }>, facts: ReadonlyMap<string, FileMeasure>) => void;
  /**
   * Called as soon as the commit's blobs are known, before anything is looked up or read (a git
   * tree's, before the walk: a few more than the walk keeps, those of ignored files): a step after
   * the scan can start its own look-ups of them meanwhile (the search index's segments: 150–250 ms
   * of a kernel re-scan, now beside the walk, the facts' look-up and the shards).
   */
  onListed?: (blobs: ReadonlySet<string>) => void;
}

/** A scan with this few files left to read runs them in place when it can (`inline`). */
export const INLINE_BELOW_FILES = 256;

/** The progress bar of a scan is redrawn at most this often. */
const REPORT_EVERY_MS = 50;

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
  // A git tree names its blobs before the walk: their facts are looked up beside it, and a step
  // after the scan starts its own look-ups (a kernel re-scan's walk and listing, ~150 ms, no
  // longer come before them).
  const treeBlobs = snapshot.treeBlobs && new Set(snapshot.treeBlobs());
  if (treeBlobs) options.onListed?.(treeBlobs);
  const early = treeBlobs && store.lookup([...treeBlobs]);
  early?.catch(() => undefined); // awaited below
  snapshot.prepareListedBlobs?.(signal);
  const inlineBelowFiles = options.inline ? (options.inlineBelowFiles ?? INLINE_BELOW_FILES) : 0;
  let executorPrepared = !options.executor.prepare;
  const listing = await snapshot.walk({
    signal,
    onProgress: (found) => {
      if (!executorPrepared && found > inlineBelowFiles) {
        executorPrepared = true;
        options.executor.prepare?.();
      }
      onProgress?.({ stage: 'listing', done: 0, message: `${found} files found` });
    },
  });

  // The blob of every file when the snapshot lists them (a git tree); a directory's are learnt by
  // reading. Kept as two parallel arrays, not a map by path: a re-scan of a kernel tree spends its
  // time on exactly these 78k-entry structures.
  const paths = listing.files;
  const blobs: Array<string | undefined> = (await snapshot.listedBlobs?.(paths)) ?? new Array<string | undefined>(paths.length).fill(undefined);
  const listedBlobs = setOf(blobs);
  if (!treeBlobs) options.onListed?.(listedBlobs);
  const known = early ? await early : await store.lookup([...listedBlobs]);
  const underived = options.derive ? await options.derive.missing(pathsOf(paths, blobs, (blob) => known.has(blob))) : new Set<string>();

  const toRead: ShardFile[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < paths.length; index++) {
    const blob = blobs[index];
    if (blob === undefined) toRead.push({ path: paths[index] });
    else if ((!known.has(blob) || underived.has(blob)) && !seen.has(blob)) {
      seen.add(blob);
      const stat = snapshot.listedStat?.(paths[index]);
      toRead.push(stat ? { path: paths[index], blob, bytes: stat.bytes, mtimeMs: stat.mtimeMs } : { path: paths[index], blob });
    }
  }
  const limits = options.limits ?? DEFAULT_SHARD_LIMITS;
  const tasks = planShards(toRead, options.derive ? derivedWorkLimits(limits) : limits);

  const total = listing.files.length;
  const skippedFiles = total - toRead.length;
  const shardDone = new Array<number>(tasks.length).fill(0);
  let doneSum = 0;
  /** Workers seen running a shard so far (the bar's "· K workers"); the result counts those that finished one. */
  const workersSeen = new Set<string>();
  // Shards report every file; the bar is redrawn at most every REPORT_EVERY_MS (and when a worker
  // joins): formatting it 78k times was a tenth of a path scan's main-thread time.
  let lastReport = Number.NEGATIVE_INFINITY;
  let workersReported = 0;
  const report = (force = false) => {
    const now = performance.now();
    if (!force && now - lastReport < REPORT_EVERY_MS && workersSeen.size === workersReported) return;
    lastReport = now;
    workersReported = workersSeen.size;
    onProgress?.({
      stage: 'reading',
      done: skippedFiles + doneSum,
      total,
      message: `indexing ${number(skippedFiles + doneSum)} / ${number(total)} files · ${Math.max(1, workersSeen.size)} worker${workersSeen.size > 1 ? 's' : ''}`,
    });
  };
  report(true);
  const executor = options.inline && toRead.length <= inlineBelowFiles ? options.inline : options.executor;
  const outcomes = tasks.length === 0 ? [] : await executor.run(tasks, {
    signal,
    onProgress: (index, done, worker) => {
      if (worker) workersSeen.add(worker);
      doneSum += Math.max(0, done - shardDone[index]);
      shardDone[index] = Math.max(shardDone[index], done);
      report();
    },
  });
  if (tasks.length > 0) report(true);

  const finishedBy = new Set<string>();
  let indexOf: Map<string, number> | undefined;
  for (const outcome of outcomes) {
    finishedBy.add(outcome.worker);
    if (outcome.blobs.length === 0) continue;
    snapshot.learnBlobs?.(outcome.blobs);
    indexOf ??= new Map(paths.map((path, index) => [path, index]));
    for (const [path, blob] of outcome.blobs) {
      const index = indexOf.get(path);
      if (index !== undefined) blobs[index] = blob;
    }
  }
  // The facts of the blobs just read join the known ones in place (no copies of 78k-entry maps:
  // this last step is where a big scan's worker peaked in memory).
  const allBlobs = listedBlobs;
  if (indexOf) for (const blob of blobs) if (blob !== undefined) allBlobs.add(blob);
  const missing: string[] = [];
  for (const blob of allBlobs) if (!known.has(blob)) missing.push(blob);
  const facts: Map<string, FileMeasure> = known;
  if (missing.length > 0) for (const [blob, measure] of await store.lookup(missing)) facts.set(blob, measure);
  const processed = outcomes.reduce((sum, outcome) => sum + outcome.processed, 0);

  const result = assembleScan({
    root: snapshot.root,
    files: zip(paths, blobs),
    facts,
    skipped: listing.skipped,
    largestFiles: options.largestFiles,
    durationMs: Math.round(performance.now() - started),
  });
  options.onAssembled?.(pathsOf(paths, blobs, () => true), facts);
  const derived = options.derive?.summarize ? await options.derive.summarize(snapshot, pathsOf(paths, blobs, () => true), signal) : {};
  const workerIds = [...finishedBy].sort();
  return {
    ...result,
    ...derived,
    shards: tasks.length,
    workers: workerIds.length,
    workerIds,
    blobs: { total: allBlobs.size, processed, reused: allBlobs.size - processed },
  };
}

/**
 * Shards of a scan that also derives per-blob work (the code index: tokens, a parse, references)
 * are a quarter of the configured size. That work costs ~25× the facts per byte, so a full-size
 * shard ran for ~10 s on the Linux kernel: the last ones kept one worker busy while the others
 * idled (1→2 workers 1.77×), and a failed one had more to redo.
 */
export function derivedWorkLimits(limits: ShardLimits): ShardLimits {
  return { maxFiles: Math.max(1, Math.ceil(limits.maxFiles / 4)), maxBytes: Math.max(1, Math.ceil(limits.maxBytes / 4)) };
}

function setOf(blobs: ReadonlyArray<string | undefined>): Set<string> {
  const set = new Set<string>();
  for (const blob of blobs) if (blob !== undefined) set.add(blob);
  return set;
}

function* zip<A, B>(first: readonly A[], second: readonly B[]): Generator<[A, B]> {
  for (let index = 0; index < first.length; index++) yield [first[index], second[index]];
}

/** The (path, blob) pairs of the files whose blob is known and passes `keep`. */
function pathsOf(paths: readonly string[], blobs: ReadonlyArray<string | undefined>, keep: (blob: string) => boolean): { path: string; blob: string }[] {
  const pairs: { path: string; blob: string }[] = [];
  for (let index = 0; index < paths.length; index++) {
    const blob = blobs[index];
    if (blob !== undefined && keep(blob)) pairs.push({ path: paths[index], blob });
  }
  return pairs;
}
