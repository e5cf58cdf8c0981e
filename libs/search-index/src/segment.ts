import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { BINARY_SNIFF_BYTES, isBinaryContent } from '@quarry/workspace/binary';
import { TrigramCollector } from './trigrams';

/**
 * An index segment: the trigram postings of a set of blobs (a scan shard's), in one compact,
 * self-describing buffer. Layout (little-endian):
 *
 *   header   "QTI1", docs u32, trigrams u32, postingsBytes u32
 *   docs     blob ids (20 bytes each), sizes (u32 each), kinds (1 byte each)
 *   trigrams sorted u32 keys (24-bit trigrams)
 *   offsets  trigrams + 1 u32 offsets into the postings
 *   postings per trigram, its documents as delta varints (first one absolute)
 *
 * A reader keeps only the documents and one trigram in SAMPLE_EVERY in memory; a look-up reads
 * the block of trigrams it needs, two offsets and the postings (a few small reads per trigram),
 * so a query touches kilobytes however large the index.
 */

const MAGIC = 0x31495451; // "QTI1"
const HEADER_BYTES = 16;
const BLOB_BYTES = 20;
const DOC_BYTES = BLOB_BYTES + 4 + 1;
const SAMPLE_EVERY = 64;
/** A query intersects at most this many posting lists per segment, the rarest. */
const MAX_INTERSECTED = 6;

/** How a search must treat a document when its trigrams do not select it. */
export const DocKind = {
  /** Text whose trigrams are all indexed: absent from a query's postings → no match. */
  Text: 0,
  /** Binary (@quarry/workspace/binary: a NUL in the first 8,000 bytes): the search skips it, whatever the query. */
  Binary: 1,
  /** Not indexed (a NUL further in, or too large): always read and matched by the search. */
  AlwaysRead: 2,
} as const;
export type DocKind = (typeof DocKind)[keyof typeof DocKind];

/** Larger blobs are not indexed (they are read by every indexed query instead): the search's own size cap. */
export const MAX_INDEXED_BLOB_BYTES = 64 * 1024 * 1024;
/** Documents per segment: a document number is 16 bits while the segment is built. */
export const MAX_SEGMENT_DOCS = 0xffff;
/** Radix sort digits: two passes of 12 bits sort the 24-bit trigrams. */
const RADIX_BITS = 12;
const RADIX = 1 << RADIX_BITS;

export interface BuiltSegment {
  /** sha1 of the sorted blob ids: the same blobs always make the same segment id, whoever builds it. */
  id: string;
  data: Buffer;
  /** Its blobs, in document order. */
  blobs: string[];
  /** Bytes of the text documents it covers. */
  textBytes: number;
}

/**
 * Collects documents and encodes them as one segment. Memory while building: 6 bytes per
 * (document, distinct trigram) pair, twice over while sorting — no object per trigram.
 */
export class SegmentBuilder {
  private readonly collector = new TrigramCollector();
  private readonly docs: Array<{ blob: string; size: number; kind: DocKind }> = [];
  private readonly blobs = new Set<string>();
  private pairTrigrams = new Uint32Array(1 << 16);
  private pairDocs = new Uint16Array(1 << 16);
  private pairCount = 0;
  textBytes = 0;

  /** @param capacityHint pairs this builder is expected to hold at most (its series' cap): growth stops there. */
  constructor(private readonly capacityHint = Number.MAX_SAFE_INTEGER) {}

  get size(): number {
    return this.docs.length;
  }

  get full(): boolean {
    return this.docs.length >= MAX_SEGMENT_DOCS;
  }

  /** (document, distinct trigram) pairs so far: what the builder's memory grows with. */
  get pairs(): number {
    return this.pairCount;
  }

  /** Adds a blob (its id and bytes); a blob added twice is kept once. */
  add(blob: string, content: Buffer): void {
    if (this.blobs.has(blob)) return;
    if (this.full) throw new Error('segment full');
    this.blobs.add(blob);
    const doc = this.docs.length;
    const kind = kindOf(content);
    this.docs.push({ blob, size: Math.min(content.length, 0xffffffff), kind });
    if (kind !== DocKind.Text) return;
    this.textBytes += content.length;
    const trigrams = this.collector.collect(content);
    if (this.pairCount + trigrams.length > this.pairTrigrams.length) {
      // Doubling, but never past what the series will seal at (doubling 4.2 M pairs to 8.4 M
      // would allocate 75 MB for a segment sealed a document later).
      const needed = this.pairCount + trigrams.length;
      const capacity = Math.max(needed, Math.min(this.pairTrigrams.length * 2, this.capacityHint));
      const grownTrigrams = new Uint32Array(capacity);
      grownTrigrams.set(this.pairTrigrams.subarray(0, this.pairCount));
      this.pairTrigrams = grownTrigrams;
      const grownDocs = new Uint16Array(capacity);
      grownDocs.set(this.pairDocs.subarray(0, this.pairCount));
      this.pairDocs = grownDocs;
    }
    this.pairTrigrams.set(trigrams, this.pairCount);
    this.pairDocs.fill(doc, this.pairCount, this.pairCount + trigrams.length);
    this.pairCount += trigrams.length;
  }

