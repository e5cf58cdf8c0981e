import { QuarryError } from '@quarry/contracts/errors';
import { measureContent, partialWalkOver, walkFiles, type FileMeasure, type MeasureFilesOptions, type WalkEntry, type WalkOptions, type WalkResult } from '@quarry/workspace';
import { BlobReader } from './blob-reader';
import type { CachedRepository, ResolvedGitSource } from './git-repository-cache';
import { isIgnoreFile, type GitTree } from './git-tree';
import type { BlobPath, Snapshot, SnapshotChanges, SnapshotEntry } from './snapshot';

/**
 * A commit of a git URL, read from this worker's cache: the listing is the commit's tree (ls-tree,
 * no network), contents come from one `cat-file --batch`, blobs missing from the partial clone
 * are fetched in batches first. Measures are remembered per blob, so a repeat scan reads nothing.
 */
export class GitSnapshot implements Snapshot {
  readonly kind = 'git';
  readonly root: string;
  /** This snapshot's own `cat-file --batch`: a cancelled job kills its reader, never another job's. */
  private reader: BlobReader | undefined;
  /** The tree this one was derived from, taken when the snapshot opens (a later derivation takes it from the tree). */
  private base: GitTree['base'];

  constructor(
    readonly source: ResolvedGitSource,
    private readonly repository: CachedRepository,
    private readonly tree: GitTree,
  ) {
    this.root = source.git;
    this.base = tree.base;
  }

  walk(options: WalkOptions = {}): Promise<WalkResult> {
    return this.walkTree(this.tree, options);
  }

  private async walkTree(tree: GitTree, options: WalkOptions): Promise<WalkResult> {
    // The ignore files, fetched in one batch before the walk reads them one by one.
    await this.repository.ensureBlobs(tree.ignoreFiles, options.signal);
    return walkFiles('/', {
      ...options,
      tree: {
        readDirectory: async (relative) => {
          const entries = tree.directory(relative);
          if (!entries) throw Object.assign(new Error(`no directory ${relative}`), { code: 'ENOENT' });
          return entries;
        },
        readText: async (relative) => {
          const oid = tree.oid(relative);
          if (!oid) return undefined;
          await this.repository.ensureBlobs([oid]);
          return (await this.blobReader().read(oid))?.toString('utf8');
        },
      },
    });
  }

  async changesSince(signal?: AbortSignal): Promise<SnapshotChanges | undefined> {
    const base = this.base;
    if (!base || base.changes.some((change) => isIgnoreFile(change.path))) return undefined;
    const changed = base.changes.map((change) => change.path);
    // The blobs the changed paths held or hold, and every path of either tree holding one of them:
    // one partial walk of each tree over all those paths says which files changed and how many
    // walked files hold each blob. Both walks cover the same directories, so everything else they
    // would list and skip is the same (no ignore file changed) and cancels out.
    const blobs = new Set<string>();
    for (const path of changed) {
      for (const tree of [base.tree, this.tree]) {
        const oid = tree.oid(path);
        if (oid !== undefined) blobs.add(oid);
      }
    }
    const only = partialWalkOver([...changed, ...base.tree.pathsOf(blobs), ...this.tree.pathsOf(blobs)]);
    const [before, after] = await Promise.all([this.walkTree(base.tree, { signal, only }), this.walkTree(this.tree, { signal, only })]);
    const blobCounts = new Map<string, { before: number; after: number }>();
    for (const blob of blobs) blobCounts.set(blob, { before: 0, after: 0 });
    const removedBlobs = new Map<string, string>();
    for (const path of before.files) {
      const blob = base.tree.oid(path) as string;
      removedBlobs.set(path, blob);
      const counted = blobCounts.get(blob);
      if (counted) counted.before++;
    }
    const added: BlobPath[] = [];
    for (const path of after.files) {
      const blob = this.tree.oid(path) as string;
      const counted = blobCounts.get(blob);
      if (counted) counted.after++;
      if (removedBlobs.get(path) === blob) removedBlobs.delete(path);
      else added.push({ path, blob });
    }
    const removed = [...removedBlobs].map(([path, blob]) => ({ path, blob }));
    return { base: base.commit, removed, added, skipped: { before: before.skipped, after: after.skipped }, blobCounts };
  }

