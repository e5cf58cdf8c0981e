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

/**
 * Reads git's index file (`.git/index`, versions 2, 3 and 4) as git writes it: per entry the stat
 * data git checks (`mtime`, `size`), the mode, the blob id and the path. Keeps the regular files
 * (modes 100644 and 100755, not links or submodules) at stage 0 (not conflicts). `hashBytes` is 20
 * for SHA-1 repositories, 32 for SHA-256 ones.
 *
 * Undefined when the file is not in that shape, and for a split index (its entries live in a
 * second, shared file): a scan then hashes what it reads, as for a directory outside git.
 *
 * Read directly rather than through `git ls-files --stage --debug`: on a kernel checkout that
 * listing is 16 MB of text, and collecting and parsing it took ~300 ms of the main thread while
 * the walk was waiting for it; the index itself is 8 MB and parses in a fraction of that.
 */
export function parseIndexFile(index: Buffer, hashBytes: 20 | 32 = 20): Map<string, IndexedFile> | undefined {
  if (index.length < HEADER_BYTES || index.readUInt32BE(0) !== DIRC) return undefined;
  const version = index.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = index.readUInt32BE(8);
  const files = new Map<string, IndexedFile>();
  const fixedBytes = STAT_BYTES + hashBytes + FLAGS_BYTES;
  // Entries end where the extensions and the trailing checksum begin.
  const end = index.length - hashBytes;
  let at = HEADER_BYTES;
  let previousPath: Buffer = Buffer.alloc(0);
  for (let entry = 0; entry < count; entry++) {
    if (at + fixedBytes > end) return undefined;
    const flags = index.readUInt16BE(at + STAT_BYTES + hashBytes);
    const extended = (flags & EXTENDED_FLAG) !== 0;
    if (extended && version < 3) return undefined;
    const entryStart = at;
    let pathStart = at + fixedBytes + (extended ? 2 : 0);
    let path: string;
    if (version === 4) {
      // The path is the previous one less N bytes from its end (N a varint), plus a NUL-ended suffix.
      const strip = readVarint(index, pathStart);
      if (!strip || strip.value > previousPath.length) return undefined;
      pathStart = strip.next;
      const nul = index.indexOf(NUL, pathStart);
      if (nul < 0 || nul > end) return undefined;
      previousPath = Buffer.concat([previousPath.subarray(0, previousPath.length - strip.value), index.subarray(pathStart, nul)]);
      path = previousPath.toString('utf8');
      at = nul + 1;
    } else {
      // The name's length is in the flags (12 bits; 0xFFF means "this long or longer": look for its NUL).
      const nameLength = flags & NAME_LENGTH_MASK;
      const nul = nameLength < NAME_LENGTH_MASK ? pathStart + nameLength : index.indexOf(NUL, pathStart + NAME_LENGTH_MASK);
      if (nul < 0 || nul >= end || index[nul] !== NUL) return undefined;
      path = index.toString('utf8', pathStart, nul);
      // Entries are padded with 1–8 NULs to a multiple of 8 bytes, counted from the entry's start.
      at = entryStart + ((nul - entryStart + 8) & ~7);
    }
    const mode = index.readUInt32BE(entryStart + 24);
    // Stage 0 only: stages 1–3 are a conflict's sides.
    if ((flags & STAGE_MASK) === 0 && (mode === REGULAR || mode === EXECUTABLE)) {
      files.set(path, {
        blob: index.toString('hex', entryStart + STAT_BYTES, entryStart + STAT_BYTES + hashBytes),
        bytes: index.readUInt32BE(entryStart + 36),
        mtimeMs: index.readUInt32BE(entryStart + 8) * 1000 + Math.floor(index.readUInt32BE(entryStart + 12) / 1e6),
      });
    }
  }
  // A split index keeps most entries in a shared file ("link" extension): not all are here.
  for (let extension = at; extension + 8 <= end; ) {
    if (index.readUInt32BE(extension) === LINK) return undefined;
    extension += 8 + index.readUInt32BE(extension + 4);
  }
  return files;
}

const NUL = 0;
const HEADER_BYTES = 12;
/** ctime, mtime (seconds and nanoseconds each), dev, ino, mode, uid, gid, size: ten 32-bit fields. */
const STAT_BYTES = 40;
const FLAGS_BYTES = 2;
const EXTENDED_FLAG = 0x4000;
const STAGE_MASK = 0x3000;
const NAME_LENGTH_MASK = 0xfff;
const DIRC = 0x44495243; // "DIRC"
const LINK = 0x6c696e6b; // "link"
const REGULAR = 0o100644;
const EXECUTABLE = 0o100755;

/** Git's offset varint (the index's v4 path compression): big-endian 7-bit groups, each continuation adding one. */
function readVarint(buffer: Buffer, from: number): { value: number; next: number } | undefined {
  let at = from;
  if (at >= buffer.length) return undefined;
  let byte = buffer[at++];
  let value = byte & 0x7f;
  while (byte & 0x80) {
    if (at >= buffer.length || value > 0xffffff) return undefined;
    byte = buffer[at++];
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next: at };
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
