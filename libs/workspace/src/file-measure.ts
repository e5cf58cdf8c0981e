import { close, closeSync, constants, fstat, fstatSync, open, openSync, read, readSync } from 'node:fs';
import { isBinaryContent } from './binary';
import { countByte } from './byte-count';

/** What reading one listed file found. */
export type FileMeasure =
  | { kind: 'text'; bytes: number; lines: number }
  | { kind: 'binary' }
  /**
   * Gone, unreadable, or no longer a regular file since it was listed; or, when the caller said
   * what it expected of the file (`ExpectedStat`), no longer that once read.
   */
  | { kind: 'unreadable' };

/**
 * The size and mtime (whole milliseconds) a caller expects a file to have: a checkout's file whose
 * blob id git's index vouched for at that stat. Checked on the open file after reading it (one
 * fstat), so a write before or during the read is seen.
 */
export interface ExpectedStat {
  bytes: number;
  mtimeMs: number;
}

/** The chunk every read goes through; files larger than this are streamed, never held whole. */
export const READ_CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
/**
 * O_NOFOLLOW: a file swapped for a symlink after listing is refused (ELOOP) instead of read
 * outside the root. O_NONBLOCK: a file swapped for a FIFO cannot hang the open or the read.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const UNREADABLE: FileMeasure = { kind: 'unreadable' };
const BINARY: FileMeasure = { kind: 'binary' };

/**
 * Bytes and lines of one file, fed chunk by chunk, shared by the blocking and the concurrent
 * reader so both count the same way. Lines are the '\n's, plus one for a last line without one.
 *
 * Most source files fit in one chunk, which makes a file open, read, close. A short read of a
 * regular file is its end; a file that fills the chunk is fstat'ed once, for its size (sparing the
 * read that would only confirm the end) and to refuse a device swapped in after listing.
 */
class ContentCount {
  bytes = 0;
  private lines = 0;
  private lastByte = NEWLINE;
  /** From fstat once a chunk came back full; -1 before. */
  expectedSize = -1;

  /** Takes one chunk; BINARY if the first chunk says so, else whether more may follow. */
  add(buffer: Buffer, count: number): typeof BINARY | 'done' | 'more' {
    if (count === 0) return 'done';
    if (this.bytes === 0 && isBinaryContent(buffer, count)) return BINARY;
    this.lines += countNewlines(buffer, count);
    this.lastByte = buffer[count - 1];
    this.bytes += count;
    if (count < buffer.length || (this.expectedSize >= 0 && this.bytes >= this.expectedSize)) return 'done';
    return 'more';
  }

  /** Needs the size (fstat) before reading on. */
  get needsSize(): boolean {
    return this.expectedSize < 0;
  }

  /** Records fstat's answer: whether to read on, stop, or give up on a file that is no longer regular. */
  setSize(isFile: boolean, size: number): 'unreadable' | 'done' | 'more' {
    if (!isFile) return 'unreadable';
    this.expectedSize = size;
    return this.bytes >= size ? 'done' : 'more';
  }

  result(): FileMeasure {
    return { kind: 'text', bytes: this.bytes, lines: this.bytes > 0 && this.lastByte !== NEWLINE ? this.lines + 1 : this.lines };
  }
}

/**
 * The blocking reader: synchronous reads through `buffer` (the caller's, reused across files),
 * one chunk per step. The generator yields after every chunk but the last, so the caller decides
 * how long it may hold the event loop and can stop mid-file (`return()` closes the file).
 */
