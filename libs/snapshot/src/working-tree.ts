import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { lstat, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { walkFiles, type PartialWalk, type WalkEntry } from '@quarry/workspace';
import { runGit, type GitEnvironment } from './git-process';
import { blobId, isCheckoutTop, parseStatus } from './local-snapshot';

/** How a file of the working tree differs from the commit. */
export interface WorkingTreeChange {
  path: string;
  status: 'modified' | 'added' | 'deleted' | 'renamed';
  /** Its blob id now (absent for a deleted file). */
  blob?: string;
  /** A renamed file's path at the commit. */
  from?: string;
}

/** A directory's files and how they differ from its last commit. */
export interface WorkingTreeState {
  root: string;
  /** HEAD of a checkout; for a directory outside git, the hash of its listing (paths, sizes, times) when first opened. */
  commit: string;
  kind: 'git' | 'directory';
  /** By path. A rename is one change (the new path, `from` the old). */
  changes: readonly WorkingTreeChange[];
  /** Equal for equal states (the commit and every change): what a cached answer is keyed by. */
  version: string;
  /** Every file the walk lists now (gitignore applied), with its blob id (a directory outside git: its size and time). */
  files: ReadonlyMap<string, string>;
  /**
   * A checkout: HEAD's regular files with their blobs (`git ls-tree`, ignore rules not applied:
   * a tracked file the walk does not list is a `deleted` change), what an index of the commit
   * describes; `changes` is the overlay on it. A directory outside git: empty.
   */
  head: ReadonlyMap<string, string>;
  /** Whether changes are learnt from a watcher (false: the whole tree is checked now and then, so this may be a few seconds old). */
  watching: boolean;
}

export interface WorkingTreeOptions {
  environment: GitEnvironment;
  /** Directories watched at most (an inotify watch each); past it the tree is checked whole instead. Default 50,000. */
  maxWatchedDirectories?: number;
  /**
   * Unwatched, the whole tree is checked again at most this often (default 5 s): a walk of a tree
   * too large to watch on every call would cost more than the calls. Such a state says
   * `watching: false` (it may be that old); readers that must see the disk read it themselves.
   */
  fullCheckIntervalMs?: number;
}

const DEFAULT_FULL_CHECK_INTERVAL_MS = 5_000;
const NO_FILES: ReadonlyMap<string, string> = new Map();

const DEFAULT_MAX_WATCHED_DIRECTORIES = 50_000;
const GIT_TIMEOUT_MS = 120_000;
/** Files hashed at once when a check finds many touched (a checkout of another branch). */
const HASH_CONCURRENCY = 16;

/**
 * A local directory's working tree against its last commit, kept current by watching it: an edit
 * an agent just made (a file changed, added, deleted or renamed, uncommitted) is in the next
 * `state()`, and a `state()` with nothing touched costs a turn of the event loop, not a walk.
 *
 * Opening it walks the tree once (the walker's view: gitignore applied), lists HEAD's blobs
 * (`git ls-tree`), asks `git status` what differs, and watches every directory the walk entered
 * (one inotify watch each; the Linux tree has 5,096). An event names a path; `state()` re-lists
 * only the touched directories (with every ignore file on the way applied), hashes only the
 * touched files, and compares each with its blob at HEAD. A moved HEAD (a commit, a checkout)
 * starts over. Where watching is not possible (too many directories, the inotify limit), every
 * `state()` checks the whole tree instead: correct, only slower.
 */
export class WorkingTree {
  private head = '';
  private kind: 'git' | 'directory' = 'directory';
  /** HEAD's regular files and their blobs (a directory outside git: the listing's size:time when opened). */
  private base = new Map<string, string>();
  /** The walk's files now, by directory ('' for the root): name → blob (or size:time). */
  private directories = new Map<string, Map<string, string>>();
  /** Directory maps created since the last state was handed out: changed in place (the rest are copied first). */
  private readonly owned = new Set<Map<string, string>>();
  private readonly changes = new Map<string, WorkingTreeChange>();
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly touched = new Set<string>();
  private watching = false;
  /** Watching failed (the inotify limit, too many directories): not tried again for this tree. */
  private watchFailed = false;
  private headSignature = '';
  private gitDirectory: string | undefined;
  private commonDirectory: string | undefined;
  private cached: WorkingTreeState | undefined;
  /** When the whole tree was last checked (unwatched trees are checked at most every fullCheckIntervalMs). */
  private checkedAt = 0;
  private checking: Promise<WorkingTreeState> | undefined;
  private closed = false;

  private constructor(
    readonly root: string,
    private readonly options: WorkingTreeOptions,
  ) {}

  static async open(root: string, options: WorkingTreeOptions): Promise<WorkingTree> {
    const tree = new WorkingTree(root, options);
    await tree.rebuild();
    return tree;
  }

  /** The state now: the watcher's news applied (or the whole tree checked, when not watching). */
  async state(): Promise<WorkingTreeState> {
    // Through one poll phase of the event loop: change events the kernel queued before this call
    // (a write that just returned) are delivered first. The first turn may end the current poll
    // phase; the second passes a whole one.
    await nextTurn();
    await nextTurn();
    this.checking ??= this.check().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** Directories watched now (one inotify watch each). */
  get watchedDirectories(): number {
    return this.watchers.size;
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.watching = false;
  }

  private async check(): Promise<WorkingTreeState> {
    if (this.kind === 'git' && (await this.headMoved())) {
      await this.rebuild();
      return this.snapshot();
    }
    if (!this.watching) {
      const interval = this.options.fullCheckIntervalMs ?? DEFAULT_FULL_CHECK_INTERVAL_MS;
      if (this.cached && Date.now() - this.checkedAt < interval) return this.cached;
      await this.rebuild();
      return this.snapshot();
    }
    if (this.touched.size === 0 && this.cached) return this.cached;
    const touched = [...this.touched];
    this.touched.clear();
    if (touched.some((relative) => path.posix.basename(relative) === '.gitignore')) {
      // Another ignore file: any listing below it may differ. Rare enough to start over.
      await this.rebuild();
      return this.snapshot();
    }
    await this.apply(touched);
    return this.snapshot();
  }

  /**
   * Everything from the disk and git again: the listing, HEAD's blobs, the changes, the watches.
   * Each directory is watched before it is read, so an edit made while this runs is an event.
   */
  private async rebuild(): Promise<void> {
    this.checkedAt = Date.now();
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.directories = new Map();
    this.owned.clear();
    this.changes.clear();
    this.touched.clear();
    this.cached = undefined;
    this.watching = !this.watchFailed && !this.closed;

    const walked = this.walkWatching();
    const git = isCheckoutTop(this.root) ? await this.readGit() : undefined;
    const files = await walked;
    const listed = new Set(files);

    if (git) {
      this.kind = 'git';
      this.head = git.head;
      this.base = git.blobs;
      this.headSignature = this.readHeadSignature();
      // What git says differs, and what HEAD does not have, is read and compared by content (the
      // index may differ from both); the rest holds HEAD's blob.
      const candidates = new Set(git.changed.filter((relative) => listed.has(relative) || this.base.has(relative)));
      for (const relative of files) {
        if (!this.base.has(relative)) candidates.add(relative);
        else if (!candidates.has(relative)) this.fileMap(parentOf(relative)).set(path.posix.basename(relative), this.base.get(relative)!);
      }
      await this.evaluate([...candidates], listed);
      for (const relative of this.base.keys()) if (!listed.has(relative)) this.changes.set(relative, { path: relative, status: 'deleted' });
    } else {
      this.kind = 'directory';
      const stats = await statAll(this.root, files);
      this.base = stats;
      for (const [relative, version] of stats) this.fileMap(parentOf(relative)).set(path.posix.basename(relative), version);
      const hash = createHash('sha1');
      for (const relative of [...stats.keys()].sort()) hash.update(`${relative}\0${stats.get(relative)}\n`);
      this.head = hash.digest('hex');
    }
  }

  /** The whole walk, each directory it enters watched first. */
  private async walkWatching(): Promise<string[]> {
    let entered = 0;
    const limit = this.options.maxWatchedDirectories ?? DEFAULT_MAX_WATCHED_DIRECTORIES;
    const { files } = await walkFiles(this.root, {
      listDirectory: async (relative, absolute) => {
        if (++entered > limit) this.stopWatching();
        this.watchDirectory(relative);
        return readdir(absolute, { withFileTypes: true });
      },
    });
    return files;
  }

  private stopWatching(): void {
    this.watching = false;
    this.watchFailed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private async readGit(): Promise<{ head: string; blobs: Map<string, string>; changed: string[] } | undefined> {
    const options = { cwd: this.root, timeoutMs: GIT_TIMEOUT_MS };
    try {
      const [status, gitPaths] = await Promise.all([
        runGit(this.options.environment, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=no', '--ignore-submodules=all', '--no-renames'], options),
        runGit(this.options.environment, ['rev-parse', '--absolute-git-dir', '--git-common-dir'], options),
      ]);
      const parsed = parseStatus(status.toString('utf8'));
      const [gitDirectory, commonDirectory] = gitPaths.toString('utf8').trim().split('\n');
      this.gitDirectory = gitDirectory;
      this.commonDirectory = path.resolve(this.root, commonDirectory ?? gitDirectory);
      if (!parsed) return undefined; // no commit yet: a directory like any other
      const listing = await runGit(this.options.environment, ['ls-tree', '-r', '-z', '--full-tree', parsed.head], options);
      const blobs = new Map<string, string>();
      for (const record of listing.toString('utf8').split('\0')) {
        // <mode> SP <type> SP <object> TAB <path>; regular files only (the walk lists no symlinks or submodules).
        if (!record.startsWith('100')) continue;
        const tab = record.indexOf('\t');
        blobs.set(record.slice(tab + 1), record.slice(record.lastIndexOf(' ', tab) + 1, tab));
      }
      return { head: parsed.head, blobs, changed: parsed.changed };
    } catch {
      return undefined;
    }
  }

  /** HEAD, the index and the current branch's ref as file times: a commit, checkout or reset moves one. */
  private readHeadSignature(): string {
    if (!this.gitDirectory) return '';
    const files = [path.join(this.gitDirectory, 'HEAD'), path.join(this.gitDirectory, 'index'), path.join(this.commonDirectory ?? this.gitDirectory, 'packed-refs')];
    const ref = /^ref: (refs\/\S+)/.exec(readSmallText(path.join(this.gitDirectory, 'HEAD')))?.[1];
    if (ref) files.push(path.join(this.commonDirectory ?? this.gitDirectory, ref));
    return files.map(probeTime).join(':');
  }

  private async headMoved(): Promise<boolean> {
    const signature = this.readHeadSignature();
    if (signature === this.headSignature) return false;
    this.headSignature = signature;
    try {
      const head = (await runGit(this.options.environment, ['rev-parse', 'HEAD'], { cwd: this.root, timeoutMs: GIT_TIMEOUT_MS })).toString('utf8').trim();
      return head !== this.head;
    } catch {
      return true;
    }
  }

  private watchDirectory(relative: string): void {
    if (!this.watching || this.watchers.has(relative)) return;
    try {
      const watcher = watch(relative === '' ? this.root : path.join(this.root, relative), { persistent: false }, (_event, name) => {
        // No name: something in the directory changed; re-list it.
        this.touched.add(name ? join(relative, name.toString()) : relative);
      });
      watcher.on('error', () => {
        // The directory went away (its parent's event says so) or the watch broke: then stop trusting events.
        watcher.close();
        this.watchers.delete(relative);
        if (existsAsDirectory(path.join(this.root, relative))) this.stopWatching();
      });
      this.watchers.set(relative, watcher);
    } catch (error) {
      // A directory gone before it was watched is the parent's news; ENOSPC (the inotify limit) and
      // the like mean every state() checks the whole tree instead.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.stopWatching();
    }
  }

  /** The touched paths applied: the directories they are in re-listed, new directories walked and watched, files hashed. */
  private async apply(touched: readonly string[]): Promise<void> {
    const relist = new Set<string>();
    const files = new Set<string>();
    for (const relative of touched) {
      const stats = await lstat(path.join(this.root, relative)).catch(() => undefined);
      if (stats?.isDirectory()) {
        // A directory: new (or moved in), or changed in place. Everything below it is listed again.
        for (const directory of await directoriesBelow(this.root, relative)) relist.add(directory);
      } else if (!stats && this.directories.has(relative)) {
        // A directory that is gone: all it held is gone.
        for (const directory of [...this.directories.keys()]) {
          if (directory !== relative && !directory.startsWith(`${relative}/`)) continue;
          for (const name of this.directories.get(directory)!.keys()) files.add(join(directory, name));
          this.directories.delete(directory);
          this.watchers.get(directory)?.close();
          this.watchers.delete(directory);
        }
      } else {
        files.add(relative);
      }
      relist.add(parentOf(relative));
    }

    const existing = [...relist].filter((directory) => directory === '' || existsAsDirectory(path.join(this.root, directory)));
    // Watched before they are read: an edit made meanwhile is the next check's event.
    for (const directory of existing) this.watchDirectory(directory);
    const only: PartialWalk = { touched: new Set(existing), relevant: new Set(['', ...existing.flatMap(ancestorsAndSelf)]) };
    const entered = new Set<string>();
    const { files: listed } = await walkFiles(this.root, {
      only,
      listDirectory: async (relative, absolute) => {
        entered.add(relative);
        return readdir(absolute, { withFileTypes: true });
      },
    });
    const listedNow = new Set(listed);
    // New files, and files the re-listed directories no longer list (deleted, or ignored now).
    for (const relative of listed) if (!this.known(relative)) files.add(relative);
    for (const directory of relist) {
      const kept = existing.includes(directory) && entered.has(directory);
      for (const name of this.directories.get(directory)?.keys() ?? []) {
        const relative = join(directory, name);
        if (!listedNow.has(relative)) files.add(relative);
      }
      if (!kept) {
        // Gone, or ignored now: not watched any more.
        this.watchers.get(directory)?.close();
        this.watchers.delete(directory);
      }
    }
    await this.evaluate([...files], listedNow);
  }

  private known(relative: string): boolean {
    return this.directories.get(parentOf(relative))?.has(path.posix.basename(relative)) ?? false;
  }

  /**
   * Each file compared with the commit: listed now (gitignore applied) and read, or not there. Its
   * entry in the listing and in the changes follows.
   */
  private async evaluate(files: readonly string[], listedNow: ReadonlySet<string>): Promise<void> {
    let next = 0;
    const work = async () => {
      while (next < files.length) {
        const relative = files[next++];
        const directory = parentOf(relative);
        const name = path.posix.basename(relative);
        const current = listedNow.has(relative) ? await this.versionOf(relative) : undefined;
        if (current === undefined) {
          if (this.directories.get(directory)?.has(name)) this.fileMap(directory).delete(name);
        } else this.fileMap(directory).set(name, current.version);
        const before = this.base.get(relative);
        if (current === undefined) {
          if (before !== undefined) this.changes.set(relative, { path: relative, status: 'deleted' });
          else this.changes.delete(relative);
        } else if (before === current.version || (this.kind === 'git' && before === current.blob)) {
          this.changes.delete(relative);
        } else {
          this.changes.set(relative, { path: relative, status: before === undefined ? 'added' : 'modified', blob: current.blob });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(HASH_CONCURRENCY, files.length) }, work));
  }

  /** A file's blob now; outside git also its size:time (its version in the listing). */
  private async versionOf(relative: string): Promise<{ blob: string; version: string } | undefined> {
    const absolute = path.join(this.root, relative);
    try {
      const [content, stats] = await Promise.all([readFile(absolute), lstat(absolute)]);
      const blob = blobId(content);
      return { blob, version: this.kind === 'git' ? blob : statVersion(stats) };
    } catch {
      return undefined; // gone since it was listed
    }
  }

  /**
   * A directory's files, to change: copied first when a published state holds it (copy on
   * write, one directory at a time), so a state keeps its listing while the tree moves on.
   */
  private fileMap(directory: string): Map<string, string> {
    let files = this.directories.get(directory);
    if (!files || !this.owned.has(files)) {
      files = new Map(files);
      this.directories.set(directory, files);
      this.owned.add(files);
    }
    return files;
  }

  private snapshot(): WorkingTreeState {
    const changes = withRenames([...this.changes.values()], this.base).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const hash = createHash('sha1').update(`${this.head}\n`);
    for (const change of changes) hash.update(`${change.status} ${change.path} ${change.blob ?? ''} ${change.from ?? ''}\n`);
    // The listing is made when first asked for (a code index reads it; a change check does not):
    // on the Linux tree it is 78,000 entries.
    // Its own copy of the directory table (5,000 entries on Linux); the per-directory maps are
    // shared until the tree changes one (fileMap copies it then).
    const directories = new Map(this.directories);
    this.owned.clear();
    let files: Map<string, string> | undefined;
    const listing = () => {
      if (!files) {
        files = new Map<string, string>();
        for (const [directory, names] of directories) for (const [name, version] of names) files.set(join(directory, name), version);
      }
      return files;
    };
    const state: WorkingTreeState = {
      root: this.root,
      commit: this.head,
      kind: this.kind,
      changes,
      version: hash.digest('hex'),
      watching: this.watching,
      // Never changed in place (a rebuild makes a new map): shared, not copied.
      head: this.kind === 'git' ? this.base : NO_FILES,
      get files() {
        return listing();
      },
    };
    this.cached = state;
    return state;
  }
}

/** A deleted file whose blob an added file holds is that file renamed (the first such pair, by path). */
function withRenames(changes: WorkingTreeChange[], base: ReadonlyMap<string, string>): WorkingTreeChange[] {
  const added = new Map<string, WorkingTreeChange>();
  for (const change of changes) if (change.status === 'added' && change.blob && !added.has(change.blob)) added.set(change.blob, change);
  const renamedFrom = new Map<string, string>();
  for (const change of changes) {
    if (change.status !== 'deleted') continue;
    const target = added.get(base.get(change.path) ?? '');
    if (!target || renamedFrom.has(target.path)) continue;
    renamedFrom.set(target.path, change.path);
  }
  const sources = new Set(renamedFrom.values());
  return changes
    .filter((change) => !sources.has(change.path))
    .map((change) => (renamedFrom.has(change.path) ? { ...change, status: 'renamed' as const, from: renamedFrom.get(change.path) } : change));
}

async function statAll(root: string, files: readonly string[]): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  let next = 0;
  const work = async () => {
    while (next < files.length) {
      const relative = files[next++];
      const stats = await lstat(path.join(root, relative)).catch(() => undefined);
      if (stats?.isFile()) versions.set(relative, statVersion(stats));
    }
  };
  await Promise.all(Array.from({ length: 32 }, work));
  return versions;
}

function statVersion(stats: Stats): string {
  return `${stats.size}:${stats.mtimeMs}`;
}

/** The directory and every directory below it (not following symlinks), root-relative. */
async function directoriesBelow(root: string, relative: string): Promise<string[]> {
  const found = [relative];
  for (let index = 0; index < found.length; index++) {
    const entries: WalkEntry[] = await readdir(path.join(root, found[index]), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory() && entry.name !== '.git') found.push(join(found[index], entry.name));
  }
  return found;
}

function ancestorsAndSelf(relative: string): string[] {
  const all: string[] = [];
  for (let at = relative; at !== ''; at = parentOf(at)) all.push(at);
  return all;
}

function parentOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  return slash === -1 ? '' : relative.slice(0, slash);
}

function join(directory: string, name: string): string {
  return directory === '' ? name : `${directory}/${name}`;
}

function existsAsDirectory(absolute: string): boolean {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

function probeTime(file: string): number {
  try {
    return statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  } catch {
    return 0;
  }
}

function readSmallText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The working trees of one process, each opened on first use and watched while used: a tree not
 * asked about for `idleMs` is closed (its watches released), and at most `max` are kept.
 */
export class WorkingTrees {
  private readonly trees = new Map<string, { tree: Promise<WorkingTree>; used: number; opened: boolean }>();

  constructor(
    private readonly options: WorkingTreeOptions & { max?: number; idleMs?: number },
  ) {}

  /** The state of the directory `root` (a real path the caller already checked). */
  async state(root: string): Promise<WorkingTreeState> {
    return (await this.entry(root).tree).state();
  }

  /**
   * The state when the tree is open already, else undefined (and its opening started): for a
   * reader that has another way to answer meanwhile (a search reads the files) rather than wait
   * for the first walk of a large tree.
   */
  stateIfOpen(root: string): Promise<WorkingTreeState> | undefined {
    const entry = this.entry(root);
    return entry.opened ? entry.tree.then((tree) => tree.state()) : undefined;
  }

  private entry(root: string): { tree: Promise<WorkingTree>; used: number; opened: boolean } {
    const now = Date.now();
    this.closeIdle(now);
    let entry = this.trees.get(root);
    if (!entry) {
      const opening = { tree: WorkingTree.open(root, this.options), used: now, opened: false };
      entry = opening;
      this.trees.set(root, entry);
      entry.tree.then(() => (opening.opened = true), () => this.trees.delete(root));
      const max = this.options.max ?? 16;
      while (this.trees.size > max) this.drop(this.trees.keys().next().value as string);
    }
    entry.used = now;
    this.trees.delete(root);
    this.trees.set(root, entry);
    return entry;
  }

  close(): void {
    for (const root of [...this.trees.keys()]) this.drop(root);
  }

  private closeIdle(now: number): void {
    const idleMs = this.options.idleMs ?? 30 * 60_000;
    for (const [root, entry] of this.trees) if (now - entry.used > idleMs) this.drop(root);
  }

  private drop(root: string): void {
    const entry = this.trees.get(root);
    this.trees.delete(root);
    void entry?.tree.then((tree) => tree.close(), () => undefined);
  }
}
