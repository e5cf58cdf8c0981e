import { lstat } from 'node:fs/promises';
import * as path from 'node:path';
import { QuarryError } from '@quarry/contracts/errors';
import { walkFiles } from './file-walker';
import { compileGlob } from './glob';
import { resolveInsideRoot, type ResolvedPath } from './safe-path';

export interface ListOptions {
  recursive?: boolean;
  /** Entries returned; the rest are counted in totalEntries. Default 200. */
  maxEntries?: number;
  /** Levels below the directory: default 1 (its children), 4 when recursive. */
  maxDepth?: number;
  /** Glob on names (`*.ts`), or on paths below the directory when it has a `/`. */
  pattern?: string;
  /**
   * Hidden entries (a name starting with a dot, or anything inside such a directory) are listed
   * unless this is false, as `ls` without `-a` does; a pattern that starts with a dot lists them
   * either way. Default true.
   */
  hidden?: boolean;
  /** Listing a secret directory (`.ssh/`) by name is refused unless allowed, like reading one. */
  allowSecrets?: boolean;
  /** Stops the walk (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface DirectoryEntry {
  /** Root-relative POSIX path. */
  path: string;
  type: 'file' | 'directory';
  /** Files only. */
  size?: number;
  /** ISO 8601. */
  mtime?: string;
}

export interface DirectoryListing {
  /** The directory, root-relative ('' for the root). */
  path: string;
  /** Tree order: at each level directories first, then files, by name. */
  entries: DirectoryEntry[];
  truncated: boolean;
  /** Entries within the depth (and pattern), including those cut by maxEntries. */
  totalEntries: number;
}

export const DEFAULT_MAX_ENTRIES = 200;
export const DEFAULT_DEPTH = 1;
export const DEFAULT_RECURSIVE_DEPTH = 4;

/**
 * What is in a directory of a workspace, the way git sees it: the file walker supplies the files
 * (every `.gitignore` level, `.git/info/exclude`, no `.git`, symlinks not followed) and
 * directories are those that hold at least one such file, so an ignored `node_modules/` and an
 * empty directory are both absent. Sizes and mtimes are read for the returned entries only.
 *
 * The walker reads the directory's whole subtree even for one level; listing is rare next to
 * reading, and the walk is what makes the ignore rules right.
 */
export async function listDirectory(root: string, userPath: string, options: ListOptions = {}): Promise<DirectoryListing> {
  const maxEntries = Math.max(0, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  const maxDepth = Math.max(1, options.maxDepth ?? (options.recursive ? DEFAULT_RECURSIVE_DEPTH : DEFAULT_DEPTH));
  const directory = await resolveDirectory(root, userPath, options.allowSecrets);
  const matches = options.pattern === undefined ? undefined : compileGlob(options.pattern);
  const { files } = await walkFiles(directory.absolute, { signal: options.signal });
  const skipHidden = options.hidden === false && !options.pattern?.startsWith('.');

  const found = new Map<string, 'file' | 'directory'>();
  for (const file of files) {
    if (skipHidden && isHiddenPath(file)) continue;
    let depth = 1;
    for (let slash = file.indexOf('/'); slash !== -1 && depth <= maxDepth; slash = file.indexOf('/', slash + 1), depth++) {
      const ancestor = file.slice(0, slash);
      if (!found.has(ancestor) && (matches === undefined || matches(ancestor))) found.set(ancestor, 'directory');
    }
    if (depth <= maxDepth && (matches === undefined || matches(file))) found.set(file, 'file');
  }

  const ordered = [...found].map(([relative, type]) => ({ relative, type })).sort(treeOrder);
  const prefix = directory.relative === '' ? '' : `${directory.relative}/`;
  const entries = await Promise.all(
    ordered.slice(0, maxEntries).map(({ relative, type }) => describeEntry(directory.absolute, relative, prefix + relative, type)),
  );
  return { path: directory.relative, entries, truncated: ordered.length > maxEntries, totalEntries: ordered.length };
}

/** Whether a relative path names or lies inside a dot entry (`.env`, `.github/ci.yml`, `a/.cache/x`). */
export function isHiddenPath(relative: string): boolean {
  return relative.startsWith('.') || relative.includes('/.');
}

/** resolveInsideRoot, requiring a directory: shared by listing and finding. */
export async function resolveDirectory(root: string, userPath: string, allowSecrets?: boolean): Promise<ResolvedPath> {
  const resolved = await resolveInsideRoot(root, userPath === '' ? '.' : userPath, { allowSecrets });
  if (resolved.type !== 'directory') {
    throw new QuarryError('input_invalid', `"${userPath}" is a file, not a directory.`, {
      suggestion: `Read it instead (@${resolved.relative}), or list its directory (@${path.posix.dirname(resolved.relative)}/).`,
    });
  }
  return resolved;
}

async function describeEntry(directory: string, relative: string, rootRelative: string, type: 'file' | 'directory'): Promise<DirectoryEntry> {
  try {
    const stats = await lstat(path.join(directory, relative));
    return type === 'file' ? { path: rootRelative, type, size: stats.size, mtime: stats.mtime.toISOString() } : { path: rootRelative, type, mtime: stats.mtime.toISOString() };
  } catch {
    // Gone since the walk: still listed (it was there a moment ago), without metadata.
    return { path: rootRelative, type };
  }
}

interface Named {
  relative: string;
  type: 'file' | 'directory';
}

/** Pre-order of the tree: at the first differing level, a directory before a file, then names. */
function treeOrder(a: Named, b: Named): number {
  const left = a.relative.split('/');
  const right = b.relative.split('/');
  const shared = Math.min(left.length, right.length);
  for (let index = 0; index < shared; index++) {
    if (left[index] === right[index]) continue;
    const leftIsDirectory = index < left.length - 1 || a.type === 'directory';
    const rightIsDirectory = index < right.length - 1 || b.type === 'directory';
    if (leftIsDirectory !== rightIsDirectory) return leftIsDirectory ? -1 : 1;
    return compareNames(left[index], right[index]);
  }
  // One is an ancestor of the other: the directory comes before what it holds.
  return left.length - right.length;
}

/** Case-insensitive first (how people scan a listing), then by code point so the order is total. */
export function compareNames(a: string, b: string): number {
  const lowerA = a.toLowerCase();
  const lowerB = b.toLowerCase();
  if (lowerA !== lowerB) return lowerA < lowerB ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
