import { lstatSync, readdir, readFileSync, statSync, type Dirent } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { QuarryError } from '@quarry/contracts/errors';
import { IGNORED, INCLUDED, IgnoreRules, UNDECIDED } from './ignore-rules';

export interface WalkOptions {
  /** Checked before every directory read; once aborted the walk stops and rejects with its reason. */
  signal?: AbortSignal;
  /** Called after each directory is read with the number of files found so far. Cheap; may be frequent. */
  onProgress?: (filesFound: number) => void;
  /** Called after each directory is read with the files it added (root-relative), so a consumer can start on them before the walk ends. */
  onFiles?: (files: string[]) => void;
  /** Directories read at once: enough to keep the libuv thread pool busy while results are processed (16 measured best). */
  concurrency?: number;
  /**
   * Where the directories come from: the disk under `root` when absent, or a tree held elsewhere
   * (a git commit's listing). With a tree, paths are root-relative ('' for the root) and nothing
   * above the root is consulted: the tree is a repository's top.
   */
  tree?: WalkTree;
  /**
   * Reads a directory of the disk in place of readdir (a snapshot shares its reads with the
   * stack detection running beside the walk). `relative` is root-relative, '' for the root.
   */
  listDirectory?: (relative: string, absolute: string) => Promise<readonly WalkEntry[]>;
  /**
   * A partial walk: the entries of `touched` directories, and of the directories on the way to
   * them, and nothing else. Two commits that differ only below `touched` give partial walks whose
   * difference is the difference of their whole walks, when no ignore file changed: an unchanged
   * subtree is neither listed nor counted, in either. On the disk, it re-lists the directories a
   * watcher saw change, with every ignore file on the way applied.
   */
  only?: PartialWalk;
}

export interface PartialWalk {
  /** Root-relative directories whose own files (and changed entries) are walked: the parents of what changed. */
  touched: ReadonlySet<string>;
  /** Every path the walk may enter or count: `touched`, their ancestors, and the changed paths themselves. */
  relevant: ReadonlySet<string>;
}

/**
 * The partial walk over the parents of `changedPaths` (root-relative files, submodules): the
 * directories changed in place, every directory on the way to them, and new or removed ones.
 */
export function partialWalkOver(changedPaths: Iterable<string>): PartialWalk {
  const touched = new Set<string>();
  const relevant = new Set<string>(['']);
  for (const changed of changedPaths) {
    relevant.add(changed);
    let slash = changed.lastIndexOf('/');
    touched.add(slash === -1 ? '' : changed.slice(0, slash));
    while (slash !== -1) {
      const directory = changed.slice(0, slash);
      if (relevant.has(directory)) break;
      relevant.add(directory);
      slash = directory.lastIndexOf('/');
    }
  }
  return { touched, relevant };
}

/** A directory entry as the walker needs it: `fs.Dirent` satisfies it. */
export interface WalkEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** A directory tree that is not on the disk. */
export interface WalkTree {
  /** The entries of a root-relative directory ('' for the root); rejects with ENOENT for a missing one. */
  readDirectory(relative: string): Promise<readonly WalkEntry[]>;
  /** A root-relative file's text, or undefined when it cannot be read. */
  readText(relative: string): Promise<string | undefined>;
}

export interface WalkSkipped {
  /** Entries excluded by ignore rules; an excluded directory counts once, its contents are never read. */
  ignored: number;
  /** Symlinks, never followed: that keeps the walk inside the root and makes symlink loops harmless. */
  symlinks: number;
  /** Directories that could not be read (permissions, or gone since their parent was read). */
  unreadable: number;
  /** Devices, FIFOs and sockets: not files anyone means to scan, and reading a FIFO can block. */
  special: number;
}

export interface WalkResult {
  /** Regular files, relative to the root, POSIX separators, in no particular order. */
  files: string[];
  skipped: WalkSkipped;
}

/** The ignore files in force in a directory, shallowest first (so the last one wins). */
type RuleStack = readonly IgnoreRules[];

interface PendingDirectory {
  absolute: string;
  /** Root-relative POSIX path, '' for the root. */
  relative: string;
  rules: RuleStack;
}

const DEFAULT_CONCURRENCY = 16;
/** A directory that vanished or that we may not read is counted, not fatal; anything else is. */
const SKIPPABLE_DIRECTORY_ERRORS = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'ELOOP']);

