import type { ScanResult } from '@quarry/contracts';
import type { BlobPath, Snapshot } from '@quarry/snapshot';

export type { BlobPath };

/**
 * Work a scan does on each blob besides its facts (the code index: tokens, symbols, secrets),
 * stored by blob id somewhere of its own. Shards run `derive` on their blobs once the facts are
 * recorded; the planner asks `missing` so a blob whose facts are known but whose derived row is
 * not is read again; the scan adds `summarize`'s fields to its result.
 */
export interface BlobDerivation {
  /** Of these blobs (with a path each: the path may matter to the derived row), the ids that lack a row. */
  missing(files: readonly BlobPath[]): Promise<Set<string>>;
  /** Derives and stores the rows of a shard's blobs that lack one, reading them from the snapshot; reports files done. */
  derive(snapshot: Snapshot, files: readonly BlobPath[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<void>;
  /**
   * The scan result's fields from the rows of every file of the commit (a row still missing — the
   * same content under a second language, say — is derived here first).
   */
  summarize?(snapshot: Snapshot, files: readonly BlobPath[], signal?: AbortSignal): Promise<DerivedTotals>;
  /** Totals from their `toJSON` (a remembered scan), or undefined when they are not this derivation's. */
  restore?(json: unknown): Promise<DerivedTotals | undefined>;
  /**
   * How shard threads run `derive` themselves (`quarry scan --local`, a worker's directory scan):
   * the module they load, and where the rows they post are stored. Without it, threads record
   * facts only and the rows are derived on the main thread when the result is summed.
   */
  inThreads?(): ThreadDerivation | undefined;
}

export interface ThreadDerivation {
  spec: ThreadDerivationSpec;
  /** Stores rows a thread posted; resolves to how many were new. */
  accept(rows: unknown): Promise<number>;
}

/** The fields a derivation adds to a scan result, kept up to date as files change (a re-scan of a next commit). */
export interface DerivedTotals {
  result(): Partial<ScanResult>;
  /** Takes back `removed` and adds `added`, files of `snapshot` (whose rows it derives first when missing). */
  update(snapshot: Snapshot, changes: { added: readonly BlobPath[]; removed: readonly BlobPath[] }, signal?: AbortSignal): Promise<void>;
  toJSON(): unknown;
}

/**
 * Per-blob work a shard thread runs itself (the code index), named by module: this library cannot
 * import the ones that implement it. The module exports `shardThreadDerivation(settings, post)`
 * (see ThreadDerivationModule); what it posts comes back to the main thread's `accept`.
 */
export interface ThreadDerivationSpec {
  /** The compiled module's absolute path. */
  module: string;
  /** Plain data (structured-cloned): what the module needs to build the derivation. */
  settings: unknown;
}

/** What a ThreadDerivationSpec's module exports. */
export interface ThreadDerivationModule {
  /** A derivation whose rows go to `post` (with the buffers to transfer) instead of a store. */
  shardThreadDerivation(settings: unknown, post: (rows: unknown, transfer: ArrayBuffer[]) => void): BlobDerivation;
}
