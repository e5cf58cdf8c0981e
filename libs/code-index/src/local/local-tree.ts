import { createHash } from 'node:crypto';
import { lstat, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { secretPathReason, walkFiles } from '@quarry/workspace';

/**
 * One file of a tree as the code index reads it: where it is, how big, a version that changes
 * when its content does, and a reader. The index is a function of (path, content); `version`
 * stands in for the blob id until trees come from `@quarry/snapshot` (a git tree has real ids).
 */
export interface TreeEntry {
  /** Root-relative, POSIX separators. */
  path: string;
  bytes: number;
  /** `size:mtime` for a working tree; a blob id for a git tree. */
  version: string;
  read(): Promise<Buffer>;
  /** The first bytes, to tell binary files from text without reading them whole. */
  head(bytes: number): Promise<Buffer>;
}

export interface TreeListing {
  /** Sorted by path. */
  entries: TreeEntry[];
  /** Changes whenever any entry's path or version does: the key of everything built from the tree. */
  state: string;
  /** Files left out because their name says they hold credentials (`.env`, `id_rsa`, `*.pem`). */
  secretFiles: number;
}

const STAT_CONCURRENCY = 32;

/**
 * A tree's listing from what a watcher already knows (@quarry/snapshot's WorkingTree: each file
 * with its blob id, or its size and time outside git): no walk, no stat. Sizes are not known
 * (`bytes` 0: only a pack needs them, and a pack lists its own tree); `state` is the watcher's.
 */
export function listingFromFiles(root: string, files: ReadonlyMap<string, string>, state: string): TreeListing {
  const entries: TreeEntry[] = [];
  let secretFiles = 0;
  for (const [relative, version] of files) {
    if (secretPathReason(relative) !== undefined) {
      secretFiles++;
      continue;
    }
    const absolute = path.join(root, relative);
    entries.push({ path: relative, bytes: 0, version, read: () => readFile(absolute), head: (bytes) => readHead(absolute, bytes) });
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries, state, secretFiles };
}

/**
 * The only function of the code index that walks a local directory (the walker's view: gitignore
 * honoured, `.git` and symlinks skipped), so moving it onto a snapshot of a git URL or a local
 * path changes this file and nothing else. Files whose names mark them as credentials are left
 * out: they are never code to index, pack or map.
 */
export async function listLocalTree(root: string, options: { signal?: AbortSignal } = {}): Promise<TreeListing> {
  const walked = await walkFiles(root, { signal: options.signal });
  const candidates = walked.files.filter((file) => secretPathReason(file) === undefined).sort();
  const secretFiles = walked.files.length - candidates.length;
  const entries: (TreeEntry | undefined)[] = new Array(candidates.length);
  let next = 0;
  const statNext = async () => {
    while (next < candidates.length) {
      const index = next++;
      if (index % 1024 === 0) options.signal?.throwIfAborted();
      const relative = candidates[index];
      const absolute = path.join(root, relative);
      try {
        const stats = await lstat(absolute);
        if (!stats.isFile()) continue;
        entries[index] = {
          path: relative,
          bytes: stats.size,
          version: `${stats.size}:${stats.mtimeMs}`,
          read: () => readFile(absolute),
          head: (bytes) => readHead(absolute, bytes),
        };
      } catch {
        // Gone since the walk: not part of the tree any more.
      }
    }
  };
  await Promise.all(Array.from({ length: STAT_CONCURRENCY }, statNext));
  const present = entries.filter((entry): entry is TreeEntry => entry !== undefined);
  const hash = createHash('sha1');
  for (const entry of present) hash.update(`${entry.path}\0${entry.version}\n`);
  return { entries: present, state: hash.digest('hex'), secretFiles };
}

async function readHead(absolute: string, bytes: number): Promise<Buffer> {
  const handle = await open(absolute, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
