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
  /** The blobs of the tree's `.gitignore` files, which a walk fetches first. */
  ignoreFiles: string[] = [];
  private directories = new Map<string, TreeEntry[]>([['', []]]);

  get size(): number {
    return this.oids.size;
  }

  file(path: string): TreeFile | undefined {
    const oid = this.oids.get(path);
    return oid === undefined ? undefined : { oid, mode: this.modes.get(path) ?? REGULAR };
  }

  oid(path: string): string | undefined {
    return this.oids.get(path);
  }

  blobs(): IterableIterator<string> {
    return this.oids.values();
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
      if (type === COMMIT) {
        tree.ensureDirectory(path);
        lastEntries.push(new TreeEntry(name, 'directory'));
      } else if (type === BLOB) {
        const oid = text.slice(tab - 40, tab);
        tree.oids.set(path, oid);
        const regular = text.startsWith(REGULAR, start);
        if (!regular) tree.modes.set(path, text.slice(start, start + 6));
        if (name === '.gitignore') tree.ignoreFiles.push(oid);
        lastEntries.push(new TreeEntry(name, !regular && text.startsWith(SYMLINK, start) ? 'symlink' : 'file'));
      }
      start = stop + 1;
    }
    return tree;
  }

  /**
   * This tree with a commit's changes applied (`git diff-tree -r -z --no-renames` from this tree's
   * commit to the next): the next commit's tree without listing and parsing all of it again (a
   * kernel re-scan: ~200 ms of `ls-tree` and parsing, against ~30 ms). Equal to `parse` of the
   * next commit's listing, but for the order of a changed directory's entries. Unchanged
   * directories' entry lists are shared with this tree, which stays as it was.
   */
  derive(changes: Buffer): GitTree {
    const tree = new GitTree();
    tree.oids = new Map(this.oids);
    tree.modes = new Map(this.modes);
    tree.directories = new Map(this.directories);
    const copied = new Set<string>();
    /** A directory's entries, copied before the first change (the lists are shared with this tree). */
    const writable = (directory: string): TreeEntry[] | undefined => {
      const entries = tree.directories.get(directory);
      if (!entries || copied.has(directory)) return entries;
      const copy = [...entries];
      tree.directories.set(directory, copy);
      copied.add(directory);
      return copy;
    };
    const parentOf = (path: string) => {
      const slash = path.lastIndexOf('/');
      return { directory: slash === -1 ? '' : path.slice(0, slash), name: path.slice(slash + 1) };
    };
    const removeEntry = (path: string, kind: 'file' | 'directory' | 'symlink') => {
      const { directory, name } = parentOf(path);
      const entries = writable(directory);
      const at = entries?.findIndex((entry) => entry.name === name && entry.kind === kind) ?? -1;
      if (!entries || at === -1) return;
      entries.splice(at, 1);
      // Git stores no empty directory: one whose last entry went is gone from its parent too.
      if (entries.length === 0 && directory !== '') {
        tree.directories.delete(directory);
        removeEntry(directory, 'directory');
      }
    };
    const ensureDirectory = (directory: string): TreeEntry[] => {
      const existing = writable(directory);
      if (existing) return existing;
      const entries: TreeEntry[] = [];
      tree.directories.set(directory, entries);
      copied.add(directory);
      const { directory: parent, name } = parentOf(directory);
      ensureDirectory(parent).push(new TreeEntry(name, 'directory'));
      return entries;
    };
    let ignoreFilesChanged = false;
    const fields = changes.toString('utf8').split('\0');
    for (let index = 0; index + 1 < fields.length; index += 2) {
      // :<old mode> <new mode> <old oid> <new oid> <status>, then the path
      const [oldMode, newMode, , newOid, status] = fields[index].slice(1).split(' ');
      const path = fields[index + 1];
      if (path.endsWith('.gitignore')) ignoreFilesChanged = true;
      if (status !== 'A') {
        if (oldMode === GITLINK) {
          tree.directories.delete(path);
          removeEntry(path, 'directory');
        } else {
          tree.oids.delete(path);
          tree.modes.delete(path);
          removeEntry(path, oldMode === SYMLINK ? 'symlink' : 'file');
        }
      }
      if (status === 'D') continue;
      const { directory, name } = parentOf(path);
      const entries = ensureDirectory(directory);
      if (newMode === GITLINK) {
        if (!tree.directories.has(path)) tree.directories.set(path, []);
        entries.push(new TreeEntry(name, 'directory'));
      } else {
        tree.oids.set(path, newOid);
        if (newMode !== REGULAR) tree.modes.set(path, newMode);
        entries.push(new TreeEntry(name, newMode === SYMLINK ? 'symlink' : 'file'));
      }
    }
    tree.ignoreFiles = ignoreFilesChanged ? [...tree.oids].filter(([path]) => path === '.gitignore' || path.endsWith('/.gitignore')).map(([, oid]) => oid) : this.ignoreFiles;
    return tree;
  }

  private entriesOf(directory: string): TreeEntry[] {
    let entries = this.directories.get(directory);
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