  finish(): BuiltSegment {
    // Pairs arrive in document order; a stable radix sort by trigram keeps each posting list ascending.
    const count = this.pairCount;
    let trigrams = this.pairTrigrams.subarray(0, count);
    let docs = this.pairDocs.subarray(0, count);
    let spareTrigrams = new Uint32Array(count);
    let spareDocs = new Uint16Array(count);
    for (const shift of [0, RADIX_BITS]) {
      radixPass(trigrams, docs, spareTrigrams, spareDocs, shift);
      [trigrams, spareTrigrams] = [spareTrigrams, trigrams];
      [docs, spareDocs] = [spareDocs, docs];
    }
    spareTrigrams = new Uint32Array(0);
    spareDocs = new Uint16Array(0);
    this.pairTrigrams = new Uint32Array(0);
    this.pairDocs = new Uint16Array(0);

    // The sizes first (distinct trigrams, the postings' varint bytes), so the segment is written
    // once into a buffer of its size.
    let trigramCount = 0;
    let postingsBytes = 0;
    for (let index = 0; index < count; index++) {
      const first = index === 0 || trigrams[index] !== trigrams[index - 1];
      if (first) trigramCount++;
      const delta = first ? docs[index] : docs[index] - docs[index - 1];
      postingsBytes += delta < 0x80 ? 1 : delta < 0x4000 ? 2 : 3;
    }
    const docCount = this.docs.length;
    const tableAt = HEADER_BYTES + docCount * DOC_BYTES;
    const postingsAt = tableAt + trigramCount * 8 + 4;
    const data = Buffer.alloc(postingsAt + postingsBytes);
    const table = new DataView(data.buffer, data.byteOffset + tableAt, trigramCount * 8 + 4);
    let written = 0;
    let slot = -1;
    for (let index = 0; index < count; index++) {
      const doc = docs[index];
      let delta = doc;
      if (index === 0 || trigrams[index] !== trigrams[index - 1]) {
        slot++;
        table.setUint32(slot * 4, trigrams[index], true);
        table.setUint32(trigramCount * 4 + slot * 4, written, true);
      } else {
        delta = doc - docs[index - 1];
      }
      let at = postingsAt + written;
      while (delta >= 0x80) {
        data[at++] = (delta & 0x7f) | 0x80;
        delta >>>= 7;
      }
      data[at++] = delta;
      written = at - postingsAt;
    }
    table.setUint32(trigramCount * 8, written, true);

    data.writeUInt32LE(MAGIC, 0);
    data.writeUInt32LE(docCount, 4);
    data.writeUInt32LE(trigramCount, 8);
    data.writeUInt32LE(written, 12);
    let at = HEADER_BYTES;
    const blobs: string[] = [];
    for (const { blob } of this.docs) {
      blobs.push(blob);
      data.write(blob, at, BLOB_BYTES, 'hex');
      at += BLOB_BYTES;
    }
    for (const { size } of this.docs) at = data.writeUInt32LE(size, at);
    for (const { kind } of this.docs) at = data.writeUInt8(kind, at);
    const id = createHash('sha1').update([...blobs].sort().join('\n')).digest('hex');
    return { id, data, blobs, textBytes: this.textBytes };
  }
}

/**
 * A segment's pairs (6 bytes each, twice over while sorting) are capped: past this many the
 * segment is sealed and the next documents start another. Typical code has ~0.1 pair per byte
 * (48 MB of text ≈ 5 M pairs), but generated register headers (Linux's AMD `asic_reg`, 10–24 MB
 * each) hold a new identifier on nearly every line, and a shard of them made a worker peak at
 * 700 MB. At 2 M a builder holds 12 MB of pairs (24 MB while it sorts); the kernel's index has
 * ~100 segments instead of ~70, and a selective query reads a few KB more per segment.
 */
export const MAX_SEGMENT_PAIRS = 2_000_000;

/**
 * Segments built one after another from a stream of documents: a segment is sealed when its
 * pairs pass `maxPairs`, and `finish` returns every segment made. Memory: one builder's pairs,
 * plus the sealed segments' encoded bytes (about a tenth of their text).
 */
