import path from 'node:path';
import type { JobInput, JobProgress, JobResult } from '@quarry/contracts';
import { listingFromFiles, packSnapshot, packToFile, packToFileWith, sharedBlobIndexer, type BlobIndexStore, type CodeIndexCache, type IndexedTree, type TreeListing } from '@quarry/code-index';
import type { Snapshot, WorkingTreeState } from '@quarry/snapshot';

export interface CodeIndexReadOptions {
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
}

/**
 * How a process reads the code index of a snapshot, for symbols, map, pack and @symbol: mentions.
 * A commit's files come from the per-blob rows of `store` (the scan's shards wrote them; the
 * missing ones are computed here and stored), and `cache` keeps the decoded trees of recent
 * commits. A directory is read the same way where rows outlive the process (a worker: Postgres,
 * shared with the scans of that directory); in-process, where nothing outlives the session,
 * `directoriesByStat` indexes it by path, size and mtime instead, so a repeat call stats the
 * files rather than hashing every one of them for its blob id.
 */
export class CodeIndexReader {
  constructor(
    readonly cache: CodeIndexCache,
    readonly store: BlobIndexStore,
    private readonly options: {
      directoriesByStat?: boolean;
      /**
       * A directory's working tree as a watcher knows it (@quarry/snapshot's WorkingTrees): its
       * listing then costs no walk, and its files are keyed by blob id, so an edit re-indexes that
       * file alone.
       */
      workingTree?: (root: string) => Promise<WorkingTreeState>;
    } = {},
  ) {}

  private byStat(snapshot: Snapshot): boolean {
    return this.options.directoriesByStat === true && snapshot.kind === 'directory';
  }

  async tree(snapshot: Snapshot, options: CodeIndexReadOptions = {}): Promise<IndexedTree> {
    if (!this.byStat(snapshot)) return this.cache.snapshotTree(snapshot, this.store, options);
    const watched = this.options.workingTree && (await this.options.workingTree(snapshot.root));
    // An unwatched tree's state may be seconds old: the tree is listed from the disk instead.
    return this.cache.tree(snapshot.root, { ...options, listing: watched?.watching ? this.listingOf(watched) : undefined });
  }

  /** The last listing made from a watched tree, by root: made again only when the tree changed. */
  private readonly listings = new Map<string, TreeListing>();

  private listingOf(watched: WorkingTreeState): TreeListing {
    const known = this.listings.get(watched.root);
    if (known?.state === watched.version) return known;
    const listing = listingFromFiles(watched.root, watched.files, watched.version);
    this.listings.delete(watched.root);
    this.listings.set(watched.root, listing);
    while (this.listings.size > 4) this.listings.delete(this.listings.keys().next().value as string);
    return listing;
  }

  /**
   * The pack of a snapshot, streamed to `file` (a temporary name until complete): memory holds the
   * file list, each file's stored brief and a few files, never the document.
   */
  pack(snapshot: Snapshot, input: JobInput<'pack'>, file: string, options: CodeIndexReadOptions = {}): Promise<JobResult<'pack'>> {
    const title = titleOf(snapshot);
    if (this.byStat(snapshot)) return packToFile(snapshot.root, input, file, { cache: this.cache, ...options, title });
    const indexer = () => sharedBlobIndexer(input.encoding);
    return packToFileWith(file, (sink) => packSnapshot(snapshot, input, sink, { store: this.store, indexer, ...options, title }));
  }
}

/** A pack's heading: the directory's name, or the repository's (`linux` for `https://…/linux.git`). */
export function titleOf(snapshot: Pick<Snapshot, 'root'>): string {
  return path.basename(snapshot.root.replace(/\/+$/, '')).replace(/\.git$/, '') || 'repository';
}
