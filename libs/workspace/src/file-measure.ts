import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isBinaryFileSync } from 'isbinaryfile';

/** What reading one listed file found. */
export type FileMeasure =
  | { kind: 'text'; bytes: number; lines: number }
  | { kind: 'binary' }
  /** Gone, unreadable, or no longer a regular file since it was listed. */
  | { kind: 'unreadable' };

/** Git looks for a NUL in the first 8000 bytes to call a file binary; so do we. */
const NUL_SNIFF_BYTES = 8000;
const NEWLINE = 0x0a;
/**
 * O_NOFOLLOW: a file swapped for a symlink after listing is refused (ELOOP) instead of read
 * outside the root. O_NONBLOCK: a file swapped for a FIFO cannot hang the open or the read.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const UNREADABLE: FileMeasure = { kind: 'unreadable' };
const BINARY: FileMeasure = { kind: 'binary' };

/**
 * Reads a file through `buffer` (the caller's, reused across files, so memory stays flat however
 * large the file) and counts its bytes and lines: the '\n's, plus one for a last line with no
 * '\n'. A binary file stops at the first chunk.
 *
 * Synchronous, one chunk per step: the generator yields after every chunk but the last, so the
 * caller decides how long it may hold the event loop and can stop mid-file (`return()` closes the
 * file). Measured on a 100k-file tree, blocking reads in short slices are ~5x faster than the same
 * reads through the thread pool, whose per-call hand-off costs more than the syscall inside it.
 *
 * Most source files fit in one chunk, which makes them open, read, close. A short read of a
 * regular file is its end; a file that fills the chunk is fstat'ed once, for its size (sparing the
 * read that would only confirm the end) and to refuse a device swapped in after listing.
 */
export function* measureFileSteps(absolutePath: string, buffer: Buffer): Generator<void, FileMeasure, void> {
  let fd: number;
  try {
    fd = openSync(absolutePath, OPEN_FLAGS);
  } catch {
    return UNREADABLE;
  }
  try {
    let bytes = 0;
    let lines = 0;
    let lastByte = NEWLINE;
    let expectedSize = -1;
    for (;;) {
      let count: number;
      try {
        count = readSync(fd, buffer, 0, buffer.length, bytes);
      } catch {
        return UNREADABLE;
      }
      if (count === 0) break;
      if (bytes === 0 && looksBinary(buffer, count)) return BINARY;
      lines += countNewlines(buffer, count);
      lastByte = buffer[count - 1];
      bytes += count;
      if (count < buffer.length) break;
      if (expectedSize < 0) {
        try {
          const stats = fstatSync(fd);
          if (!stats.isFile()) return UNREADABLE;
          expectedSize = stats.size;
        } catch {
          return UNREADABLE;
        }
      }
      if (bytes >= expectedSize) break;
      yield;
    }
    return { kind: 'text', bytes, lines: bytes > 0 && lastByte !== NEWLINE ? lines + 1 : lines };
  } finally {
    closeSync(fd);
  }
}

/** The whole measure at once, for callers that do not need to interleave (tests, one-off reads). */
export function measureFile(absolutePath: string, buffer: Buffer = Buffer.allocUnsafe(64 * 1024)): FileMeasure {
  const steps = measureFileSteps(absolutePath, buffer);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

function looksBinary(buffer: Buffer, length: number): boolean {
  // Bounded: the buffer still holds the previous file's bytes past `length`.
  return buffer.subarray(0, Math.min(length, NUL_SNIFF_BYTES)).includes(0) || isBinaryFileSync(buffer, length);
}

/** indexOf is memchr: on typical source lines it beats a byte loop about 2x (measured). */
function countNewlines(buffer: Buffer, length: number): number {
  const view = length === buffer.length ? buffer : buffer.subarray(0, length);
  let count = 0;
  for (let at = view.indexOf(NEWLINE); at !== -1; at = view.indexOf(NEWLINE, at + 1)) count++;
  return count;
}