export class SegmentSeries {
  private builder: SegmentBuilder;
  private readonly sealed: BuiltSegment[] = [];
  private docs = 0;
  textBytes = 0;

  constructor(private readonly maxPairs = MAX_SEGMENT_PAIRS) {
    this.builder = new SegmentBuilder(maxPairs);
  }

  /** Documents in all its segments. */
  get size(): number {
    return this.docs;
  }

  /** A series takes any number of documents: a segment holding the most a segment can is sealed. */
  readonly full = false;

  add(blob: string, content: Buffer): void {
    const before = this.builder.size;
    const textBefore = this.builder.textBytes;
    this.builder.add(blob, content);
    this.docs += this.builder.size - before;
    this.textBytes += this.builder.textBytes - textBefore;
    if (this.builder.pairs >= this.maxPairs || this.builder.full) {
      this.sealed.push(this.builder.finish());
      this.builder = new SegmentBuilder(this.maxPairs);
    }
  }

  finish(): BuiltSegment[] {
    const segments = this.builder.size > 0 ? [...this.sealed, this.builder.finish()] : [...this.sealed];
    this.sealed.length = 0;
    this.builder = new SegmentBuilder(this.maxPairs);
    return segments;
  }
}

/** One stable counting pass of an LSD radix sort on RADIX_BITS bits of the trigrams, carrying the docs along. */
function radixPass(trigrams: Uint32Array, docs: Uint16Array, outTrigrams: Uint32Array, outDocs: Uint16Array, shift: number): void {
  const starts = new Uint32Array(RADIX + 1);
  for (let index = 0; index < trigrams.length; index++) starts[((trigrams[index] >>> shift) & (RADIX - 1)) + 1]++;
  for (let digit = 0; digit < RADIX; digit++) starts[digit + 1] += starts[digit];
  for (let index = 0; index < trigrams.length; index++) {
    const digit = (trigrams[index] >>> shift) & (RADIX - 1);
    const to = starts[digit]++;
    outTrigrams[to] = trigrams[index];
    outDocs[to] = docs[index];
  }
}

/** How the index treats a document with these bytes. */
export function kindOf(content: Buffer): DocKind {
  if (content.length > MAX_INDEXED_BLOB_BYTES) return DocKind.AlwaysRead;
  if (isBinaryContent(content)) return DocKind.Binary;
  // A NUL further in: ripgrep (and the search) drop such a file only when it has matches.
  if (content.length > BINARY_SNIFF_BYTES && content.indexOf(0, BINARY_SNIFF_BYTES) !== -1) return DocKind.AlwaysRead;
  return DocKind.Text;
}

/** The blob ids of a segment file, from its header and document table alone (kilobytes, not the postings). */
export function segmentFileBlobs(file: string): string[] {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, header, 0, HEADER_BYTES, 0) !== HEADER_BYTES || header.readUInt32LE(0) !== MAGIC) throw new Error(`${file} is not a search index segment`);
    const count = header.readUInt32LE(4);
    const ids = Buffer.alloc(count * BLOB_BYTES);
    if (readSync(fd, ids, 0, ids.length, HEADER_BYTES) !== ids.length) throw new Error(`${file} is cut short`);
    return Array.from({ length: count }, (_, doc) => ids.toString('hex', doc * BLOB_BYTES, (doc + 1) * BLOB_BYTES));
  } finally {
    closeSync(fd);
  }
}

/** Reads `length` bytes at `offset`: a file descriptor, or a buffer in memory. */
type ReadAt = (offset: number, length: number) => Buffer;

/** A segment opened for queries. */
export class SegmentReader {
  readonly blobs: string[];
  readonly sizes: Uint32Array;
  readonly kinds: Uint8Array;
  private readonly trigramCount: number;
  private readonly trigramsAt: number;
  private readonly offsetsAt: number;
  private readonly postingsAt: number;
  /** Every SAMPLE_EVERY-th trigram: a binary search here finds the block to read. */
  private readonly sample: Uint32Array;