export function* measureFileSteps(absolutePath: string, buffer: Buffer, expect?: ExpectedStat): Generator<void, FileMeasure, void> {
  let fd: number;
  try {
    fd = openSync(absolutePath, OPEN_FLAGS);
  } catch {
    return UNREADABLE;
  }
  try {
    const count = new ContentCount();
    const checked = (measure: FileMeasure): FileMeasure => {
      if (!expect) return measure;
      try {
        return hasStat(fstatSync(fd), expect) ? measure : UNREADABLE;
      } catch {
        return UNREADABLE;
      }
    };
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, 0, buffer.length, count.bytes);
      } catch {
        return UNREADABLE;
      }
      const next = count.add(buffer, read);
      if (next === BINARY) return checked(BINARY);
      if (next === 'done') return checked(count.result());
      if (count.needsSize) {
        let afterSize: 'unreadable' | 'done' | 'more';
        // An expected size needs no fstat of its own: the one after reading checks it.
        if (expect) afterSize = count.setSize(true, expect.bytes);
        else {
          try {
            const stats = fstatSync(fd);
            afterSize = count.setSize(stats.isFile(), stats.size);
          } catch {
            return UNREADABLE;
          }
        }
        if (afterSize === 'unreadable') return UNREADABLE;
        if (afterSize === 'done') return checked(count.result());
      }
      yield;
    }
  } finally {
    closeSync(fd);
  }
}

/** The blocking reader run to the end: for one-off reads and tests. */
export function measureFile(absolutePath: string, buffer: Buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES)): FileMeasure {
  const steps = measureFileSteps(absolutePath, buffer);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The concurrent reader: the same reads through the libuv thread pool, so many files can wait on
 * the disk at once. Callbacks rather than FileHandle: measured ~3x cheaper per file. The file is
 * closed before the promise settles; an abort between chunks rejects with the signal's reason.
 */
export function measureFileConcurrently(absolutePath: string, buffer: Buffer, signal?: AbortSignal, expect?: ExpectedStat): Promise<FileMeasure> {
  return new Promise((resolve, reject) => {
    open(absolutePath, OPEN_FLAGS, (openError, fd) => {
      if (openError) return resolve(UNREADABLE);
      const count = new ContentCount();
      const settle = (outcome: FileMeasure | { aborted: unknown }) =>
        close(fd, () => ('aborted' in outcome ? reject(outcome.aborted) : resolve(outcome)));
      const finish = (outcome: FileMeasure | { aborted: unknown }) => {
        if (!expect || 'aborted' in outcome || outcome === UNREADABLE) return settle(outcome);
        fstat(fd, (statError, stats) => settle(!statError && hasStat(stats, expect) ? outcome : UNREADABLE));
      };
      const readNext = () => {
        if (signal?.aborted) return finish({ aborted: signal.reason });
        read(fd, buffer, 0, buffer.length, count.bytes, onRead);
      };
      const onRead = (readError: NodeJS.ErrnoException | null, read: number) => {
        if (readError) return finish(UNREADABLE);
        const next = count.add(buffer, read);
        if (next === BINARY) return finish(BINARY);
        if (next === 'done') return finish(count.result());
        if (!count.needsSize) return readNext();
        // An expected size needs no fstat of its own: the one in `finish` checks it.
        if (expect) return count.setSize(true, expect.bytes) === 'done' ? finish(count.result()) : readNext();
        fstat(fd, (statError, stats) => {
          const afterSize = statError ? 'unreadable' : count.setSize(stats.isFile(), stats.size);
          if (afterSize === 'unreadable') return finish(UNREADABLE);
          return afterSize === 'done' ? finish(count.result()) : readNext();
        });
      };
      readNext();
    });
  });
}

/** Whether an open file still is the regular file of the expected size and mtime. */
function hasStat(stats: { isFile(): boolean; size: number; mtimeMs: number }, expect: ExpectedStat): boolean {
  return stats.isFile() && stats.size === expect.bytes && Math.floor(stats.mtimeMs) === expect.mtimeMs;
}


/** SIMD in WebAssembly (byte-count.ts): ~6x faster than one indexOf per line on kernel source. */
function countNewlines(buffer: Buffer, length: number): number {
  return countByte(buffer, length, NEWLINE);
}

/**
 * The same measure of content already in memory (a git blob): binary by the first chunk, as the
 * readers decide it, then bytes and lines. Equal to what the readers give for the same bytes on disk.
 */
export function measureContent(content: Buffer): FileMeasure {
  if (content.length === 0) return { kind: 'text', bytes: 0, lines: 0 };
  if (isBinaryContent(content, Math.min(content.length, READ_CHUNK_BYTES))) return BINARY;
  const lines = countNewlines(content, content.length);
  return { kind: 'text', bytes: content.length, lines: content[content.length - 1] === NEWLINE ? lines : lines + 1 };
}
