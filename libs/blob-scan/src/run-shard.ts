import type { Snapshot } from '@quarry/snapshot';
import { measureContent, type ExpectedStat, type FileMeasure } from '@quarry/workspace';
import { factOf, type BlobFact, type BlobFactStore } from './blob-facts';
import type { BlobDerivation } from './blob-derivation';
import type { ShardFile } from './plan';

/** What a shard reports back to its scan. */
export interface ShardOutcome {
  /** Who ran it (QUARRY_WORKER_ID, else host:pid). */
  worker: string;
  /** Blobs this run added to the store (0 for a shard that ran before and is repeated). */
  processed: number;
  /** The blob each file turned out to have, for files listed without one (a directory source). */
  blobs: Array<[path: string, blob: string]>;
}

/**
 * Builds what a search index needs from a shard's files (@quarry/search-index's trigram
 * segments): handed the bytes the shard reads as it reads them (no second read), it reads what
 * it was not handed (measures served from a cache) and saves its work in `finish`, after the
 * shard's facts are recorded.
 */
export interface ShardIndexer {
  start(snapshot: Snapshot, files: readonly ShardFile[], signal?: AbortSignal): ShardIndexBuild;
}

export interface ShardIndexBuild {
  add(path: string, content: Buffer, blob?: string): void;
  finish(): Promise<unknown>;
}

export interface RunShardOptions {
  worker: string;
  index?: ShardIndexer;
  signal?: AbortSignal;
  /** Files done so far in this shard. */
  onProgress?: (done: number) => void;
  /** Per-blob work beyond the facts (the code index), run on the shard's blobs after them. */
  derive?: BlobDerivation;
}

/** Facts are written in batches this size while the shard runs: a killed shard leaves its finished batches. */
const RECORD_BATCH = 1_000;

/**
 * Reads one shard's files from this worker's own snapshot (for a git commit: only these blobs
 * are fetched, in one batch) and records each blob's facts. Files listed with their blob (a git
 * tree) are measured through the snapshot, whose per-blob measure cache spares repeats; files
 * without (a directory) are read once for both their blob id and their measure.
 */
export async function runShard(snapshot: Snapshot, files: readonly ShardFile[], store: BlobFactStore, options: RunShardOptions): Promise<ShardOutcome> {
  const { signal } = options;
  // With a derivation, reading the facts is the quick part: the bar follows the derivation instead.
  const onProgress = options.derive ? undefined : options.onProgress;
  const outcome: ShardOutcome = { worker: options.worker, processed: 0, blobs: [] };
  let pending: BlobFact[] = [];
  let done = 0;
  let writes: Promise<void> = Promise.resolve();
  const flush = () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    writes = writes.then(async () => {
      outcome.processed += await store.record(batch);
    });
    writes.catch(() => undefined); // awaited at the end; a failed write fails the shard there
  };
  const add = (blob: string, measure: FileMeasure) => {
    const fact = factOf(blob, measure);
    if (fact) pending.push(fact);
    onProgress?.(++done);
    if (pending.length >= RECORD_BATCH) flush();
  };

  const indexing = options.index?.start(snapshot, files, signal);
  const known = files.filter((file) => file.blob !== undefined);
  /** Checkout files not as git's index vouched for them once read (written since): read again below, and hashed. */
  const moved = new Set<string>();
  if (known.length > 0) {
    const blobOf = new Map(known.map((file) => [file.path, file.blob as string]));
    // A checkout's file is its listed blob only while it has the stat git's index vouched for it at.
    const expected = new Map<string, ExpectedStat>();
    for (const file of known) if (file.mtimeMs !== undefined && file.bytes !== undefined) expected.set(file.path, { bytes: file.bytes, mtimeMs: file.mtimeMs });
    await snapshot.measure(
      known.map((file) => file.path),
      (path, measure) => {
        if (measure.kind === 'unreadable' && expected.has(path)) moved.add(path);
        else add(blobOf.get(path) as string, measure);
      },
      { signal, onContent: indexing && ((path, content) => indexing.add(path, content)), expect: expected.size > 0 ? (path) => expected.get(path) : undefined },
    );
  }
  for (const file of files) {
    if (file.blob !== undefined && !moved.has(file.path)) continue;
    signal?.throwIfAborted();
    const read = await snapshot.readBlob(file.path);
    if (!read) {
      onProgress?.(++done);
      continue;
    }
    outcome.blobs.push([file.path, read.blob]);
    add(read.blob, measureContent(read.content));
    indexing?.add(file.path, read.content, read.blob);
  }
  flush();
  await writes;
  await indexing?.finish();
  await options.derive?.derive(snapshot, [...files.flatMap((file) => (file.blob === undefined ? [] : [{ path: file.path, blob: file.blob }])), ...outcome.blobs.map(([path, blob]) => ({ path, blob }))], signal, options.onProgress);
  if (options.derive) options.onProgress?.(files.length);
  return outcome;
}
