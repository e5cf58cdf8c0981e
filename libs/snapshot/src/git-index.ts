/**
 * What git's index says of a checkout's tracked files: the blob each one was added as, with the
 * size and mtime the index recorded for it. After `git status` has found a file unchanged, that
 * blob is its content's id, so a scan of a checkout needs no hashing and, for blobs already in the
 * fact store, no reading at all (a re-scan of a checkout reads only what changed, as one of a commit does).
 */
export interface IndexedFile {
  blob: string;
  /** The file's size when the index last looked at it. */
  bytes: number;
  /** Its mtime then, in whole milliseconds. */
  mtimeMs: number;
}

const NUL = 0;
const NEWLINE = 0x0a;
const TAB = 0x09;

/**
 * `git ls-files --stage --debug -z`: per entry, `<mode> <oid> <stage>\t<path>\0` followed by
 * indented lines `ctime: s:ns`, `mtime: s:ns`, `dev: d\tino: i`, `uid: u\tgid: g`, `size: n\tflags: f`.
 * Keeps the regular files (modes 100644 and 100755) at stage 0; undefined when the text is not in
 * that shape (a scan then hashes what it reads, as for a directory outside git). Parsed on the
 * bytes: a kernel checkout's listing is 16 MB, and a string and two regular expressions per entry
 * took 250 ms of it.
 */
export function parseIndexListing(listing: Buffer): Map<string, IndexedFile> | undefined {
  const files = new Map<string, IndexedFile>();
  const length = listing.length;
  let at = 0;
  while (at < length) {
    // <mode> <oid> <stage>\t<path>\0 (a JS loop: a Buffer.indexOf call costs more than these few bytes)
    const space = find(listing, SPACE, at);
    const tab = find(listing, TAB, space);
    const end = find(listing, NUL, tab);
    if (end >= length || tab - space < 43) return undefined;
    const regular = space - at === 6 && listing[at] === DIGIT_ONE && listing[at + 1] === DIGIT_ZERO && listing[tab - 1] === DIGIT_ZERO;
    const blob = listing.toString('latin1', space + 1, tab - 2);
    // The indented debug lines: "  label: value…\n" until the next entry.
    let seconds = -1;
    let nanoseconds = 0;
    let bytes = -1;
    at = end + 1;
    while (at < length && listing[at] === SPACE) {
      const lineEnd = find(listing, NEWLINE, at);
      if (listing[at + 2] === LETTER_M && listing[at + 3] === LETTER_T) {
        // "  mtime: s:ns"
        seconds = readNumber(listing, at + 9);
        nanoseconds = readNumber(listing, find(listing, COLON, at + 9) + 1);
      } else if (listing[at + 2] === LETTER_S && listing[at + 3] === LETTER_I) {
        bytes = readNumber(listing, at + 8); // "  size: n\tflags: f"
      }
      at = lineEnd + 1;
    }
    if (seconds < 0 || bytes < 0 || !/^[0-9a-f]{40,64}$/.test(blob)) return undefined;
    // Modes 100644 and 100755 (not 120000 symlinks, 160000 submodules), stage 0 (not a conflict).
    if (regular) files.set(listing.toString('utf8', tab + 1, end), { blob, bytes, mtimeMs: seconds * 1000 + Math.floor(nanoseconds / 1e6) });
  }
  return files;
}

const SPACE = 0x20;
const COLON = 0x3a;
const DIGIT_ZERO = 0x30;
const DIGIT_ONE = 0x31;
const LETTER_M = 0x6d;
const LETTER_T = 0x74;
const LETTER_S = 0x73;
const LETTER_I = 0x69;

/** The first `byte` at or after `from`, or the buffer's length. */
function find(listing: Buffer, byte: number, from: number): number {
  let at = from;
  while (at < listing.length && listing[at] !== byte) at++;
  return at;
}

/** The decimal digits at `at` (-1 when there are none). */
function readNumber(listing: Buffer, at: number): number {
  let value = -1;
  for (let index = at; index < listing.length; index++) {
    const digit = listing[index] - DIGIT_ZERO;
    if (digit < 0 || digit > 9) break;
    value = (value < 0 ? 0 : value * 10) + digit;
  }
  return value;
}

/** Attributes under which a working-tree file's bytes may differ from the blob git stores for it. */
const CONVERTING_ATTRIBUTES = new Set(['filter', 'ident', 'working-tree-encoding', 'eol', 'text', 'crlf']);

/**
 * Whether `.gitattributes` text may convert content between the working tree and the index (LFS
 * and other filters, line-ending conversion, `$Id$` expansion, re-encoding): then a file's bytes
 * on disk are not its blob's, and the index's ids cannot stand for what a scan reads. Conservative:
 * any such attribute set anywhere counts, whatever its pattern; unset (`-text`), unspecified
 * (`!eol`) and `binary` convert nothing.
 */
export function attributesMayConvert(text: string): boolean {
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [, ...attributes] = line.split(/\s+/);
    for (const attribute of attributes) {
      if (attribute.startsWith('-') || attribute.startsWith('!')) continue;
      if (CONVERTING_ATTRIBUTES.has(attribute.split('=')[0])) return true;
    }
  }
  return false;
}
