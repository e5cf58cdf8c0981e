import type { TokenEncoding } from '../tokens/token-counter';
import type { BlobIndex } from '../index/blob-index';
import { encodedRowOf, type BlobIndexBrief, type BlobIndexStore, type EncodedBlobIndex, type StoredBlobIndex } from './blob-index-store';
import { sharedBlobIndexer } from './index-blobs';
import { CodeIndexScanStep } from './scan-step';

/**
 * The code index run by a shard thread (`@quarry/blob-scan`'s ThreadDerivationModule): the thread
 * parses and counts its shard's blobs and posts the encoded rows to the main thread, whose store
 * keeps them. Loaded by path inside the thread (blob-scan cannot import this library).
 */
export function shardThreadDerivation(settings: unknown, post: (rows: unknown, transfer: ArrayBuffer[]) => void): CodeIndexScanStep {
  const { encoding, chunks } = settings as { encoding: TokenEncoding; chunks: boolean };
  return new CodeIndexScanStep(new PostingBlobIndexStore(post), () => sharedBlobIndexer(encoding, { chunks }));
}

/**
 * A store that keeps nothing and posts every row: the main thread's store decides what is new
 * (insert-or-keep), and the planner gave this shard blobs that had no row.
 */
class PostingBlobIndexStore implements BlobIndexStore {
  constructor(private readonly post: (rows: unknown, transfer: ArrayBuffer[]) => void) {}

  async briefs(): Promise<Map<string, BlobIndexBrief>> {
    return new Map();
  }

  async load(): Promise<Map<string, BlobIndex>> {
    return new Map();
  }

  async loadChunks(): Promise<Map<string, Uint8Array>> {
    return new Map();
  }

  async record(rows: readonly StoredBlobIndex[]): Promise<number> {
    return this.recordEncoded(rows.map(encodedRowOf));
  }

  async recordEncoded(rows: readonly EncodedBlobIndex[]): Promise<number> {
    // One fresh buffer per batch, moved (not copied) to the main thread. The rows' own buffers may
    // be slices of Node's shared pool, which must not be transferred.
    const batch = new Uint8Array(rows.reduce((sum, row) => sum + row.data.byteLength + (row.chunks?.byteLength ?? 0), 0));
    let at = 0;
    const place = (bytes: Uint8Array) => {
      batch.set(bytes, at);
      at += bytes.byteLength;
      return batch.subarray(at - bytes.byteLength, at);
    };
    const posted = rows.map((row) => ({ ...row, data: place(row.data), ...(row.chunks === undefined ? {} : { chunks: place(row.chunks) }) }));
    this.post(posted, [batch.buffer]);
    return rows.length;
  }
}
