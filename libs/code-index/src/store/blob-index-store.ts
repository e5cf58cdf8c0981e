import { languageOf } from '@quarry/workspace';
import type { BlobIndex } from '../index/blob-index';
import { decodeBlobIndex, encodeBlobIndex } from '../index/blob-index-codec';
import { languageSpecFor } from '../symbols/language-specs';
import type { TokenEncoding } from '../tokens/token-counter';

/**
 * A blob's index depends on its content (the blob id), on how its path is read (the language,
 * and TSX vs TypeScript: the same bytes at `a.h` and `a.hpp` parse with different grammars) and
 * on the token encoding. Those three name a stored row; everything else about the path (its
 * directory, its commit, its repository) does not matter, so one row serves every commit.
 */
export interface BlobIndexKey {
  blob: string;
  /** `indexVariant(path)`: the language as the index reads the path. */
  variant: string;
}

/**
 * What a blob's index is made of changes with the indexer: bumping this keys every row anew, so
 * rows of an older indexer are never read again and each blob is indexed once more by the next
 * scan (2: occurrences, imports and packages for navigation; 3: bindings, receiver expressions and
 * returned names in the occurrences, for inferring what a member is reached through; 4: retrieval's
 * chunk row, `BlobIndex.chunks`, so a context query on an indexed commit reads no file; 5: the
 * credentials of env and INI lines that end in `\r\n`, which the line patterns had missed).
 */
export const BLOB_INDEX_VERSION = 5;

/**
 * Changes of one language's extraction since `BLOB_INDEX_VERSION` was last bumped: only that
 * language's rows are keyed anew (`C@3.1`), the others' stay valid. C 1: function bodies and
 * top-level initializers are lexed, not parsed (symbols/c-bodies.ts), which drops the bogus
 * definitions tree-sitter made of macro loops inside bodies (`for_each_cpu(i) {`) and fixes
 * extents it lost there. (Kept through versions 4 and 5: it is the mechanism's one user, and `C@5.1`
 * names version-5 rows as well as `C@5` would.)
 */
export const LANGUAGE_INDEX_REVISIONS: Readonly<Record<string, number>> = { C: 1 };

/**
 * How a path is read by the indexer: Quarry's language name, `TypeScript/tsx` for TSX files,
 * with the indexer's version (`TypeScript@5`; `C@5.1` with a revision of its language).
 */
export function indexVariant(path: string): string {
  const language = languageOf(path);
  const spec = languageSpecFor(language, path);
  const revision = language !== undefined && Object.hasOwn(LANGUAGE_INDEX_REVISIONS, language) ? `.${LANGUAGE_INDEX_REVISIONS[language]}` : '';
  return `${spec !== undefined && spec !== languageSpecFor(language, 'x.ts') ? `${language}/tsx` : language}@${BLOB_INDEX_VERSION}${revision}`;
}

export function blobIndexKey(blob: string, variant: string): string {
  return `${blob} ${variant}`;
}

/** A stored index's scalar columns, readable without decoding it: what totals and pack need. */
export interface BlobIndexBrief {
  binary: boolean;
  bytes: number;
  tokens: number;
  definitions: number;
  /** Credentials found: > 0 means the full row is needed to redact them. */
  secrets: number;
  warnings: number;
  symbols: BlobIndex['symbols'];
}

export function briefOf(index: BlobIndex): BlobIndexBrief {
  return {
    binary: index.binary,
    bytes: index.bytes,
    tokens: index.tokens,
    definitions: index.definitions.length,
    secrets: index.secrets.length,
    warnings: index.warnings.length,
    symbols: index.symbols,
  };
}

export interface StoredBlobIndex extends BlobIndexKey {
  index: BlobIndex;
}

/**
 * A row in its stored form (`encodeBlobIndex`) with its scalar columns: what a shard thread hands
 * over. The chunk row is a section of its own (`BlobIndex.chunks`, already encoded), so loads that
 * do not rank (briefs, symbol look-ups, maps) neither fetch nor decode it.
 */
