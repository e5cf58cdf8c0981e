import type { ExpectedStat, FileMeasure, MeasureFilesOptions, ScanSource, WalkEntry, WalkOptions, WalkResult, WalkSkipped } from '@quarry/workspace';

/** Where a job's repository came from, resolved: the commit every result describes. */
export type ResolvedSource =
  | { git: string; ref: string; commit: string }
  /** A directory on the worker: `commit` is HEAD of a clean checkout, else a content hash of the tree (`dirty`). */
  | { path: string; ref: null; commit: string; dirty?: boolean };

/** One file of a snapshot. */
export interface SnapshotEntry {
  /** Root-relative POSIX path. */
  path: string;
  /** git's file mode: 100644, 100755, 120000 (symlink). */
  mode: string;
  /** git's blob id (sha1 of `blob <size>\0<content>`); computed on demand for a directory. */
  blob: string;
}

/** A file of a snapshot and its blob. */
export interface BlobPath {
  path: string;
  blob: string;
}

/** The difference between the walks of two commits (`Snapshot.changesSince`). */
export interface SnapshotChanges {
  /** The commit this snapshot's is compared with. */
  base: string;
  /** Files of the base commit's walk that are gone or hold another blob now (with the old blob). */
  removed: BlobPath[];
  /** Files of this walk that are new or hold another blob (with the new blob). */
  added: BlobPath[];
  /** What the two walks skipped in the part that changed: the rest of the walks skipped the same. */
  skipped: { before: WalkSkipped; after: WalkSkipped };
  /** For each blob the changed paths held or hold: how many files of each whole walk hold it (a commit's distinct blobs gained and lost). */
  blobCounts: ReadonlyMap<string, { before: number; after: number }>;
}

/**
 * The one way job code reads a repository: a directory on this worker (LocalSnapshot) or a commit
 * of a git URL fetched into this worker's cache (GitSnapshot). Both list what git would see (the
 * ignore rules applied), read files and ranges, and measure files for a scan the same way, so a
 * scan of a URL equals a scan of a checkout of the same commit.
 */
export interface Snapshot extends ScanSource {
  /** A commit of a git URL (blob ids listed with the tree) or a directory (blob ids learnt by reading). */
  readonly kind: 'git' | 'directory';
  /** A directory's is known only once identified (reading it earlier throws): check `kind` first. */
  readonly source: ResolvedSource;
  /** Shown as a result's `root`: the directory, or `url@commit`. */
  readonly root: string;
  /** The files git would see, ignore rules applied (what a scan counts). */
  walk(options?: WalkOptions): Promise<WalkResult>;
  /** Entries of a root-relative directory ('' or '.' for the root), or undefined when there is no such directory. */
  readDirectory(relative: string): Promise<readonly WalkEntry[] | undefined>;
  /** A file's mode and blob id, or undefined when it is not a file of the snapshot. */
  entry(relative: string): Promise<SnapshotEntry | undefined>;
  /**
   * The blob of each path, in order, when the listing already knows them (a git tree: no reading,
   * no awaiting per file; a checkout: git's index, for the files `git status` found unchanged).
   * Undefined entries are learnt by reading the files.
   */
  readonly listedBlobs?: (paths: readonly string[]) => Array<string | undefined> | Promise<Array<string | undefined>>;
  /** Starts, beside the walk, what `listedBlobs` will need (a checkout: reading git's index). */
  prepareListedBlobs?(signal?: AbortSignal): void;
  /**
   * Every blob the listing may name, known before the walk (a git tree's, ignore rules not yet
   * applied: a superset of the walked files' blobs), so their look-ups can start beside the walk.
   */
  treeBlobs?(): Iterable<string>;
  /**
   * For a working-tree file listed with a blob: the size and mtime that blob was vouched for at.
   * A shard reading it expects them of the open file afterwards, and hashes the file instead when
   * they moved. Known once `listedBlobs` has resolved.
   */
  listedStat?(relative: string): ExpectedStat | undefined;
  /**
   * Blob ids of files read somewhere else (a shard thread's own snapshot of this directory), kept
   * like those read through `readBlob`: a directory's identity then reads no file twice.
   */
  learnBlobs?(entries: Iterable<readonly [path: string, blob: string]>): void;
  /** A file's bytes with its blob id, or undefined when it is missing (a scan reads each file of a directory once, through this). */
  readBlob(relative: string): Promise<{ blob: string; content: Buffer } | undefined>;
  /** A file's bytes (at most `maxBytes`: more is undefined), or undefined when it is missing. */
  readFile(relative: string, options?: { maxBytes?: number }): Promise<Buffer | undefined>;
  /**
   * Makes these files' contents local in one batch before they are read one by one (a commit's
   * blobs missing from the partial clone are fetched together; a directory has nothing to do).
   */
  prefetch(relatives: readonly string[], signal?: AbortSignal): Promise<void>;
  /** Bytes [start, end) of a file. */
  readRange(relative: string, start: number, end: number): Promise<Buffer | undefined>;
  measure(files: readonly string[], onMeasured: (relative: string, measure: FileMeasure) => void, options?: MeasureFilesOptions): Promise<void>;
  /**
   * A directory holding the snapshot's files, for tools that need a file system (the search
   * workers, file mentions): the directory itself, or a checkout of the commit in the cache.
   */
  workingTree(signal?: AbortSignal): Promise<string>;
  /**
   * How this snapshot's files differ from those of the commit listed before it here, as a walk
   * sees them (a git tree derived from that commit's): what a scan of this commit needs when a
   * scan of that one is remembered. Undefined when there is no such commit, or when an ignore file
   * changed (the whole walk may then differ).
   */
  changesSince?(signal?: AbortSignal): Promise<SnapshotChanges | undefined>;
  /**
   * The same comparison as a reader of the raw trees sees it, no walk (ignored files count): the
   * files whose content, kind or presence changed, and the directories whose entries changed.
   */
  treeChangesSince?(): { base: string; files: string[]; directories: string[] } | undefined;
  /** Releases processes held open (cat-file); the cache stays. */
  close(): void;
}

export function shortCommit(commit: string): string {
  return commit.slice(0, 12);
}

/** `url@short` or the path: how a source is named in messages and results. */
export function describeSource(source: ResolvedSource): string {
  return 'git' in source ? `${source.git}@${shortCommit(source.commit)}` : source.path;
}