  treeChangesSince(): { base: string; files: string[]; directories: string[] } | undefined {
    const base = this.base;
    if (!base) return undefined;
    const files = base.changes.map((change) => change.path);
    const directories = new Set<string>();
    for (const change of base.changes) {
      // An edit in place leaves its directory's entries as they were; a name that comes, goes or
      // changes kind (file, link, submodule) changes them, and so does a directory that comes or
      // goes with it, in its own parent.
      if (change.status === 'M' && entryKind(change.oldMode) === entryKind(change.newMode)) continue;
      for (let path = change.path; ; ) {
        const slash = path.lastIndexOf('/');
        const parent = slash === -1 ? '' : path.slice(0, slash);
        directories.add(parent);
        if (parent === '' || (base.tree.directory(parent) !== undefined && this.tree.directory(parent) !== undefined)) break;
        path = parent;
      }
    }
    return { base: base.commit, files, directories: [...directories] };
  }

  async readDirectory(relative: string): Promise<readonly WalkEntry[] | undefined> {
    return this.tree.directory(normalize(relative));
  }

  async entry(relative: string): Promise<SnapshotEntry | undefined> {
    const path = normalize(relative);
    const file = this.tree.file(path);
    return file && { path, mode: file.mode, blob: file.oid };
  }

  readonly listedBlobs = (paths: readonly string[]): Array<string | undefined> => paths.map((path) => this.tree.oid(path));

  treeBlobs(): Iterable<string> {
    return this.tree.blobs();
  }

  async readBlob(relative: string): Promise<{ blob: string; content: Buffer } | undefined> {
    const oid = this.tree.oid(normalize(relative));
    const content = oid && (await this.readFile(relative));
    return oid && content ? { blob: oid, content } : undefined;
  }

  async readFile(relative: string, options: { maxBytes?: number } = {}): Promise<Buffer | undefined> {
    const oid = this.tree.oid(normalize(relative));
    if (!oid) return undefined;
    await this.repository.ensureBlobs([oid]);
    const content = await this.blobReader().read(oid);
    if (content && options.maxBytes !== undefined && content.length > options.maxBytes) return undefined;
    return content;
  }

  async prefetch(relatives: readonly string[], signal?: AbortSignal): Promise<void> {
    const oids: string[] = [];
    for (const relative of relatives) {
      const oid = this.tree.oid(normalize(relative));
      if (oid) oids.push(oid);
    }
    await this.repository.ensureBlobs(oids, signal);
  }

  async readRange(relative: string, start: number, end: number): Promise<Buffer | undefined> {
    return (await this.readFile(relative))?.subarray(start, end);
  }

  async measure(files: readonly string[], onMeasured: (relative: string, measure: FileMeasure) => void, options: MeasureFilesOptions = {}): Promise<void> {
    const { signal } = options;
    this.repository.measures.refresh();
    const byBlob = new Map<string, string[]>();
    for (const relative of files) {
      const oid = this.tree.oid(relative);
      if (!oid) {
        onMeasured(relative, { kind: 'unreadable' });
        continue;
      }
      const known = this.repository.measures.get(oid);
      if (known) {
        onMeasured(relative, known);
        continue;
      }
      const paths = byBlob.get(oid);
      if (paths) paths.push(relative);
      else byBlob.set(oid, [relative]);
    }
    if (byBlob.size === 0) return;
    signal?.throwIfAborted();
    const oids = [...byBlob.keys()];
    await this.repository.ensureBlobs(oids, signal);
    const measured: Array<[string, FileMeasure]> = [];
    await this.blobReader().stream(
      oids,
      (oid, content) => {
        const measure: FileMeasure = content === undefined ? { kind: 'unreadable' } : measureContent(content);
        measured.push([oid, measure]);
        const paths = byBlob.get(oid);
        if (content !== undefined && paths && options.onContent) options.onContent(paths[0], content);
        for (const relative of byBlob.get(oid) ?? []) onMeasured(relative, measure);
      },
      signal,
    );
    await this.repository.measures.add(measured);
  }

  async workingTree(signal?: AbortSignal): Promise<string> {
    return this.repository.checkout(this.source.commit, this.tree, signal);
  }

  close(): void {
    this.reader?.close();
    this.reader = undefined;
    // The tree derived from keeps its directory lists alive (its files are the new tree's but for
    // the changed paths): a snapshot opened later (the next job on this commit) rarely wants it,
    // and the next commit's tree gets its own base.
    if (this.base && this.tree.base === this.base) this.tree.base = undefined;
    this.base = undefined;
  }

  private blobReader(): BlobReader {
    this.reader ??= this.repository.blobReader();
    return this.reader;
  }
}

/** What a directory listing shows of a git mode: a file, a link or a directory (submodule). */
function entryKind(mode: string): string {
  return mode === '120000' ? 'symlink' : mode === '160000' ? 'directory' : 'file';
}

function normalize(relative: string): string {
  if (relative === '.' || relative === './') return '';
  if (relative.includes('\0')) throw new QuarryError('input_invalid', 'A path contains a NUL character.');
  return relative.replace(/^\.\//, '').replace(/\/+$/, '');
}
