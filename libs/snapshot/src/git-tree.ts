import type { WalkEntry } from '@quarry/workspace';

export interface TreeFile {
  mode: string;
  oid: string;
}

const REGULAR = '100644';
const SYMLINK = '120000';
const GITLINK = '160000';
/** The first letter of an entry's type in ls-tree's output. */
const BLOB = 'b'.charCodeAt(0);
const COMMIT = 'c'.charCodeAt(0);

class TreeEntry implements WalkEntry {
  constructor(
    readonly name: string,
    readonly kind: 'file' | 'directory' | 'symlink',
  ) {}
  isFile(): boolean {
    return this.kind === 'file';
  }
  isDirectory(): boolean {
    return this.kind === 'directory';
  }
  isSymbolicLink(): boolean {
    return this.kind === 'symlink';
  }
}

/**
 * A commit's tree as `git ls-tree -r -z` lists it, held as directories so the walker can read it
 * like a disk: files by path, entries by directory. A submodule (gitlink) is an empty directory,
 * as in a checkout without `--recurse-submodules`.
 */
export class GitTree {
  /** Blob id by path: no object per file (a kernel tree has 78k; a re-scan lists it again). */
  private oids = new Map<string, string>();
  /** Modes other than 100644 (executables, symlinks): a few per cent of files. */
  private modes = new Map<string, string>();
  /**
   * Once a tree derived from this one has taken its maps (`derive`): this tree's files at the
   * paths that changed (undefined: none there), and the tree that holds the maps now, which
   * answers for every other path.
   */
  private previous: { files: Map<string, TreeFile | undefined>; successor: GitTree; size: number } | undefined;
  /** The blobs of the tree's `.gitignore` files, which a walk fetches first. */
  ignoreFiles: string[] = [];
  private directories = new Map<string, TreeEntry[]>([['', []]]);
  /** While `derive` builds this tree: the directories whose entry lists are still the original's. */
  private shared: Set<string> | undefined;
  /**
   * The tree this one was derived from, its commit and the changes between them: what a scan of
   * this commit needs to work on the difference from a scan of that one. Only one step back: a
   * tree derived from this one takes it away, so trees never chain.
   */
  base: { commit: string; tree: GitTree; changes: readonly TreeChange[] } | undefined;

  get size(): number {
    return this.previous ? this.previous.size : this.oids.size;
  }

  file(path: string): TreeFile | undefined {
    if (this.previous) return this.previous.files.has(path) ? this.previous.files.get(path) : this.previous.successor.file(path);
    const oid = this.oids.get(path);
    return oid === undefined ? undefined : { oid, mode: this.modes.get(path) ?? REGULAR };
  }

  oid(path: string): string | undefined {
    return this.previous ? this.file(path)?.oid : this.oids.get(path);
  }

  blobs(): Iterable<string> {
    return this.previous ? [...this.files()].map(([, oid]) => oid) : this.oids.values();
  }

  /** The paths of the files holding any of `blobs` (one pass over the tree). */
  pathsOf(blobs: ReadonlySet<string>): string[] {
    const paths: string[] = [];
    for (const [path, oid] of this.files()) if (blobs.has(oid)) paths.push(path);
    return paths;
  }

  /** Every file's path and blob. */
  private *files(): Generator<[string, string]> {
    if (!this.previous) {
      yield* this.oids;
      return;
    }
    const { files, successor } = this.previous;
    for (const entry of successor.files()) if (!files.has(entry[0])) yield entry;
    for (const [path, file] of files) if (file) yield [path, file.oid];
  }

  static parse(output: Buffer): GitTree {
    const tree = new GitTree();
    const text = output.toString('utf8');
    let start = 0;
    // ls-tree lists a directory's files together: its entries are looked up once per run of them.
    let lastDirectory: string | undefined;
    let lastEntries: TreeEntry[] = [];
    while (start < text.length) {
      const end = text.indexOf('\0', start);
      const stop = end === -1 ? text.length : end;
      // <mode> SP <type> SP <oid> TAB <path>; the mode and type are compared in place, not sliced.
      const tab = text.indexOf('\t', start);
      const path = text.slice(tab + 1, stop);
      const slash = path.lastIndexOf('/');
      const directory = slash === -1 ? '' : path.slice(0, slash);
      if (directory !== lastDirectory) {
        lastDirectory = directory;
        lastEntries = tree.entriesOf(directory);
      }
      const name = path.slice(slash + 1);
      const type = text.charCodeAt(start + 7);
      if (type === COMMIT || type === BLOB) {
        const oid = text.slice(tab - 40, tab);
        tree.addTo(lastEntries, path, name, text.startsWith(REGULAR, start) ? REGULAR : text.slice(start, start + 6), oid);
        if (type === BLOB && name === '.gitignore') tree.ignoreFiles.push(oid);
      }
      start = stop + 1;
    }
    return tree;
  }