export interface EncodedBlobIndex extends BlobIndexKey {
  encoding: TokenEncoding;
  brief: BlobIndexBrief;
  data: Uint8Array;
  chunks?: Uint8Array;
}

export function encodedRowOf(row: StoredBlobIndex): EncodedBlobIndex {
  const encoded: EncodedBlobIndex = { blob: row.blob, variant: row.variant, encoding: row.index.encoding, brief: briefOf(row.index), data: encodeBlobIndex(row.index) };
  if (row.index.chunks !== undefined) encoded.chunks = row.index.chunks;
  return encoded;
}

/**
 * Where blob indexes live: Postgres (`blob_code_index`, @quarry/db) for workers, memory for a
 * process of its own (`quarry … --local`). Maps are keyed by `blobIndexKey(blob, variant)`.
 */
export interface BlobIndexStore {
  /** The scalar columns of the rows known in `encoding` (absent keys are missing). */
  briefs(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, BlobIndexBrief>>;
  /** The rows, decoded, without their chunk rows (`chunks` is undefined: see `loadChunks`). */
  load(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, BlobIndex>>;
  /** The encoded chunk rows (`BlobIndex.chunks`) of the rows that have one: what the retrieval corpus reads. */
  loadChunks(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, Uint8Array>>;
  /**
   * Insert-or-keep: a row is a function of its key, so a repeat (a retried shard, two workers
   * indexing the same blob) changes nothing. Resolves to how many rows were new.
   */
  record(rows: readonly StoredBlobIndex[]): Promise<number>;
  /** `record` for rows already encoded (a shard thread's), stored as they are. */
  recordEncoded(rows: readonly EncodedBlobIndex[]): Promise<number>;
}

/** Distinct keys of a commit's files (several paths may share a blob and variant). */
export function distinctKeys(files: Iterable<{ path: string; blob: string }>): BlobIndexKey[] {
  const keys = new Map<string, BlobIndexKey>();
  for (const file of files) {
    const variant = indexVariant(file.path);
    const key = blobIndexKey(file.blob, variant);
    if (!keys.has(key)) keys.set(key, { blob: file.blob, variant });
  }
  return [...keys.values()];
}

/** The store of one process: rows kept encoded (about 1.3 KB a blob, 2–4× that again for the chunk row), as Postgres would hold them. */
export class MemoryBlobIndexStore implements BlobIndexStore {
  private readonly rows = new Map<string, { brief: BlobIndexBrief; data: Buffer; chunks?: Buffer }>();

  get size(): number {
    return this.rows.size;
  }

  async briefs(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, BlobIndexBrief>> {
    const found = new Map<string, BlobIndexBrief>();
    for (const key of keys) {
      const row = this.rows.get(storeKey(key, encoding));
      if (row) found.set(blobIndexKey(key.blob, key.variant), row.brief);
    }
    return found;
  }

  async load(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, BlobIndex>> {
    const found = new Map<string, BlobIndex>();
    for (const key of keys) {
      const row = this.rows.get(storeKey(key, encoding));
      if (row) found.set(blobIndexKey(key.blob, key.variant), decodeBlobIndex(row.data));
    }
    return found;
  }

  async loadChunks(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    for (const key of keys) {
      const chunks = this.rows.get(storeKey(key, encoding))?.chunks;
      if (chunks !== undefined) found.set(blobIndexKey(key.blob, key.variant), chunks);
    }
    return found;
  }

  async record(rows: readonly StoredBlobIndex[]): Promise<number> {
    return this.recordEncoded(rows.map(encodedRowOf));
  }

  async recordEncoded(rows: readonly EncodedBlobIndex[]): Promise<number> {
    let added = 0;
    for (const row of rows) {
      const key = storeKey(row, row.encoding);
      if (this.rows.has(key)) continue;
      this.rows.set(key, { brief: row.brief, data: asBuffer(row.data), ...(row.chunks === undefined ? {} : { chunks: asBuffer(row.chunks) }) });
      added++;
    }
    return added;
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function storeKey(key: BlobIndexKey, encoding: TokenEncoding): string {
  return `${key.blob} ${key.variant} ${encoding}`;
}
