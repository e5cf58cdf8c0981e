import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import iconv from 'iconv-lite';
import { QuarryError } from '@quarry/contracts/errors';
import { formatBytes } from '@quarry/contracts/format';
import { isBinaryContent } from './binary';
import { fileVersionOf, type CachedFile, type FileCache } from './file-cache';
import { OTHER_LANGUAGE, languageOf } from './languages';
import { resolveInsideRoot, type ResolvedPath } from './safe-path';
import { redactSecrets } from './secrets';

/** 1-based, inclusive; no `end` reads to the end of the file. */
export interface LineRange {
  start: number;
  end?: number;
}

export interface ReadFileOptions {
  /** Largest file loaded whole, and largest line range returned; default 1 MiB. */
  maxBytes?: number;
  allowSecrets?: boolean;
  /**
   * Replace credentials in the text (default true). Independent of allowSecrets: an operator who
   * lets `.env` files through may still not want their values in prompts. Unredacted loads
   * bypass the cache, which holds redacted text only.
   */
  redact?: boolean;
  /** Whole files loaded through it are served from it while unchanged on disk. */
  cache?: FileCache;
  /** Only these lines. A file over `maxBytes` can still be read this way: it is streamed up to the range's end. */
  range?: LineRange;
  /** The workspace's files, if walked already: spares a walk when a missing path needs suggestions. */
  knownFiles?: readonly string[];
}

export interface WorkspaceFile {
  /** Root-relative POSIX path as the user named it. */
  path: string;
  /** UTF-8 text, secrets redacted; only the requested lines for a range. */
  text: string;
  /** UTF-8 bytes of `text`. */
  bytes: number;
  /** Lines in `text`. */
  lines: number;
  /** SHA-256 (hex) of `text`, i.e. of what is delivered, not of the file on disk. */
  sha256: string;
  /** Language name for the fence tag (languageOf), when known. */
  language?: string;
  /** Secrets replaced in `text`. */
  redactions: number;
  fromCache: boolean;
  /** The lines actually returned, after clamping an end past the end of the file. */
  range?: { start: number; end: number };
  /** Lines in the whole file, when known (always, unless a range was streamed out of a file over the cap). */
  totalLines?: number;
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
const STREAM_CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
/** Never follow a symlink swapped in after the checks; never block on a FIFO swapped in. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Loads a file of a workspace for a prompt: resolved safely (resolveInsideRoot), capped in size,
 * refused when binary, secrets redacted. Whole files go through `cache` when given: a cached load
 * costs one realpath and one stat. Failures are QuarryErrors (`file_not_found` with suggestions,
 * `path_outside_root`, `file_special`, `file_secret`, `file_too_large` suggesting a line range,
 * `file_binary`, `range_invalid`, `input_invalid` for a directory).
 */
export async function readWorkspaceFile(root: string, userPath: string, options: ReadFileOptions = {}): Promise<WorkspaceFile> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const redact = options.redact ?? true;
  const resolved = await resolveInsideRoot(root, userPath, { allowSecrets: options.allowSecrets, knownFiles: options.knownFiles });
  if (resolved.type === 'directory') {
    throw new QuarryError('input_invalid', `"${userPath}" is a directory, not a file.`, {
      suggestion: `List it with a trailing slash (@${resolved.relative || '.'}/), or name a file inside it.`,
    });
  }
  if (options.range !== undefined) checkRange(options.range);

  if (resolved.size > maxBytes) {
    if (options.range === undefined) throw await tooLarge(resolved, userPath, maxBytes);
    return describe(resolved, await streamRange(resolved, userPath, options.range, maxBytes, redact), false);
  }

  const cache = redact ? options.cache : undefined;
  const cached = cache?.get(resolved.absolute, fileVersionOf(resolved.stats));
  const whole = cached ?? (await loadWhole(resolved, userPath, maxBytes, cache, redact));
  if (options.range === undefined) return describe(resolved, { ...whole, totalLines: whole.lines }, cached !== undefined);
  return describe(resolved, sliceLines(whole, options.range, userPath, maxBytes), cached !== undefined);
}

interface Content {
  text: string;
  bytes: number;
  lines: number;
  sha256: string;
  redactions: number;
  range?: { start: number; end: number };
  totalLines?: number;
}

function describe(resolved: ResolvedPath, content: Content, fromCache: boolean): WorkspaceFile {
  const language = languageOf(resolved.relative);
  return {
    path: resolved.relative,
    text: content.text,
    bytes: content.bytes,
    lines: content.lines,
    sha256: content.sha256,
    ...(language === OTHER_LANGUAGE ? {} : { language }),
    redactions: content.redactions,
    fromCache,
    ...(content.range === undefined ? {} : { range: content.range }),
    ...(content.totalLines === undefined ? {} : { totalLines: content.totalLines }),
  };
}

