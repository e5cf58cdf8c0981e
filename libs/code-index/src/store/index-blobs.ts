import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { BlobIndexer, indexBlob, type BlobIndex } from '../index/blob-index';
import { DEFAULT_TOKEN_ENCODING, type TokenEncoding } from '../tokens/token-counter';
import { blobIndexKey, distinctKeys, encodedRowOf, indexVariant, type BlobIndexStore, type EncodedBlobIndex } from './blob-index-store';

/** One file whose blob may need indexing: a path (its language) and the blob id. */
export interface BlobFile {
  path: string;
  blob: string;
}

export interface IndexBlobsOptions {
  store: BlobIndexStore;
  indexer: BlobIndexer;
  /** Reads a file's bytes (a snapshot's `readFile`); undefined: gone, nothing to index. */
  read: (path: string) => Promise<Buffer | undefined>;
  /** Makes the files about to be read local in one batch (a git snapshot's missing blobs). */
  prefetch?: (paths: readonly string[]) => Promise<void> | undefined;
  signal?: AbortSignal;
  /** Files looked at so far (indexed or already stored). */
  onProgress?: (done: number) => void;
  /** Each index as it is made (the caller may keep it; the default drops it once stored). */
  onIndexed?: (file: BlobFile, index: BlobIndex) => void;
}

/** Rows are written in batches of this many (or RECORD_BATCH_BYTES of content indexed). */
const RECORD_BATCH = 500;
const RECORD_BATCH_BYTES = 16 * 1024 * 1024;
/** Indexing is synchronous: the event loop gets a turn at least this often (lock renewals, progress, cancel). */
const SLICE_MS = 50;

/**
 * Indexes the blobs of `files` that the store has no row for, in the indexer's encoding: each is
 * read, indexed, encoded, queued for writing and dropped, so memory holds one file's text and a
 * batch of encoded rows (off the heap), whatever the shard's size. Resolves to how many rows were new.
 */
export async function indexMissingBlobs(files: readonly BlobFile[], options: IndexBlobsOptions): Promise<number> {
  const { store, indexer, signal } = options;
  const encoding = indexer.encoding;
  const known = await store.briefs(distinctKeys(files), encoding);
  const toIndex = files.filter((file) => !known.has(blobIndexKey(file.blob, indexVariant(file.path))));
  if (toIndex.length > 0) await options.prefetch?.(toIndex.map((file) => file.path));
  let added = 0;
  // Encoded as soon as made: a row waiting for its write is its compressed bytes, off the heap, not
  // a decoded index whose names still point into its file's text.
  let pending: EncodedBlobIndex[] = [];
  let pendingBytes = 0;
  let writes: Promise<void> = Promise.resolve();
  /**
   * Queues the pending rows for writing; resolves once the batch before them is written, so one
   * batch is written while the next is made and no more: indexing is faster than a database
   * write, and unawaited batches piled up until a worker with README's 192 MB heap ran out of it
   * on the Linux kernel.
   */
  const flush = async () => {
    const batch = pending;
    pending = [];
    pendingBytes = 0;
    if (batch.length === 0) return;
    const before = writes;
    writes = before.then(async () => {
      added += await store.recordEncoded(batch);
    });
    writes.catch(() => undefined); // awaited at the end: a failed write fails the caller there
    await before;
  };
  const seen = new Set<string>(known.keys());
  let sliceStarted = performance.now();
  let done = 0;
  for (const file of files) {
    if (performance.now() - sliceStarted > SLICE_MS) {
      signal?.throwIfAborted();
      options.onProgress?.(done);
      await yieldToEventLoop();
      sliceStarted = performance.now();
    }
    done++;
    const variant = indexVariant(file.path);
    const key = blobIndexKey(file.blob, variant);
    if (seen.has(key)) continue;
    seen.add(key);
    const content = await options.read(file.path);
    if (content === undefined) continue;
    const index = indexBlob(indexer, file.path, content);
    options.onIndexed?.(file, index);
    pending.push(encodedRowOf({ blob: file.blob, variant, index }));
    pendingBytes += content.byteLength;
    if (pending.length >= RECORD_BATCH || pendingBytes >= RECORD_BATCH_BYTES) {
      await flush();
      sliceStarted = performance.now();
    }
  }
  await flush();
  await writes;
  options.onProgress?.(done);
  return added;
}

const indexers = new Map<TokenEncoding, Promise<BlobIndexer>>();

/**
 * One indexer per process and encoding (grammars and tokenizer load once, ~1 s); `chunks: false`
 * gives it without retrieval's chunk rows (BlobIndexer.withoutChunks).
 */
export async function sharedBlobIndexer(encoding: TokenEncoding = DEFAULT_TOKEN_ENCODING, options: { chunks?: boolean } = {}): Promise<BlobIndexer> {
  let indexer = indexers.get(encoding);
  if (indexer === undefined) {
    indexer = BlobIndexer.create({ encoding });
    indexer.catch(() => indexers.delete(encoding));
    indexers.set(encoding, indexer);
  }
  return options.chunks === false ? (await indexer).withoutChunks() : indexer;
}
