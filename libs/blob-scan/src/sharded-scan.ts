import { performance } from 'node:perf_hooks';
import type { JobProgress, ScanResult } from '@quarry/contracts';
import { formatCount } from '@quarry/contracts/format';
import type { Snapshot, SnapshotChanges } from '@quarry/snapshot';
import type { FileMeasure, WalkSkipped } from '@quarry/workspace';
import { factsOf, largestFilesOf, totalsOf } from './assemble';
import type { BlobDerivation, BlobPath } from './blob-derivation';
import type { BlobFactStore } from './blob-facts';
import { DEFAULT_SHARD_LIMITS, planShards, type ShardFile, type ShardLimits, type ShardTask } from './plan';
import type { ShardOutcome } from './run-shard';
import type { RememberedScan, ScanMemory } from './scan-memory';

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
   * Indexes of the whole commit kept beside the scan (the search index): told the commit's blobs
   * as soon as they are known, then, before the scan resolves, what it assembled or what changed.
   */
  indexes?: readonly CommitIndexStep[];
  /**
   * The worker's memory of earlier scans. A scan of a commit whose tree was derived from one
   * remembered here starts from that scan's sums and works only on the files that changed; every
   * scan of a git commit is remembered for the next.
   */
  memory?: ScanMemory;
}

/**
 * An index of a whole commit that the scan of the commit keeps up to date (the search index). The
 * scan hands it what it already has, so the index lists and looks up nothing twice.
 */
export interface CommitIndexStep {
  /**
   * The commit's blobs, as soon as they are known, before anything is looked up or read (a git
   * tree's, before the walk: a few more than the walk keeps, those of ignored files): the index can
   * start its own look-ups of them meanwhile (the search index's segments: 150–250 ms of a kernel
   * re-scan, now beside the walk, the facts' look-up and the shards). Not called by a scan that
   * updates a remembered one: it never lists the whole commit.
   */
  listed?(blobs: ReadonlySet<string>): void;
  /** After a scan of the whole commit: every listed file with its blob, and the facts of all the commit's blobs. */
  assembled(snapshot: Snapshot, commit: { files: readonly BlobPath[]; facts: ReadonlyMap<string, FileMeasure> }, signal: AbortSignal): Promise<void>;
  /** After a scan that updated the remembered scan of commit `changes.base`. */
  changed(snapshot: Snapshot, changes: ScanChanges, signal: AbortSignal): Promise<void>;
}

/** What a scan that started from a remembered one changed (`CommitIndexStep.changed`). */
export interface ScanChanges {
  base: string;
  gained: BlobPath[];
  lost: string[];
  facts: ReadonlyMap<string, FileMeasure>;
  files: number;
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
 *
 * When the commit's tree was derived from a commit whose scan `memory` holds (a re-scan after a
 * push), only the files that differ are looked at, and that scan's sums are updated (`rescan`).
 */
export async function shardedScan(snapshot: Snapshot, options: ShardedScanOptions): Promise<ShardedScanResult> {
  const started = performance.now();
  options.signal.throwIfAborted();
  options.onProgress?.({ stage: 'listing', done: 0 });
  const remembering = rememberingOf(snapshot, options);
  if (remembering && snapshot.changesSince) {
    const changes = await snapshot.changesSince(options.signal);
    const base = changes && (await remembering.memory.take(remembering.repository, changes.base, remembering.settings, options.derive));
    if (changes && base) {
      const result = await rescan(snapshot, options, changes, base, started);
      if (result) return result;
    }
  }
  return fullScan(snapshot, options, started);
}

/** Where and under what settings a scan of this snapshot is remembered: git commits only (a directory changes under it). */
function rememberingOf(snapshot: Snapshot, options: ShardedScanOptions): { memory: ScanMemory; repository: string; settings: string } | undefined {
  if (!options.memory || snapshot.kind !== 'git' || !('git' in snapshot.source)) return undefined;
  return { memory: options.memory, repository: snapshot.source.git, settings: `${options.derive ? 'derived' : 'facts'} ${largestFilesOf(options.largestFiles)}` };
}