/**
 * Lists the regular files under `root` the way git sees the working tree: `.gitignore` files at
 * every level and `.git/info/exclude` are honoured, `.git` directories are skipped, symlinks are
 * not followed. No file is stat'ed: the directory entries' types are enough.
 */
export async function walkFiles(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const { signal, onProgress, onFiles } = options;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  signal?.throwIfAborted();

  const rootPath = path.resolve(root);
  const files: string[] = [];
  const skipped: WalkSkipped = { ignored: 0, symlinks: 0, unreadable: 0, special: 0 };
  const tree = options.tree;
  const only = options.only;
  const pending: PendingDirectory[] = [{ absolute: rootPath, relative: '', rules: tree ? [] : await rulesAboveRoot(rootPath) }];

  const visit = async (directory: PendingDirectory): Promise<void> => {
    let entries: readonly WalkEntry[];
    try {
      entries = tree
        ? await tree.readDirectory(directory.relative)
        : options.listDirectory
          ? await options.listDirectory(directory.relative, directory.absolute)
          : await readDirectory(directory.absolute);
    } catch (error) {
      if (directory.relative === '') throw rootError(root, error);
      if (!SKIPPABLE_DIRECTORY_ERRORS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      skipped.unreadable++;
      return;
    }

    let rules = directory.rules;
    for (const entry of entries) {
      if (entry.name === '.gitignore' && entry.isFile()) {
        const own = tree
          ? parseIgnoreText(await tree.readText(directory.relative === '' ? entry.name : `${directory.relative}/${entry.name}`), directory.relative)
          : await readIgnoreFile(joinAbsolute(directory.absolute, entry.name), directory.relative);
        if (own) rules = [...rules, own];
        break;
      }
    }

    const prefix = directory.relative === '' ? '' : `${directory.relative}/`;
    const filesBefore = files.length;
    const ownEntries = !only || only.touched.has(directory.relative);
    for (const entry of entries) {
      const name = entry.name;
      const relative = prefix + name;
      if (only && !(entry.isDirectory() ? only.relevant.has(relative) : ownEntries)) continue;
      if (entry.isFile()) {
        if (rules.length > 0 && isIgnored(rules, relative, name, false)) skipped.ignored++;
        else files.push(relative);
      } else if (entry.isDirectory()) {
        if (name === '.git') continue;
        if (rules.length === 0) {
          pending.push({ absolute: joinAbsolute(directory.absolute, name), relative, rules });
          continue;
        }
        const childRules = rulesForDirectory(rules, relative, name);
        if (childRules === undefined) skipped.ignored++;
        else pending.push({ absolute: joinAbsolute(directory.absolute, name), relative, rules: childRules });
      } else if (rules.length > 0 && isIgnored(rules, relative, name, false)) {
        skipped.ignored++;
      } else if (entry.isSymbolicLink()) {
        skipped.symlinks++;
      } else {
        skipped.special++;
      }
    }
    if (onFiles && files.length > filesBefore) onFiles(files.slice(filesBefore));
    onProgress?.(files.length);
  };

  await drain(pending, visit, concurrency, signal);
  return { files, skipped };
}

/**
 * Runs `visit` over `pending` (which visits push more work onto) with at most `concurrency` in
 * flight. Depth-first (LIFO) keeps the queue short on wide trees. Rejects on the first failure or
 * on abort, without waiting for the reads in flight: they hold no resources worth waiting for.
 */
function drain<T>(pending: T[], visit: (item: T) => Promise<void>, concurrency: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    let active = 0;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const finished = () => {
      active--;
      pump();
    };
    const pump = () => {
      if (settled) return;
      if (signal?.aborted) return fail(signal.reason);
      while (active < concurrency && pending.length > 0) {
        active++;
        visit(pending.pop() as T).then(finished, fail);
      }
      if (active === 0) {
        settled = true;
        resolve();
      }
    };
    pump();
  });
}

/**
 * Whether `relative` is excluded: the deepest ignore file with an opinion decides, as in git.
 * Only the path itself is matched; the walker never enters an excluded directory, which is how
 * "a file inside an excluded directory cannot be re-included" holds.
 */
function isIgnored(rules: RuleStack, relative: string, name: string, isDirectory: boolean): boolean {
  for (let index = rules.length - 1; index >= 0; index--) {
    const verdict = verdictOf(rules[index], relative, name, isDirectory);
    if (verdict !== UNDECIDED) return verdict === IGNORED;
  }
  return false;
}

/**
 * The rules to walk a subdirectory with, or undefined if it is excluded. When an ignore file
 * re-includes the directory (`!dir/`) that a shallower one excludes, the shallower one is swapped
 * for a copy that knows the directory is not excluded (see IgnoreRules.reincluding).
 */
