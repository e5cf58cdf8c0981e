import type { Stats } from 'node:fs';

/** What a loaded file looked like on disk; a cached copy is only served while all of it still holds. */
export interface FileVersion {
  size: number;
  mtimeMs: number;
  /** Catches a same-size rewrite whose mtime was put back (utimes), and an atomic replace (new inode). */
  ctimeMs: number;
  ino: number;
}

/** A loaded file as served: redacted text and what was measured on it. */
export interface CachedFile {
  text: string;
  /** UTF-8 bytes of `text`. */
  bytes: number;
  lines: number;
  sha256: string;
  redactions: number;
  /** The 1-based line of each redaction, ascending, so a line range can report only its own. */
  redactedLines: readonly number[];
}

export interface FileCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

interface Entry {
  version: FileVersion;
  file: CachedFile;
  cost: number;
}

export const DEFAULT_FILE_CACHE_BYTES = 64 * 1024 * 1024;
/** Map entry, key string and metadata: a rough per-entry overhead so that many tiny files still count. */
const ENTRY_OVERHEAD_BYTES = 256;

export function fileVersionOf(stats: Stats): FileVersion {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

/**
 * Loaded files by real path, for one worker process, bounded in bytes and evicted least recently
 * used first. A lookup names the version it expects (from a fresh stat): a file that changed since
 * it was cached is a miss and its entry is dropped, so nothing stale is ever served and no watcher
 * is needed. Search results are not cached here: they depend on every file.
 */
export class FileCache {
  /** Insertion order is recency: a hit moves its entry to the end, eviction takes from the front. */
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(readonly maxBytes: number = DEFAULT_FILE_CACHE_BYTES) {
    if (!(maxBytes >= 0)) throw new RangeError(`FileCache maxBytes must be a non-negative number, got ${maxBytes}.`);
  }

  get(realPath: string, version: FileVersion): CachedFile | undefined {
    const entry = this.entries.get(realPath);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    if (!sameVersion(entry.version, version)) {
      this.remove(realPath, entry);
      this.misses++;
      return undefined;
    }
    this.entries.delete(realPath);
    this.entries.set(realPath, entry);
    this.hits++;
    return entry.file;
  }

  /** Stores `file`; one larger than the whole cache is not stored (it would evict everything for nothing). */
  set(realPath: string, version: FileVersion, file: CachedFile): void {
    const previous = this.entries.get(realPath);
    if (previous !== undefined) this.remove(realPath, previous);
    // A JS string holds two bytes per UTF-16 unit: that, not the UTF-8 size, is what the heap pays.
    const cost = file.text.length * 2 + realPath.length * 2 + ENTRY_OVERHEAD_BYTES;
    if (cost > this.maxBytes) return;
    this.entries.set(realPath, { version, file, cost });
    this.totalBytes += cost;
    for (const [oldestPath, oldest] of this.entries) {
      if (this.totalBytes <= this.maxBytes) break;
      this.remove(oldestPath, oldest);
      this.evictions++;
    }
  }

  has(realPath: string): boolean {
    return this.entries.has(realPath);
  }

  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }

  stats(): FileCacheStats {
    return { entries: this.entries.size, bytes: this.totalBytes, hits: this.hits, misses: this.misses, evictions: this.evictions };
  }

  private remove(realPath: string, entry: Entry): void {
    this.entries.delete(realPath);
    this.totalBytes -= entry.cost;
  }
}

function sameVersion(a: FileVersion, b: FileVersion): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}