  /**
   * This tree with a commit's changes applied (`parseTreeChanges` of `git diff-tree` from this
   * tree's commit to the next): the next commit's tree without listing and parsing all of it again
   * (a kernel re-scan: ~200 ms of `ls-tree` and parsing, against ~30 ms). Equal to `parse` of the
   * next commit's listing, but for the order of a changed directory's entries. Unchanged
   * directories' entry lists are shared with this tree, which stays as it was. `commit`, this
   * tree's, becomes the new tree's `base`.
   */
  derive(changes: readonly TreeChange[], commit?: string): GitTree {
    const tree = new GitTree();
    this.base = undefined;
    if (commit !== undefined) tree.base = { commit, tree: this, changes };
    if (this.previous) {
      // Already derived from: the maps are another tree's now; this one's own are rebuilt (rare).
      for (const [path, oid] of this.files()) {
        tree.oids.set(path, oid);
        const mode = this.file(path)?.mode ?? REGULAR;
        if (mode !== REGULAR) tree.modes.set(path, mode);
      }
    } else {
      // The new tree takes the maps and changes them in place (a kernel's two 78k-entry maps are
      // not copied: 30–100 ms of a re-scan); this one keeps its files at the changed paths.
      const files = new Map<string, TreeFile | undefined>();
      for (const change of changes) if (!files.has(change.path)) files.set(change.path, this.file(change.path));
      tree.oids = this.oids;
      tree.modes = this.modes;
      this.previous = { files, successor: tree, size: this.oids.size };
    }
    tree.directories = new Map(this.directories);
    tree.shared = new Set(this.directories.keys());
    for (const change of changes) {
      if (change.status !== 'A') tree.remove(change.path, change.oldMode);
      if (change.status !== 'D') tree.add(change.path, change.newMode, change.newOid);
    }
    tree.shared = undefined;
    tree.ignoreFiles = changes.some((change) => isIgnoreFile(change.path)) ? [...tree.files()].filter(([path]) => isIgnoreFile(path)).map(([, oid]) => oid) : this.ignoreFiles;
    return tree;
  }

  private add(path: string, mode: string, oid: string): void {
    const slash = path.lastIndexOf('/');
    this.addTo(this.entriesOf(slash === -1 ? '' : path.slice(0, slash)), path, path.slice(slash + 1), mode, oid);
  }

  /** A file (its blob, its mode unless 100644) or a submodule (an empty directory) into its directory's `entries`. */
  private addTo(entries: TreeEntry[], path: string, name: string, mode: string, oid: string): void {
    if (mode === GITLINK) {
      this.ensureDirectory(path);
      entries.push(new TreeEntry(name, 'directory'));
      return;
    }
    this.oids.set(path, oid);
    if (mode !== REGULAR) this.modes.set(path, mode);
    entries.push(new TreeEntry(name, mode === SYMLINK ? 'symlink' : 'file'));
  }

  private remove(path: string, mode: string): void {
    if (mode === GITLINK) this.directories.delete(path);
    else {
      this.oids.delete(path);
      this.modes.delete(path);
    }
    this.removeEntry(path, mode === GITLINK ? 'directory' : mode === SYMLINK ? 'symlink' : 'file');
  }

  /** Takes `path` out of its directory; a directory left empty goes too (git stores none). */
  private removeEntry(path: string, kind: TreeEntry['kind']): void {
    const slash = path.lastIndexOf('/');
    const directory = slash === -1 ? '' : path.slice(0, slash);
    const name = path.slice(slash + 1);
    const entries = this.writableEntries(directory);
    const at = entries?.findIndex((entry) => entry.name === name && entry.kind === kind) ?? -1;
    if (!entries || at === -1) return;
    entries.splice(at, 1);
    if (entries.length === 0 && directory !== '') {
      this.directories.delete(directory);
      this.removeEntry(directory, 'directory');
    }
  }

  /** A directory's entries, copied first when they are still shared with the tree this one was derived from. */
  private writableEntries(directory: string): TreeEntry[] | undefined {
    const entries = this.directories.get(directory);
    if (!entries || !this.shared?.delete(directory)) return entries;
    const copy = [...entries];
    this.directories.set(directory, copy);
    return copy;
  }

  private entriesOf(directory: string): TreeEntry[] {
    let entries = this.writableEntries(directory);
    if (entries) return entries;
    entries = [];
    this.directories.set(directory, entries);
    const slash = directory.lastIndexOf('/');
    this.entriesOf(slash === -1 ? '' : directory.slice(0, slash)).push(new TreeEntry(directory.slice(slash + 1), 'directory'));
    return entries;
  }

  private ensureDirectory(path: string): void {
    if (!this.directories.has(path)) this.directories.set(path, []);
  }

  directory(relative: string): readonly WalkEntry[] | undefined {
    return this.directories.get(relative === '.' ? '' : relative);
  }
}

/** One record of `git diff-tree -r -z --no-renames`. */
export interface TreeChange {
  oldMode: string;
  newMode: string;
  newOid: string;
  /** A added, D deleted, M modified, T type changed. */
  status: string;
  path: string;
}

/** `git diff-tree -r -z --no-renames` output: `:<old mode> <new mode> <old oid> <new oid> <status>\0<path>\0` per change. */
export function parseTreeChanges(output: Buffer): TreeChange[] {
  const changes: TreeChange[] = [];
  const fields = output.toString('utf8').split('\0');
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const [oldMode, newMode, , newOid, status] = fields[index].slice(1).split(' ');
    changes.push({ oldMode, newMode, newOid, status, path: fields[index + 1] });
  }
  return changes;
}

export function isIgnoreFile(path: string): boolean {
  return path === '.gitignore' || path.endsWith('/.gitignore');
}
