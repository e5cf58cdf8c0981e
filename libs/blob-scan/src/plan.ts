/** One file a shard reads: its path, and its blob when the listing already knows it (a git tree). */
export interface ShardFile {
  path: string;
  blob?: string;
  /** Bytes, when known before reading (for balancing); else ESTIMATED_FILE_BYTES. */
  bytes?: number;
  /**
   * A working-tree file listed with the blob git's index holds for it: the mtime the index
   * recorded (with `bytes`). The shard trusts that blob only if the file still has both once read.
   */
  mtimeMs?: number;
}

export interface ShardTask {
  index: number;
  files: ShardFile[];
  /** The bytes the planner counted for it (estimates included). */
  bytes: number;
}

export interface ShardLimits {
  /** At most this many files per shard. */
  maxFiles: number;
  /** At most this many bytes per shard (a single larger file makes a shard of its own). */
  maxBytes: number;
  /**
   * Shards shrink toward the end: at most 1/taper of the bytes still to plan (never under
   * MIN_TAPERED_SHARD_BYTES), so the last ones finish together instead of one worker running a
   * full shard alone while the others idle (guided scheduling).
   */
  taper?: number;
}

/** The smallest shard tapering makes: a shard's fixed cost (a message or a job, a snapshot opened) stays small beside it. */
export const MIN_TAPERED_SHARD_BYTES = 256 * 1024;

export const DEFAULT_SHARD_LIMITS: ShardLimits = { maxFiles: 4_000, maxBytes: 32 * 1024 * 1024 };
/** A git tree lists no sizes without fetching the blobs: the planner counts a file of unknown size as this. */
export const ESTIMATED_FILE_BYTES = 16 * 1024;

/**
 * Splits the files to read into shards balanced by bytes: a shard closes when it would pass
 * either limit. Files stay in path order, so a shard covers neighbouring directories (its blobs
 * fetch together, its paths name a region of the tree in an error). Files whose blob is listed
 * twice are read once: the caller passes one file per blob.
 */
export function planShards(files: readonly ShardFile[], limits: ShardLimits = DEFAULT_SHARD_LIMITS): ShardTask[] {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const shards: ShardTask[] = [];
  let current: ShardTask | undefined;
  let remaining = limits.taper === undefined ? 0 : sorted.reduce((sum, file) => sum + (file.bytes ?? ESTIMATED_FILE_BYTES), 0);
  let maxBytes = limits.maxBytes;
  for (const file of sorted) {
    const bytes = file.bytes ?? ESTIMATED_FILE_BYTES;
    if (!current || current.files.length >= limits.maxFiles || (current.files.length > 0 && current.bytes + bytes > maxBytes)) {
      current = { index: shards.length, files: [], bytes: 0 };
      shards.push(current);
      if (limits.taper !== undefined) maxBytes = Math.min(limits.maxBytes, Math.max(MIN_TAPERED_SHARD_BYTES, Math.ceil(remaining / limits.taper)));
    }
    current.files.push(file);
    current.bytes += bytes;
    remaining -= bytes;
  }
  return shards;
}

/** A shard's paths for a message: the first few and how many more. */
export function describeShardPaths(files: readonly ShardFile[], shown = 5): string {
  const paths = files.slice(0, shown).map((file) => file.path);
  return files.length > shown ? `${paths.join(', ')} and ${files.length - shown} more` : paths.join(', ');
}