  private constructor(
    private readonly readAt: ReadAt,
    private readonly release: () => void,
  ) {
    const header = readAt(0, HEADER_BYTES);
    if (header.readUInt32LE(0) !== MAGIC) throw new Error('not a search index segment');
    const docCount = header.readUInt32LE(4);
    this.trigramCount = header.readUInt32LE(8);
    const docs = readAt(HEADER_BYTES, docCount * DOC_BYTES);
    this.blobs = new Array<string>(docCount);
    for (let doc = 0; doc < docCount; doc++) this.blobs[doc] = docs.toString('hex', doc * BLOB_BYTES, (doc + 1) * BLOB_BYTES);
    this.sizes = new Uint32Array(docCount);
    for (let doc = 0; doc < docCount; doc++) this.sizes[doc] = docs.readUInt32LE(docCount * BLOB_BYTES + doc * 4);
    this.kinds = Uint8Array.from(docs.subarray(docCount * (BLOB_BYTES + 4)));
    this.trigramsAt = HEADER_BYTES + docCount * DOC_BYTES;
    this.offsetsAt = this.trigramsAt + this.trigramCount * 4;
    this.postingsAt = this.offsetsAt + (this.trigramCount + 1) * 4;
    const table = readAt(this.trigramsAt, this.trigramCount * 4);
    this.sample = new Uint32Array(Math.ceil(this.trigramCount / SAMPLE_EVERY));
    for (let index = 0; index < this.sample.length; index++) this.sample[index] = table.readUInt32LE(index * SAMPLE_EVERY * 4);
  }

  static fromBuffer(data: Buffer): SegmentReader {
    return new SegmentReader((offset, length) => data.subarray(offset, offset + length), () => undefined);
  }

  /** Opens a segment file; reads happen on demand (pread), the descriptor stays open until close(). */
  static fromFile(file: string): SegmentReader {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      return new SegmentReader((offset, length) => {
        const out = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - offset)));
        let done = 0;
        while (done < out.length) {
          const count = readSync(fd, out, done, out.length - done, offset + done);
          if (count === 0) break;
          done += count;
        }
        return out.subarray(0, done);
      }, () => closeSync(fd));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Where the trigram's postings are (a byte range of the postings), or undefined when no document holds it. */
  private locate(trigram: number): { start: number; end: number } | undefined {
    // Last sample ≤ trigram.
    let low = 0;
    let high = this.sample.length - 1;
    if (high < 0 || this.sample[0] > trigram) return undefined;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.sample[middle] <= trigram) low = middle;
      else high = middle - 1;
    }
    const blockStart = low * SAMPLE_EVERY;
    const blockLength = Math.min(SAMPLE_EVERY, this.trigramCount - blockStart);
    const block = this.readAt(this.trigramsAt + blockStart * 4, blockLength * 4);
    for (let index = 0; index < blockLength; index++) {
      const value = block.readUInt32LE(index * 4);
      if (value > trigram) return undefined;
      if (value === trigram) {
        const bounds = this.readAt(this.offsetsAt + (blockStart + index) * 4, 8);
        return { start: bounds.readUInt32LE(0), end: bounds.readUInt32LE(4) };
      }
    }
    return undefined;
  }

  private decode(range: { start: number; end: number }): Uint32Array {
    const bytes = this.readAt(this.postingsAt + range.start, range.end - range.start);
    const docs = new Uint32Array(bytes.length);
    let count = 0;
    let doc = 0;
    for (let index = 0; index < bytes.length; ) {
      let value = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = bytes[index++];
        value |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte & 0x80);
      doc = count === 0 ? value : doc + value;
      docs[count++] = doc;
    }
    return docs.subarray(0, count);
  }

  /** The documents holding the trigram, ascending, or an empty array. */
  postings(trigram: number): Uint32Array {
    const range = this.locate(trigram);
    return range ? this.decode(range) : EMPTY;
  }

  /**
   * Documents holding every one of the trigrams, ascending (all of them for no trigram) — or a
   * superset: the rarest MAX_INTERSECTED lists are intersected, rarest first, and the common
   * ones (`ext`, `per`: thousands of documents) skipped, since they would cost more to decode
   * than the few candidates they rule out cost to verify.
   */
  candidates(trigrams: readonly number[]): Uint32Array {
    if (trigrams.length === 0) return Uint32Array.from(this.blobs.keys());
    const ranges: Array<{ start: number; end: number }> = [];
    for (const trigram of trigrams) {
      const range = this.locate(trigram);
      if (!range) return EMPTY;
      ranges.push(range);
    }
    ranges.sort((a, b) => a.end - a.start - (b.end - b.start));
    let result = this.decode(ranges[0]);
    for (let index = 1; index < Math.min(ranges.length, MAX_INTERSECTED) && result.length > 0; index++) result = intersect(result, this.decode(ranges[index]));
    return result;
  }

  close(): void {
    this.release();
  }
}

const EMPTY = new Uint32Array(0);

function intersect(small: Uint32Array, large: Uint32Array): Uint32Array {
  const out = new Uint32Array(small.length);
  let count = 0;
  let j = 0;
  for (let i = 0; i < small.length && j < large.length; i++) {
    const value = small[i];
    while (j < large.length && large[j] < value) j++;
    if (large[j] === value) out[count++] = value;
  }
  return out.subarray(0, count);
}