function rulesForDirectory(rules: RuleStack, relative: string, name: string): RuleStack | undefined {
  for (let index = rules.length - 1; index >= 0; index--) {
    const verdict = verdictOf(rules[index], relative, name, true);
    if (verdict === IGNORED) return undefined;
    if (verdict === INCLUDED) return index === 0 ? rules : reincludeBelow(rules, index, relative, name);
  }
  return rules;
}

function reincludeBelow(rules: RuleStack, decidedAt: number, relative: string, name: string): RuleStack {
  let adjusted: IgnoreRules[] | undefined;
  for (let index = 0; index < decidedAt; index++) {
    const shallower = rules[index];
    if (verdictOf(shallower, relative, name, true) !== IGNORED) continue;
    adjusted ??= [...rules];
    adjusted[index] = shallower.reincluding(shallower.localPath(relative));
  }
  return adjusted ?? rules;
}

function verdictOf(rules: IgnoreRules, relative: string, name: string, isDirectory: boolean) {
  return rules.verdict(rules.localPath(relative), name, isDirectory);
}

/**
 * The rules in force at the walk root before its own `.gitignore`: the enclosing repository's
 * `.git/info/exclude`, then every `.gitignore` between the repository's top and the root (outer
 * first, so deeper files win). A root that is itself a repository's top has only its exclude file;
 * a root in no repository has none.
 */
async function rulesAboveRoot(rootPath: string): Promise<IgnoreRules[]> {
  // A handful of probes on the way up, answered synchronously and without exceptions: most are
  // misses, and a miss through the promise API (an Error with its stack, a thread-pool trip) was
  // a third of a small directory's whole walk.
  let top: string | undefined;
  for (let dir = rootPath; ; dir = path.dirname(dir)) {
    if (probe(path.join(dir, '.git'))) {
      top = dir;
      break;
    }
    if (path.dirname(dir) === dir) break;
  }
  if (top === undefined) return [];
  const rules: IgnoreRules[] = [];
  const exclude = readTextIfPresent(path.join(top, '.git', 'info', 'exclude'));
  if (exclude !== undefined) rules.push(top === rootPath ? IgnoreRules.parse('', exclude) : IgnoreRules.parseOuter(toPosix(path.relative(top, rootPath)), exclude));
  for (let dir = top; dir !== rootPath; ) {
    const text = readTextIfPresent(path.join(dir, '.gitignore'));
    if (text !== undefined) rules.push(IgnoreRules.parseOuter(toPosix(path.relative(dir, rootPath)), text));
    dir = path.join(dir, path.relative(dir, rootPath).split(path.sep)[0]);
  }
  return rules.filter((rule) => !rule.isEmpty);
}

/** Whether anything is at `file` (not following a symlink); a missing one costs no exception. */
function probe(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // ENOTDIR, EACCES: nothing usable there
  }
}

/** A small file's text, or undefined when it is missing or unreadable. */
function readTextIfPresent(file: string): string | undefined {
  try {
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}

/** An ignore file's rules, or undefined if it is missing, unreadable or holds no rule. */
async function readIgnoreFile(file: string, directory: string): Promise<IgnoreRules | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  return parseIgnoreText(text, directory);
}

function parseIgnoreText(text: string | undefined, directory: string): IgnoreRules | undefined {
  if (text === undefined) return undefined;
  const rules = IgnoreRules.parse(directory, text);
  return rules.isEmpty ? undefined : rules;
}

/**
 * The callback form of readdir: on a 100k-file tree it is measurably quicker than the promise
 * form, whose per-call overhead shows at tens of thousands of directories.
 */
function readDirectory(directory: string): Promise<Dirent[]> {
  return new Promise((resolve, reject) => {
    readdir(directory, { withFileTypes: true }, (error, entries) => (error ? reject(error) : resolve(entries)));
  });
}

/** Cheaper than path.join, which normalises: the parts here are a clean path and one name. */
function joinAbsolute(directory: string, name: string): string {
  return directory.endsWith('/') ? directory + name : `${directory}/${name}`;
}

function rootError(root: string, error: unknown): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return new QuarryError('root_not_found', `Workspace root "${root}" does not exist.`, { cause: error });
    case 'ENOTDIR':
      return new QuarryError('root_not_directory', `Workspace root "${root}" is not a directory.`, { cause: error });
    default:
      return error;
  }
}
