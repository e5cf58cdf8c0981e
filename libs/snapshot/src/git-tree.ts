import type { WalkEntry } from '@quarry/workspace';

export interface TreeFile {
  mode: string;
  oid: string;
}

const REGULAR = '100644';
const SYMLINK = '120000';
/** The first letter of an entry's type in ls-tree's output. */
const BLOB = 'b'.charCodeAt(0);
const COMMIT = 'c'.charCodeAt(0);

class TreeEntry implements WalkEntry {
  constructor(
    readonly name: string,
    private readonly kind: 'file' | 'directory' | 'symlink',
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
  private readonly oids = new Map<string, string>();
  /** Modes other than 100644 (executables, symlinks): a few per cent of files. */
  private readonly modes = new Map<string, string>();
  /** The blobs of the tree's `.gitignore` files, which a walk fetches first. */
  readonly ignoreFiles: string[] = [];
  private readonly directories = new Map<string, TreeEntry[]>([['', []]]);

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
