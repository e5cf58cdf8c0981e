import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { JobProgress } from '@quarry/contracts';
import { BlobIndexer, indexBlob, type BlobIndex } from '../index/blob-index';
import { indexedTree, type IndexedFile, type IndexedTree } from '../index/indexed-tree';
import { secretPathReason } from '@quarry/workspace';
import { listLocalTree, type TreeEntry, type TreeListing } from './local-tree';
import type { BlobIndexStore } from '../store/blob-index-store';
import { indexSnapshotTree, listSnapshotFiles, type IndexableSnapshot } from '../store/snapshot-index';

export interface TreeIndexOptions {
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
  /** The tree's listing when the caller has it already (a watched working tree), instead of a walk. */
  listing?: TreeListing;
}

export interface CodeIndexCacheOptions {
  /** Trees (root + state) kept with their symbol tables (default 4). */
  maxTrees?: number;
  /** Per-file indexes kept across tree states, so an edit re-indexes one file (default 200,000). */
  maxBlobs?: number;
  /**
   * Memory the kept indexes may take, estimated from their names, signatures and counts (default
   * 384 MiB): past it the least recently used files and trees are dropped, and a tree larger than
   * this on its own is answered from but not kept (the Linux kernel's index is several GB).
   */
  maxBytes?: number;
  /** The indexer, created on first use (grammars and tokenizer load once per cache). */
  indexer?: () => Promise<BlobIndexer>;
}