/** Reads the whole file (at most maxBytes + 1 bytes: enough to tell it grew past the cap), then caches it. */
async function loadWhole(resolved: ResolvedPath, userPath: string, maxBytes: number, cache: FileCache | undefined, redact: boolean): Promise<CachedFile> {
  const handle = await openChecked(resolved, userPath);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw changedUnderfoot(userPath);
    let buffer = Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1);
    let length = await readInto(handle, buffer);
    if (length === buffer.length && length <= maxBytes) {
      // It grew since the fstat: read again, up to the cap.
      buffer = Buffer.allocUnsafe(maxBytes + 1);
      length = await readInto(handle, buffer);
    }
    if (length > maxBytes) throw await tooLarge({ ...resolved, size: Math.max(length, stats.size) }, userPath, maxBytes);
    if (isBinaryContent(buffer, length)) throw binary(userPath);
    const file = processText(decodeUtf8(buffer, length), redact);
    // The version is the open file's fstat, taken before reading: a write after it changes mtime
    // and ctime, so the next lookup misses instead of serving what was read here.
    cache?.set(resolved.absolute, fileVersionOf(stats), file);
    return file;
  } finally {
    await handle.close();
  }
}

function processText(raw: string, redact: boolean): CachedFile {
  const redaction = redact ? redactSecrets(raw) : { text: raw, redactions: 0, offsets: [] };
  const text = redaction.text;
  return {
    text,
    bytes: Buffer.byteLength(text),
    lines: countLines(text),
    sha256: sha256(text),
    redactions: redaction.redactions,
    redactedLines: lineNumbersOf(text, redaction.offsets),
  };
}

/** The requested lines of a file loaded whole; a start past the end is an error that says how many lines there are. */
function sliceLines(whole: CachedFile, range: LineRange, userPath: string, maxBytes: number): Content {
  if (range.start > whole.lines) throw pastEnd(userPath, range, whole.lines);
  const end = Math.min(range.end ?? whole.lines, whole.lines);
  const from = offsetOfLine(whole.text, range.start);
  const to = offsetOfLine(whole.text, end + 1);
  const text = whole.text.slice(from, to);
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) throw rangeTooLarge(userPath, { start: range.start, end }, maxBytes);
  const redactions = whole.redactedLines.filter((line) => line >= range.start && line <= end).length;
  return { text, bytes, lines: end - range.start + 1, sha256: sha256(text), redactions, range: { start: range.start, end }, totalLines: whole.lines };
}

/**
 * A line range out of a file too large to load whole: read chunk by chunk, keeping only the
 * range's bytes, stopping at its last line. Secrets are redacted in the range alone (a key block
 * that starts inside it and ends outside is redacted to the range's end).
 */
async function streamRange(resolved: ResolvedPath, userPath: string, range: LineRange, maxBytes: number, redact: boolean): Promise<Content> {
  const handle = await openChecked(resolved, userPath);
  try {
    const chunk = Buffer.allocUnsafe(STREAM_CHUNK_BYTES);
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let line = 1;
    let position = 0;
    let endedAtLineEnd = true;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      if (position === 0 && isBinaryContent(chunk, bytesRead)) throw binary(userPath);
      position += bytesRead;
      let lineStart = 0;
      let done = false;
      for (let index = 0; index < bytesRead && !done; index++) {
        if (chunk[index] !== NEWLINE) continue;
        if (line >= range.start) keptBytes += keep(kept, chunk, lineStart, index + 1);
        if (range.end !== undefined && line >= range.end) done = true;
        line++;
        lineStart = index + 1;
      }
      if (done) return rangeContent(kept, { start: range.start, end: range.end as number }, userPath, maxBytes, redact);
      if (line >= range.start && lineStart < bytesRead) keptBytes += keep(kept, chunk, lineStart, bytesRead);
      endedAtLineEnd = chunk[bytesRead - 1] === NEWLINE;
      if (keptBytes > maxBytes) throw rangeTooLarge(userPath, range, maxBytes);
    }
    const totalLines = endedAtLineEnd ? line - 1 : line;
    if (range.start > totalLines) throw pastEnd(userPath, range, totalLines);
    return { ...rangeContent(kept, { start: range.start, end: Math.min(range.end ?? totalLines, totalLines) }, userPath, maxBytes, redact), totalLines };
  } finally {
    await handle.close();
  }
}

function keep(kept: Buffer[], chunk: Buffer, from: number, to: number): number {
  // Copied: the chunk buffer is reused for the next read.
  kept.push(Buffer.from(chunk.subarray(from, to)));
  return to - from;
}

function rangeContent(kept: Buffer[], range: { start: number; end: number }, userPath: string, maxBytes: number, redact: boolean): Content {
  const buffer = Buffer.concat(kept);
  if (buffer.length > maxBytes) throw rangeTooLarge(userPath, range, maxBytes);
  const file = processText(decodeUtf8(buffer, buffer.length), redact);
  return { text: file.text, bytes: file.bytes, lines: range.end - range.start + 1, sha256: file.sha256, redactions: file.redactions, range };
}

