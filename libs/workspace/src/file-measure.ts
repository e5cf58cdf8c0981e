import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { isBinaryFileSync } from 'isbinaryfile';

/** What reading one listed file found. */
export type FileMeasure =
  | { kind: 'text'; bytes: number; lines: number }
  | { kind: 'binary'; bytes: number }
  /** Gone, unreadable, or no longer a regular file since it was listed. */
  | { kind: 'unreadable' };

/** Git looks for a NUL in the first 8000 bytes to call a file binary; so do we. */
const NUL_SNIFF_BYTES = 8000;
const NEWLINE = 0x0a;
/**
 * O_NOFOLLOW: a file swapped for a symlink after listing is refused (ELOOP) instead of read
 * outside the root. O_NONBLOCK: a file swapped for a FIFO does not hang the open.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const UNREADABLE: FileMeasure = { kind: 'unreadable' };

/**
 * Reads a file through `buffer` (the caller's, reused across files, so memory stays flat however
 * large the file) and counts its bytes and lines. Lines are the '\n's, plus one for a last line
 * with no '\n'. A binary file stops at the first chunk. The signal is checked between chunks.
 */
export async function measureFile(absolutePath: string, buffer: Buffer, signal?: AbortSignal): Promise<FileMeasure> {
  let handle: FileHandle;
  try {
    handle = await open(absolutePath, OPEN_FLAGS);
  } catch {
    return UNREADABLE;
  }
  try {
    let stats: Stats;
    try {
      stats = await handle.stat();
    } catch {
      return UNREADABLE;
    }
    if (!stats.isFile()) return UNREADABLE;
    return await countContent(handle, stats.size, buffer, signal);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function countContent(handle: FileHandle, expectedSize: number, buffer: Buffer, signal?: AbortSignal): Promise<FileMeasure> {
  let bytes = 0;
  let lines = 0;
  let lastByte = NEWLINE;
  for (;;) {
    let read: number;
    try {
      ({ bytesRead: read } = await handle.read(buffer, 0, buffer.length, bytes));
    } catch {
      return UNREADABLE;
    }
    if (read === 0) break;
    if (bytes === 0 && looksBinary(buffer, read)) return { kind: 'binary', bytes: Math.max(expectedSize, read) };
    lines += countNewlines(buffer, read);
    lastByte = buffer[read - 1];
    bytes += read;
    // The size from fstat spares the extra read that would only confirm the end of the file.
    if (bytes >= expectedSize) break;
    signal?.throwIfAborted();
  }
  if (bytes > 0 && lastByte !== NEWLINE) lines++;
  return { kind: 'text', bytes, lines };
}

function looksBinary(buffer: Buffer, length: number): boolean {
  // Bounded: the buffer still holds the previous file's bytes past `length`.
  return buffer.subarray(0, Math.min(length, NUL_SNIFF_BYTES)).includes(0) || isBinaryFileSync(buffer, length);
}

/** A plain loop: V8 keeps it on the typed array with no call per line, faster than indexOf hops on short lines. */
function countNewlines(buffer: Buffer, length: number): number {
  let count = 0;
  for (let index = 0; index < length; index++) {
    if (buffer[index] === NEWLINE) count++;
  }
  return count;
}
