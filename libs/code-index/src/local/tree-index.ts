import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { JobProgress } from '@quarry/contracts';
import { languageOf } from '@quarry/workspace';
import { BlobIndexer, type BlobIndex } from '../index/blob-index';
import { SymbolTable } from '../lookup/symbol-table';
import { listLocalTree, type TreeEntry, type TreeListing } from './local-tree';

/** One indexed file of a tree. */
export interface IndexedFile {
  path: string;
  index: BlobIndex;
}

/** A tree at one state with every file indexed; its symbol table is built on first use. */
export interface IndexedTree {
  root: string;
  state: string;
  files: IndexedFile[];
  /** Files left out because their names mark them as credentials. */
  secretFiles: number;
  symbolTable(): SymbolTable;
}

export interface TreeIndexOptions {
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
}

export interface CodeIndexCacheOptions {
  /** Trees (root + state) kept with their symbol tables (default 4). */
  maxTrees?: number;
  /** Per-file indexes kept across tree states, so an edit re-indexes one file (default 200,000). */
  maxBlobs?: number;
  /** The indexer, created on first use (grammars and tokenizer load once per cache). */
  indexer?: () => Promise<BlobIndexer>;
}

/** Index work is synchronous; the event loop gets a turn at least this often (lock renewals, progress, cancel). */
const SLICE_MS = 50;

/** The per-file index: a pure function of the path (its language) and the content. */
export function indexBlob(indexer: BlobIndexer, filePath: string, content: Uint8Array): BlobIndex {
  return indexer.index({ path: filePath, language: languageOf(filePath), content });
}

/**
 * The code index of local trees, built once per tree state and kept (bounded): a worker answering
 * many `@symbol:` mentions, maps or symbol lookups on one repository reads and parses it once,
 * and after an edit re-indexes only the files whose version changed. Per-file results are keyed by
 * (path, version) today; with trees from snapshots the key becomes the blob id, and the rows can
 * come from the store the distributed scan fills.
 */
export class CodeIndexCache {
  private readonly maxTrees: number;
  private readonly maxBlobs: number;
  private readonly makeIndexer: () => Promise<BlobIndexer>;
  private indexer?: Promise<BlobIndexer>;
  /** Most recently used last. */
  private readonly trees = new Map<string, Promise<IndexedTree>>();
  private readonly blobs = new Map<string, BlobIndex>();

  constructor(options: CodeIndexCacheOptions = {}) {
    this.maxTrees = Math.max(1, options.maxTrees ?? 4);
    this.maxBlobs = Math.max(1, options.maxBlobs ?? 200_000);
    this.makeIndexer = options.indexer ?? (() => BlobIndexer.create());
  }

  /** The indexer this cache uses (for `compress` in pack). */
  async blobIndexer(): Promise<BlobIndexer> {
    this.indexer ??= this.makeIndexer();
    return this.indexer;
  }

  /** The tree under `root` (a real path) as it is now, indexed. */
  async tree(root: string, options: TreeIndexOptions = {}): Promise<IndexedTree> {
    const listing = await listLocalTree(root, { signal: options.signal });
    const key = `${root}\0${listing.state}`;
    const cached = this.trees.get(key);
    if (cached !== undefined) {
      this.trees.delete(key);
      this.trees.set(key, cached);
      return cached;
    }
    const building = this.build(root, listing, options);
    this.trees.set(key, building);
    building.catch(() => this.trees.get(key) === building && this.trees.delete(key));
    while (this.trees.size > this.maxTrees) this.trees.delete(this.trees.keys().next().value as string);
    return building;
  }

  /** Trees and per-file indexes held. */
  stats(): { trees: number; blobs: number } {
    return { trees: this.trees.size, blobs: this.blobs.size };
  }

  private async build(root: string, listing: TreeListing, options: TreeIndexOptions): Promise<IndexedTree> {
    const indexer = await this.blobIndexer();
    const files: IndexedFile[] = [];
    const total = listing.entries.length;
    let sliceStarted = performance.now();
    for (const [done, entry] of listing.entries.entries()) {
      if (performance.now() - sliceStarted > SLICE_MS) {
        options.signal?.throwIfAborted();
        options.onProgress?.({ stage: 'indexing', done, total, message: entry.path });
        await yieldToEventLoop();
        sliceStarted = performance.now();
      }
      const index = await this.indexEntry(indexer, root, entry);
      if (index !== undefined) files.push({ path: entry.path, index });
    }
    options.onProgress?.({ stage: 'indexed', done: total, total, message: `${files.length} files` });
    let table: SymbolTable | undefined;
    return {
      root,
      state: listing.state,
      files,
      secretFiles: listing.secretFiles,
      symbolTable: () => (table ??= SymbolTable.from(files.map((file) => ({ path: file.path, definitions: file.index.definitions, references: file.index.references })))),
    };
  }

  /**
   * The index of one file of the tree under `root` if this cache holds it for the file's current
   * version (a pack reuses its tokens, secrets and binary flag instead of finding them again).
   */
  known(root: string, entry: TreeEntry): BlobIndex | undefined {
    return this.blobs.get(blobKey(root, entry));
  }

  private async indexEntry(indexer: BlobIndexer, root: string, entry: TreeEntry): Promise<BlobIndex | undefined> {
    const key = blobKey(root, entry);
    const cached = this.blobs.get(key);
    if (cached !== undefined) {
      this.blobs.delete(key);
      this.blobs.set(key, cached);
      return cached;
    }
    let content: Buffer;
    try {
      content = await entry.read();
    } catch {
      return undefined; // gone or unreadable since it was listed
    }
    const index = indexBlob(indexer, entry.path, content);
    this.blobs.set(key, index);
    while (this.blobs.size > this.maxBlobs) this.blobs.delete(this.blobs.keys().next().value as string);
    return index;
  }
}

/** (root, path, version) today; the blob id once trees come from snapshots. */
function blobKey(root: string, entry: TreeEntry): string {
  return `${root}\0${entry.path}\0${entry.version}`;
}

let shared: CodeIndexCache | undefined;

/** One cache per process for callers that do not bring their own (the CLI, tests). */
export function sharedCodeIndexCache(): CodeIndexCache {
  return (shared ??= new CodeIndexCache());
}