/** Index work is synchronous; the event loop gets a turn at least this often (lock renewals, progress, cancel). */
const SLICE_MS = 50;

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
  private readonly maxBytes: number;
  private readonly makeIndexer: () => Promise<BlobIndexer>;
  private indexer?: Promise<BlobIndexer>;
  /** Most recently used last. */
  private readonly trees = new Map<string, Promise<IndexedTree>>();
  /** Estimated bytes of each built tree's indexes, by tree key. */
  private readonly treeBytes = new Map<string, number>();
  private readonly blobs = new Map<string, { index: BlobIndex; bytes: number }>();
  private blobBytes = 0;
  /** Builds running, by root: how far each got (an answer's index state says so). */
  private readonly building = new Map<string, { done: number; total: number }>();
  /** The last coverage counted, by root and tree state (counting is a look-up per file). */
  private readonly counted = new Map<string, { state: string; coverage: number }>();

  constructor(options: CodeIndexCacheOptions = {}) {
    this.maxTrees = Math.max(1, options.maxTrees ?? 4);
    this.maxBlobs = Math.max(1, options.maxBlobs ?? 200_000);
    this.maxBytes = Math.max(1, options.maxBytes ?? 384 * 1024 * 1024);
    this.makeIndexer = options.indexer ?? (() => BlobIndexer.create());
  }

  /** The indexer this cache uses (for `compress` in pack). */
  async blobIndexer(): Promise<BlobIndexer> {
    this.indexer ??= this.makeIndexer();
    return this.indexer;
  }

  /** The tree under `root` (a real path) as it is now, indexed. */
  async tree(root: string, options: TreeIndexOptions = {}): Promise<IndexedTree> {
    const listing = options.listing ?? (await listLocalTree(root, { signal: options.signal }));
    return this.cachedTree(`${root}\0${listing.state}`, () => this.build(root, listing, this.tracked(root, options)));
  }

  /**
   * How much of a tree's index this cache holds: the share of its files indexed in their current
   * version (`files`: path → version, as a watched working tree lists them), or for a tree known
   * only by its root (a commit) 1 once built. `building` while a build of the root runs.
   */
  coverage(root: string, tree?: { files: () => ReadonlyMap<string, string>; state: string }): { coverage: number; building: boolean } {
    const progress = this.building.get(root);
    const building = progress !== undefined;
    if (tree === undefined) {
      const built = [...this.trees.keys()].some((key) => key.startsWith(`${root}\0`) && this.treeBytes.has(key));
      return { coverage: built ? 1 : progress && progress.total ? progress.done / progress.total : 0, building };
    }
    const counted = this.counted.get(root);
    if (!building && counted?.state === tree.state) return { coverage: counted.coverage, building };
    let indexable = 0;
    let indexed = 0;
    for (const [path, version] of tree.files()) {
      if (secretPathReason(path) !== undefined) continue;
      indexable++;
      if (this.blobs.has(blobKey(root, { path, version }))) indexed++;
    }
    const coverage = indexable === 0 ? 1 : indexed / indexable;
    if (!building) this.counted.set(root, { state: tree.state, coverage });
    return { coverage, building };
  }

  /** The options with the build's progress recorded under `root` while it runs. */
  private tracked(root: string, options: TreeIndexOptions): TreeIndexOptions {
    return {
      ...options,
      onProgress: (progress) => {
        if (progress.stage === 'indexing' && progress.total !== undefined) this.building.set(root, { done: progress.done, total: progress.total });
        options.onProgress?.(progress);
      },
    };
  }

  /**
   * A snapshot's tree (a commit of a git URL, or a directory through @quarry/snapshot), indexed
   * from the rows of `store` — keyed by blob id, written by the scan's shards or by an earlier
   * request — with the missing rows computed here and stored. Kept like local trees, by state.
   */
  async snapshotTree(snapshot: IndexableSnapshot, store: BlobIndexStore, options: TreeIndexOptions = {}): Promise<IndexedTree> {
    const listing = await listSnapshotFiles(snapshot, options.signal);
    return this.cachedTree(`${snapshot.root}\0${listing.state}`, async () => indexSnapshotTree(snapshot, listing, { store, indexer: await this.blobIndexer(), ...this.tracked(snapshot.root, options) }), snapshot.root);
  }

  private cachedTree(key: string, build: () => Promise<IndexedTree>, root = key.slice(0, key.indexOf('\0'))): Promise<IndexedTree> {
    const cached = this.trees.get(key);
    if (cached !== undefined) {
      this.trees.delete(key);
      this.trees.set(key, cached);
      return cached;
    }
    this.building.set(root, this.building.get(root) ?? { done: 0, total: 0 });
    const building = build();
    this.trees.set(key, building);
    building
      .finally(() => {
        this.building.delete(root);
        this.counted.delete(root);
      })
      .catch(() => undefined);
    building.then(
      (tree) => {
        if (this.trees.get(key) !== building) return;
        this.treeBytes.set(key, tree.files.reduce((sum, file) => sum + estimateBytes(file.index), 0));
        this.evictTrees();
      },
      () => this.trees.get(key) === building && this.trees.delete(key),
    );
    this.evictTrees();
    return building;
  }

  /** Trees and per-file indexes held, and the estimated bytes of the per-file indexes. */
  stats(): { trees: number; blobs: number; bytes: number } {
    return { trees: this.trees.size, blobs: this.blobs.size, bytes: this.blobBytes };
  }

  /** Least recently used trees out while there are too many or they hold too much (a tree still building counts 0). */
  private evictTrees(): void {
    const held = () => [...this.trees.keys()].reduce((sum, key) => sum + (this.treeBytes.get(key) ?? 0), 0);
    while (this.trees.size > 0 && (this.trees.size > this.maxTrees || held() > this.maxBytes)) {
      const oldest = this.trees.keys().next().value as string;
      this.trees.delete(oldest);
      this.treeBytes.delete(oldest);
    }
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
    return indexedTree(root, listing.state, files, listing.secretFiles);
  }

  /**
   * The index of one file of the tree under `root` if this cache holds it for the file's current
   * version (a pack reuses its tokens, secrets and binary flag instead of finding them again).
   */
  known(root: string, entry: TreeEntry): BlobIndex | undefined {
    return this.blobs.get(blobKey(root, entry))?.index;
  }

  private async indexEntry(indexer: BlobIndexer, root: string, entry: TreeEntry): Promise<BlobIndex | undefined> {
    const key = blobKey(root, entry);
    const cached = this.blobs.get(key);
    if (cached !== undefined) {
      this.blobs.delete(key);
      this.blobs.set(key, cached);
      return cached.index;
    }
    let content: Buffer;
    try {
      content = await entry.read();
    } catch {
      return undefined; // gone or unreadable since it was listed
    }
    const index = indexBlob(indexer, entry.path, content);
    const bytes = estimateBytes(index);
    this.blobs.set(key, { index, bytes });
    this.blobBytes += bytes;
    while (this.blobs.size > this.maxBlobs || (this.blobBytes > this.maxBytes && this.blobs.size > 0)) {
      const oldest = this.blobs.keys().next().value as string;
      this.blobBytes -= this.blobs.get(oldest)!.bytes;
      this.blobs.delete(oldest);
    }
    return index;
  }
}

/**
 * What a BlobIndex takes on the heap, roughly: V8 strings (2 bytes a character for the worst case,
 * plus headers), arrays and objects. Close enough to bound a cache, not to account for it.
 */
function estimateBytes(index: BlobIndex): number {
  let bytes = 200;
  for (const definition of index.definitions) bytes += 120 + 2 * (definition.name.length + definition.signature.length + (definition.container?.length ?? 0));
  for (const [name] of index.references) bytes += 60 + 2 * name.length;
  return bytes + 80 * (index.secrets.length + index.warnings.length) + (index.chunks?.byteLength ?? 0);
}

/** (root, path, version) today; the blob id once trees come from snapshots. */
function blobKey(root: string, entry: Pick<TreeEntry, 'path' | 'version'>): string {
  return `${root}\0${entry.path}\0${entry.version}`;
}

let shared: CodeIndexCache | undefined;

/** One cache per process for callers that do not bring their own (the CLI, tests). */
export function sharedCodeIndexCache(): CodeIndexCache {
  return (shared ??= new CodeIndexCache());
}