async function openChecked(resolved: ResolvedPath, userPath: string): Promise<FileHandle> {
  try {
    return await open(resolved.absolute, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw changedUnderfoot(userPath);
    if (code === 'ENOENT') throw new QuarryError('file_not_found', `"${userPath}" was removed while it was being read.`, { permanent: false, cause: error });
    if (code === 'EACCES' || code === 'EPERM') {
      throw new QuarryError('file_not_found', `"${userPath}" cannot be read (permission denied).`, {
        suggestion: 'Ask the operator to make it readable by the Quarry worker.',
        cause: error,
      });
    }
    throw error;
  }
}

async function readInto(handle: FileHandle, buffer: Buffer): Promise<number> {
  let length = 0;
  while (length < buffer.length) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return length;
}


const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * UTF-8 (a BOM dropped) when the bytes are valid UTF-8; otherwise the single-byte encoding old
 * files on Windows and Unix mostly use (Windows-1252, a superset of Latin-1's printable range), so
 * `caf\xE9` reads as "café" instead of being refused or mangled.
 */
function decodeUtf8(buffer: Buffer, length: number): string {
  const bytes = buffer.subarray(0, length);
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return iconv.decode(bytes, 'windows-1252');
  }
}

/** Lines as editors count them: a final line without a newline still counts, an empty text has none. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return text.endsWith('\n') ? lines : lines + 1;
}

/** Offset where 1-based `line` starts; the text's length for the line after the last. */
function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const newline = text.indexOf('\n', offset);
    if (newline === -1) return text.length;
    offset = newline + 1;
  }
  return offset;
}

function lineNumbersOf(text: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const offset of offsets) {
    for (let newline = text.indexOf('\n', scanned); newline !== -1 && newline < offset; newline = text.indexOf('\n', newline + 1)) {
      line++;
      scanned = newline + 1;
    }
    lines.push(line);
  }
  return lines;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function checkRange(range: LineRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 1) {
    throw new QuarryError('range_invalid', `Line range start ${start} is invalid: lines are numbered from 1.`, { suggestion: 'Start the range at line 1 or later, e.g. #L1-20.' });
  }
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start)) {
    throw new QuarryError('range_invalid', `Line range ${start}-${end} is invalid: the end comes before the start.`, { suggestion: `Write it as #L${start}-${Math.max(start, Number(end) || start)} or swap the numbers.` });
  }
}

function pastEnd(userPath: string, range: LineRange, totalLines: number): QuarryError {
  return new QuarryError('range_invalid', `"${userPath}" has ${totalLines} line${totalLines === 1 ? '' : 's'}; line ${range.start} is past its end.`, {
    suggestion: totalLines === 0 ? 'The file is empty.' : `Use a range within 1-${totalLines}, e.g. ${mentionOf(userPath)}#L1-${Math.min(totalLines, 200)}.`,
  });
}

function rangeTooLarge(userPath: string, range: LineRange, maxBytes: number): QuarryError {
  return new QuarryError('file_too_large', `Lines ${range.start}-${range.end ?? 'end'} of "${userPath}" are more than ${formatBytes(maxBytes)}.`, {
    suggestion: 'Ask for fewer lines.',
  });
}

/**
 * `file_too_large`, with a line range that would fit: the first 64 KiB give the average line
 * length, so the suggestion is a range the user can paste and get (ranges are streamed).
 */
async function tooLarge(resolved: ResolvedPath, userPath: string, maxBytes: number): Promise<QuarryError> {
  const lines = await linesThatFit(resolved.absolute, maxBytes);
  return new QuarryError('file_too_large', `"${userPath}" is ${formatBytes(resolved.size)}; files over ${formatBytes(maxBytes)} are not loaded whole.`, {
    suggestion: `Mention a line range instead, e.g. ${mentionOf(userPath)}#L1-${lines}.`,
  });
}

async function linesThatFit(absolute: string, maxBytes: number): Promise<number> {
  const sample = Buffer.allocUnsafe(Math.min(STREAM_CHUNK_BYTES, Math.max(1, maxBytes)));
  let length = 0;
  try {
    const handle = await open(absolute, OPEN_FLAGS);
    try {
      length = (await handle.read(sample, 0, sample.length, 0)).bytesRead;
    } finally {
      await handle.close();
    }
  } catch {
    return 200;
  }
  let newlines = 0;
  for (let index = sample.indexOf(NEWLINE); index !== -1 && index < length; index = sample.indexOf(NEWLINE, index + 1)) newlines++;
  if (newlines === 0) return 1;
  // Nine tenths of the cap, rounded down to two significant digits: a round number with headroom.
  const fit = Math.max(1, Math.floor(((maxBytes * 0.9) / length) * newlines));
  const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(fit)) - 1);
  return Math.floor(fit / magnitude) * magnitude;
}

/** The path as a mention: quoted when it has a space or a character that would end a bare mention. */
function mentionOf(userPath: string): string {
  return /^[^\s"#]+$/.test(userPath) ? `@${userPath}` : `@"${userPath.replaceAll('"', '\\"')}"`;
}

function binary(userPath: string): QuarryError {
  return new QuarryError('file_binary', `"${userPath}" is a binary file; only text files are loaded.`, {
    suggestion: 'Mention a text file, or describe what you need from this one.',
  });
}

function changedUnderfoot(userPath: string): QuarryError {
  return new QuarryError('file_special', `"${userPath}" changed into something other than a regular file while it was being read.`, { permanent: false });
}