async function fullScan(snapshot: Snapshot, options: ShardedScanOptions, started: number): Promise<ShardedScanResult> {
  const { signal, onProgress, store } = options;
  // A git tree names its blobs before the walk: their facts are looked up beside it, and a step
  // after the scan starts its own look-ups (a kernel re-scan's walk and listing, ~150 ms, no
  // longer come before them).
  const treeBlobs = snapshot.treeBlobs && new Set(snapshot.treeBlobs());
  if (treeBlobs) for (const step of options.indexes ?? []) step.listed?.(treeBlobs);
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
  if (!treeBlobs) for (const step of options.indexes ?? []) step.listed?.(listedBlobs);
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
  const { outcomes, shards, workerIds, processed } = await readShards(toRead, listing.files.length, options);

  let indexOf: Map<string, number> | undefined;
  for (const outcome of outcomes) {
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

  const totals = totalsOf({ files: zip(paths, blobs), facts, largestFiles: options.largestFiles });
  const result = totals.result(snapshot.root, listing.skipped, Math.round(performance.now() - started));
  // Every listed file with its blob, made once for both consumers (78k pairs on a kernel).
  const files = options.indexes?.length || options.derive?.summarize ? pathsOf(paths, blobs, () => true) : [];
  const derived = options.derive?.summarize ? await options.derive.summarize(snapshot, files, signal) : undefined;
  const remembering = rememberingOf(snapshot, options);
  await remembering?.memory.keep(remembering.repository, { commit: snapshot.source.commit, settings: remembering.settings, totals, skipped: listing.skipped, listed: paths.length, blobs: allBlobs.size, derived });
  // The indexes of the commit last: a scan's result names a commit whose indexes are complete.
  // No progress event: the bar is full, and a new stage must not count it down again.
  for (const step of options.indexes ?? []) await step.assembled(snapshot, { files, facts }, signal);
  return {
    ...result,
    ...derived?.result(),
    shards,
    workers: workerIds.length,
    workerIds,
    blobs: { total: allBlobs.size, processed, reused: allBlobs.size - processed },
  };
}

/**
 * A scan of a commit that differs from a remembered one by `changes`: the remembered sums, less
 * the files that went or changed, plus those that came; only new blobs are read. Undefined (the
 * caller scans afresh) when one of the largest files went and the list would need the whole tree.
 */
async function rescan(snapshot: Snapshot, options: ShardedScanOptions, changes: SnapshotChanges, base: RememberedScan, started: number): Promise<ShardedScanResult | undefined> {
  const { signal, store } = options;
  const { removed, added } = changes;
  // Distinct blobs gained (no file of the base's walk held them) and lost (no file of this one does).
  const firstPath = new Map<string, string>();
  for (const file of added) if (!firstPath.has(file.blob)) firstPath.set(file.blob, file.path);
  const gained: BlobPath[] = [];
  const lost: string[] = [];
  for (const [blob, { before, after }] of changes.blobCounts) {
    if (before === 0 && after > 0) gained.push({ path: firstPath.get(blob) as string, blob });
    else if (before > 0 && after === 0) lost.push(blob);
  }
  const distinctBlobs = base.blobs + gained.length - lost.length;

  const facts = await store.lookup([...changes.blobCounts.keys()]);
  const totals = base.totals;
  for (const file of removed) totals.remove(file.path, factsOf(file.blob, facts));
  if (!totals.exact) return undefined;
  const underived = options.derive ? await options.derive.missing(added.filter((file) => facts.has(file.blob))) : new Set<string>();
  const toRead: ShardFile[] = [];
  const seen = new Set<string>();
  for (const file of added) {
    if ((facts.has(file.blob) && !underived.has(file.blob)) || seen.has(file.blob)) continue;
    seen.add(file.blob);
    toRead.push({ path: file.path, blob: file.blob });
  }
  const listed = base.listed - removed.length + added.length;
  const { shards, workerIds, processed } = await readShards(toRead, listed, options);
  const unread = toRead.filter((file) => !facts.has(file.blob as string)).map((file) => file.blob as string);
  if (unread.length > 0) for (const [blob, measure] of await store.lookup(unread)) facts.set(blob, measure);

  for (const file of added) totals.add(file.path, factsOf(file.blob, facts));
  const skipped = addSkipped(addSkipped(base.skipped, changes.skipped.before, -1), changes.skipped.after, 1);
  const result = totals.result(snapshot.root, skipped, Math.round(performance.now() - started));
  await base.derived?.update(snapshot, { added, removed }, signal);
  const remembering = rememberingOf(snapshot, options);
  await remembering?.memory.keep(remembering.repository, { ...base, commit: snapshot.source.commit, skipped, listed, blobs: distinctBlobs });
  for (const step of options.indexes ?? []) await step.changed(snapshot, { base: changes.base, gained, lost, facts, files: listed }, signal);
  return {
    ...result,
    ...base.derived?.result(),
    shards,
    workers: workerIds.length,
    workerIds,
    blobs: { total: distinctBlobs, processed, reused: distinctBlobs - processed },
    updatedFrom: changes.base,
  };
}

/**
 * Reads `toRead` as shards through the executor (in place when they are few and the scan allows
 * it), with one progress bar over the scan's `total` files: those not read count as done at once.
 */
async function readShards(toRead: ShardFile[], total: number, options: ShardedScanOptions): Promise<{ outcomes: ShardOutcome[]; shards: number; workerIds: string[]; processed: number }> {
  const { onProgress, signal } = options;
  const limits = options.limits ?? DEFAULT_SHARD_LIMITS;
  const tasks = planShards(toRead, options.derive ? derivedWorkLimits(limits) : limits);
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
      message: `indexing ${formatCount(skippedFiles + doneSum)} / ${formatCount(total)} files · ${Math.max(1, workersSeen.size)} worker${workersSeen.size > 1 ? 's' : ''}`,
    });
  };
  report(true);
  const inlineBelowFiles = options.inline ? (options.inlineBelowFiles ?? INLINE_BELOW_FILES) : 0;
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
  const workerIds = [...new Set(outcomes.map((outcome) => outcome.worker))].sort();
  return { outcomes, shards: tasks.length, workerIds, processed: outcomes.reduce((sum, outcome) => sum + outcome.processed, 0) };
}

function addSkipped(to: WalkSkipped, counts: WalkSkipped, sign: 1 | -1): WalkSkipped {
  return {
    ignored: to.ignored + sign * counts.ignored,
    symlinks: to.symlinks + sign * counts.symlinks,
    unreadable: to.unreadable + sign * counts.unreadable,
    special: to.special + sign * counts.special,
  };
}

/** A derived-work shard holds at most an eighth of what is left to plan: enough for up to ~4 workers to end together. */
const DERIVED_WORK_TAPER = 8;

/**
 * Shards of a scan that also derives per-blob work (the code index: tokens, a parse, references)
 * are a quarter of the configured size. That work costs ~25× the facts per byte, so a full-size
 * shard ran for ~10 s on the Linux kernel: the last ones kept one worker busy while the others
 * idled (1→2 workers 1.77×), and a failed one had more to redo. They also taper
 * (ShardLimits.taper): with quarter-size shards alone, one of two shard threads still idled for a
 * tenth of a scan of Linux `fs/` (46 MB) while the other ran the last 8 MB shard.
 */
export function derivedWorkLimits(limits: ShardLimits): ShardLimits {
  return { maxFiles: Math.max(1, Math.ceil(limits.maxFiles / 4)), maxBytes: Math.max(1, Math.ceil(limits.maxBytes / 4)), taper: DERIVED_WORK_TAPER };
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
