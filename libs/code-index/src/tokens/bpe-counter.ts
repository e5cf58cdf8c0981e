/**
 * Exact o200k_base / cl100k_base token counts, several times faster than `gpt-tokenizer`'s
 * `countTokens` and equal to it on every text (the spec compares them on this repository, a fuzz
 * and Linux `fs/`). The same algorithm, done with less work:
 *
 *  - a hand-written pre-tokenizer that returns the pieces the encodings' split regexes match (the
 *    regex, alternative by alternative, with its backtracking worked out: `bpe-counter.spec.ts`
 *    checks the pieces against the regex itself); character classes for non-ASCII code points come
 *    from the same Unicode property escapes, asked once per code point;
 *  - a piece is looked up by its UTF-8 bytes in open-addressing tables over gpt-tokenizer's own
 *    rank data (no substring, no string map; keys of up to 8 bytes packed into the slot), behind a
 *    small direct-mapped cache of recent short pieces; most pieces of code are one token;
 *  - pieces that are not are merged on their bytes (the same lowest-rank-leftmost merges; with a
 *    heap past 96 bytes, so a megabyte-long run is not quadratic) and the count kept in a bounded
 *    cache keyed by copied bytes, so it never holds a file's text alive;
 *  - nothing but the count is built: no token arrays.
 *
 * gpt-tokenizer's own quirks are reproduced, because equality with it (and so with Repomix) is the
 * point: a byte range that is valid UTF-8 starting with a byte-order mark is looked up without the
 * mark (its TextDecoder drops a leading BOM), so the BOM-prefixed tokens are never produced and
 * '\ufeff名' is 1 token (tiktoken: 2); a piece holding a lone surrogate is encoded with U+FFFD and
 * never looked up whole (no count depends on that with these vocabularies, but it is what it does).
 */

import fs from 'node:fs';
import path from 'node:path';
import { nativeAddon } from '../native';

export type BpeEncodingName = 'o200k_base' | 'cl100k_base';

// ---------------------------------------------------------------------------------------------
// Character classes, per code point: 0 = not computed yet.

const KNOWN = 1;
const LETTER = 2; // \p{L}
const NUMBER = 4; // \p{N}
const SPACE = 8; // \s
const UPPER = 16; // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k)
const LOWER = 32; // [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k)
const NEWLINE = 64; // [\r\n]
/** [^\r\n\p{L}\p{N}]: may precede a run of letters. */
const NOT_PREFIX = LETTER | NUMBER | NEWLINE;
/** [^\s\p{L}\p{N}]: punctuation and symbols (and marks, lone surrogates…). */
const NOT_PUNCTUATION = LETTER | NUMBER | SPACE;

const CLASS_TESTS: [RegExp, number][] = [
  [/^\p{L}$/u, LETTER],
  [/^\p{N}$/u, NUMBER],
  [/^\s$/u, SPACE],
  [/^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$/u, UPPER],
  [/^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$/u, LOWER],
  [/^[\r\n]$/u, NEWLINE],
];

const classes = new Uint8Array(0x110000);

function classify(codePoint: number): number {
  // String.fromCodePoint(0xd800) is the lone surrogate itself, classified as the regex sees it.
  const text = String.fromCodePoint(codePoint);
  let flags = KNOWN;
  for (const [test, flag] of CLASS_TESTS) if (test.test(text)) flags |= flag;
  classes[codePoint] = flags;
  return flags;
}

for (let c = 0; c < 0x80; c++) classify(c);

/** The code point at i (a lone surrogate is its own code point, as in a `u` regex). */
function codePointAt(text: string, i: number, length: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  }
  return c;
}

function classOf(codePoint: number): number {
  const flags = classes[codePoint];
  return flags !== 0 ? flags : classify(codePoint);
}

// ---------------------------------------------------------------------------------------------
// The pre-tokenizers: each returns where the piece starting at i ends.

/** `'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])` at i, or i. */
function contraction(text: string, i: number, length: number): number {
  if (i + 1 >= length || text.charCodeAt(i) !== 0x27) return i;
  const c = text.charCodeAt(i + 1) | 0x20;
  if (c === 0x73 || c === 0x64 || c === 0x6d || c === 0x74) return i + 2; // s d m t
  if (i + 2 >= length) return i;
  const d = text.charCodeAt(i + 2) | 0x20;
  if ((c === 0x6c && d === 0x6c) || (c === 0x76 && d === 0x65) || (c === 0x72 && d === 0x65)) return i + 3; // ll ve re
  return i;
}

/** o200k `[upper]*[lower]+(contraction)?` from i, or -1. */
function lowerWord(text: string, i: number, length: number): number {
  let p = i;
  let afterLastLower = -1;
  let flags = 0;
  let width = 1;
  while (p < length) {
    const c = codePointAt(text, p, length);
    width = c > 0xffff ? 2 : 1;
    flags = c < 0x80 ? classes[c] : classOf(c);
    if ((flags & UPPER) === 0) break;
    p += width;
    if ((flags & LOWER) !== 0) afterLastLower = p;
  }
  let end: number;
  if (p < length && (flags & LOWER) !== 0) {
    // The upper run stopped at a lower-only letter: the lower run goes as far as it can.
    end = p + width;
    while (end < length) {
      const c = codePointAt(text, end, length);
      const f = c < 0x80 ? classes[c] : classOf(c);
      if ((f & LOWER) === 0) break;
      end += c > 0xffff ? 2 : 1;
    }
  } else if (afterLastLower !== -1) {
    // Backtracking gives the lower run the last letter of the upper run that is both.
    end = afterLastLower;
  } else {
    return -1;
  }
  return contraction(text, end, length);
}

/** o200k `[upper]+[lower]*(contraction)?` from i, or -1. */
function upperWord(text: string, i: number, length: number): number {
  let p = i;
  while (p < length) {
    const c = codePointAt(text, p, length);
    const f = c < 0x80 ? classes[c] : classOf(c);
    if ((f & UPPER) === 0) break;
    p += c > 0xffff ? 2 : 1;
  }
  if (p === i) return -1;
  while (p < length) {
    const c = codePointAt(text, p, length);
    const f = c < 0x80 ? classes[c] : classOf(c);
    if ((f & LOWER) === 0) break;
    p += c > 0xffff ? 2 : 1;
  }
  return contraction(text, p, length);
}

/** `\p{N}{1,3}` from i (i is a number). */
function digits(text: string, i: number, length: number, firstWidth: number): number {
  let p = i + firstWidth;
  for (let n = 1; n < 3 && p < length; n++) {
    const c = codePointAt(text, p, length);
    const f = c < 0x80 ? classes[c] : classOf(c);
    if ((f & NUMBER) === 0) break;
    p += c > 0xffff ? 2 : 1;
  }
  return p;
}

/** `[^\s\p{L}\p{N}]+[\r\n/]*` (o200k, slash) or `…[\r\n]*` (cl100k) from i (i is punctuation). */
function punctuation(text: string, i: number, length: number, slash: boolean): number {
  let p = i;
  while (p < length) {
    const c = codePointAt(text, p, length);
    const f = c < 0x80 ? classes[c] : classOf(c);
    if ((f & NOT_PUNCTUATION) !== 0) break;
    p += c > 0xffff ? 2 : 1;
  }
  while (p < length) {
    const c = text.charCodeAt(p);
    if (c !== 0x0a && c !== 0x0d && !(slash && c === 0x2f)) break;
    p++;
  }
  return p;
}

/**
 * A run of whitespace from i: `\s*[\r\n]+` (o200k) or `\s+$` then `\s*[\r\n]` (cl100k) end after
 * the run's last newline; `\s+(?!\S)` leaves the run's last character to the next piece; `\s+`.
 */
function whitespace(text: string, i: number, length: number, o200k: boolean): number {
  let q = i;
  let afterLastNewline = -1;
  let count = 0;
  let lastWidth = 1;
  while (q < length) {
    const c = codePointAt(text, q, length);
    const f = c < 0x80 ? classes[c] : classOf(c);
    if ((f & SPACE) === 0) break;
    lastWidth = c > 0xffff ? 2 : 1;
    q += lastWidth;
    count++;
    if ((f & NEWLINE) !== 0) afterLastNewline = q;
  }
  if (o200k) {
    if (afterLastNewline !== -1) return afterLastNewline;
    if (q === length) return q;
  } else {
    if (q === length) return q;
    if (afterLastNewline !== -1) return afterLastNewline;
  }
  return count >= 2 ? q - lastWidth : q;
}

/** Where the o200k_base piece starting at i ends: any text. */
function o200kPieceEndGeneral(text: string, i: number, length: number): number {
  const c0 = codePointAt(text, i, length);
  const w0 = c0 > 0xffff ? 2 : 1;
  const f0 = c0 < 0x80 ? classes[c0] : classOf(c0);
  const next = i + w0;
  const prefix = (f0 & NOT_PREFIX) === 0 && next < length;
  if ((f0 & (UPPER | LOWER)) !== 0 || prefix) {
    let end: number;
    if (prefix && (end = lowerWord(text, next, length)) !== -1) return end;
    if ((end = lowerWord(text, i, length)) !== -1) return end;
    if (prefix && (end = upperWord(text, next, length)) !== -1) return end;
    if ((end = upperWord(text, i, length)) !== -1) return end;
  }
  if ((f0 & NUMBER) !== 0) return digits(text, i, length, w0);
  if (c0 === 0x20 && next < length) {
    const c1 = codePointAt(text, next, length);
    const f1 = c1 < 0x80 ? classes[c1] : classOf(c1);
    if ((f1 & NOT_PUNCTUATION) === 0) return punctuation(text, next, length, true);
  }
  if ((f0 & SPACE) !== 0) return whitespace(text, i, length, true);
  return punctuation(text, i, length, true);
}

/** Where the cl100k_base piece starting at i ends: any text. */
function cl100kPieceEndGeneral(text: string, i: number, length: number): number {
  const c0 = codePointAt(text, i, length);
  if (c0 === 0x27) {
    const end = contraction(text, i, length);
    if (end !== i) return end;
  }
  const w0 = c0 > 0xffff ? 2 : 1;
  const f0 = c0 < 0x80 ? classes[c0] : classOf(c0);
  const next = i + w0;
  let f1 = 0;
  let w1 = 1;
  if (next < length) {
    const c1 = codePointAt(text, next, length);
    w1 = c1 > 0xffff ? 2 : 1;
    f1 = c1 < 0x80 ? classes[c1] : classOf(c1);
  }
  // `[^\r\n\p{L}\p{N}]?\p{L}+`
  let letters = -1;
  if ((f0 & NOT_PREFIX) === 0 && (f1 & LETTER) !== 0) letters = next + w1;
  else if ((f0 & LETTER) !== 0) letters = next;
  if (letters !== -1) {
    while (letters < length) {
      const c = codePointAt(text, letters, length);
      const f = c < 0x80 ? classes[c] : classOf(c);
      if ((f & LETTER) === 0) break;
      letters += c > 0xffff ? 2 : 1;
    }
    return letters;
  }
  if ((f0 & NUMBER) !== 0) return digits(text, i, length, w0);
  if (c0 === 0x20 && next < length && (f1 & NOT_PUNCTUATION) === 0) return punctuation(text, next, length, false);
  if ((f0 & SPACE) !== 0) return whitespace(text, i, length, false);
  return punctuation(text, i, length, false);
}

// The same for ASCII, the common case, with fewer steps; anything else goes the general way.

const ASCII_LOWER = 1; // a-z
const ASCII_UPPER = 2; // A-Z
const ASCII_DIGIT = 3;
const ASCII_NEWLINE = 4; // \r \n
const ASCII_SPACE = 5; // space \t \v \f: may precede letters
const ASCII_OTHER = 6; // punctuation, symbols, controls: may precede letters
const ASCII_KIND = new Uint8Array(0x80);
for (let c = 0; c < 0x80; c++) {
  const f = classes[c];
  ASCII_KIND[c] =
    (f & LETTER) !== 0
      ? (f & LOWER) !== 0
        ? ASCII_LOWER
        : ASCII_UPPER
      : (f & NUMBER) !== 0
        ? ASCII_DIGIT
        : (f & NEWLINE) !== 0
          ? ASCII_NEWLINE
          : (f & SPACE) !== 0
            ? ASCII_SPACE
            : ASCII_OTHER;
}

/** Where the o200k_base piece starting at i ends. */
export function o200kPieceEnd(text: string, i: number, length: number): number {
  const c0 = text.charCodeAt(i);
  if (c0 >= 0x80) return o200kPieceEndGeneral(text, i, length);
  let kind = ASCII_KIND[c0];
  let q = i + 1; // letters: the end so far
  if (kind >= ASCII_SPACE) {
    if (q >= length) return q;
    const c1 = text.charCodeAt(q);
    if (c1 >= 0x80) return o200kPieceEndGeneral(text, i, length);
    const kind1 = ASCII_KIND[c1];
    if (kind1 > ASCII_UPPER) {
      if (kind1 === ASCII_OTHER && c0 === 0x20) return punctuation(text, q, length, true);
      return kind === ASCII_SPACE ? whitespace(text, i, length, true) : punctuation(text, i, length, true);
    }
    // A prefix, then letters.
    kind = kind1;
    q++;
  } else if (kind === ASCII_DIGIT) {
    return digits(text, i, length, 1);
  } else if (kind === ASCII_NEWLINE) {
    return whitespace(text, i, length, true);
  }
  // [upper]*[lower]+ or [upper]+: capitals, then small letters.
  if (kind === ASCII_UPPER) {
    while (q < length && ASCII_KIND[text.charCodeAt(q)] === ASCII_UPPER) q++;
    if (q < length && ASCII_KIND[text.charCodeAt(q)] === ASCII_LOWER) kind = ASCII_LOWER;
  }
  if (kind === ASCII_LOWER) while (q < length && ASCII_KIND[text.charCodeAt(q)] === ASCII_LOWER) q++;
  if (q < length) {
    const c = text.charCodeAt(q);
    // A non-ASCII letter or mark could continue the word: the general way decides.
    if (c >= 0x80) return o200kPieceEndGeneral(text, i, length);
    if (c === 0x27) return contraction(text, q, length);
  }
  return q;
}

/** Where the cl100k_base piece starting at i ends. */
export function cl100kPieceEnd(text: string, i: number, length: number): number {
  const c0 = text.charCodeAt(i);
  // An apostrophe may start a contraction, the first alternative.
  if (c0 >= 0x80 || c0 === 0x27) return cl100kPieceEndGeneral(text, i, length);
  const kind = ASCII_KIND[c0];
  let q = i + 1;
  if (kind >= ASCII_SPACE) {
    if (q >= length) return q;
    const c1 = text.charCodeAt(q);
    if (c1 >= 0x80) return cl100kPieceEndGeneral(text, i, length);
    const kind1 = ASCII_KIND[c1];
    if (kind1 > ASCII_UPPER) {
      if (kind1 === ASCII_OTHER && c0 === 0x20) return punctuation(text, q, length, false);
      return kind === ASCII_SPACE ? whitespace(text, i, length, false) : punctuation(text, i, length, false);
    }
    q++;
  } else if (kind === ASCII_DIGIT) {
    return digits(text, i, length, 1);
  } else if (kind === ASCII_NEWLINE) {
    return whitespace(text, i, length, false);
  }
  // \p{L}+
  while (q < length) {
    const c = text.charCodeAt(q);
    if (c >= 0x80) return cl100kPieceEndGeneral(text, i, length);
    if (ASCII_KIND[c] > ASCII_UPPER) break;
    q++;
  }
  return q;
}

// ---------------------------------------------------------------------------------------------
// Byte-keyed hash tables. A key of up to 8 bytes (most tokens and pieces) is packed into two
// int32s and stored in its slot, so a lookup touches one cache line; longer keys live in a pool.

/** Up to this many bytes, a key is packed into its slot. */
const PACKED = 8;

function packedHash(low: number, high: number, length: number): number {
  let h = Math.imul(low ^ (length << 28), 0x9e3779b1) ^ Math.imul(high, 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 13);
}

/**
 * Packed keys → value (a rank, or a count). Slot k holds [low, high, (value << 4) | length];
 * length ≥ 1, so 0 marks an empty slot.
 */
class PackedTable {
  readonly slots: Int32Array;
  readonly mask: number;
  size = 0;

  constructor(
    readonly capacity: number,
    slots?: Int32Array,
  ) {
    this.slots = slots ?? new Int32Array(3 * capacity);
    this.mask = capacity - 1;
  }

  get(low: number, high: number, length: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let slot = packedHash(low, high, length) & mask;
    for (;;) {
      const at = 3 * slot;
      const meta = slots[at + 2];
      if (meta === 0) return -1;
      if ((meta & 15) === length && slots[at] === low && slots[at + 1] === high) return meta >>> 4;
      slot = (slot + 1) & mask;
    }
  }

  set(low: number, high: number, length: number, value: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let slot = packedHash(low, high, length) & mask;
    while (slots[3 * slot + 2] !== 0) slot = (slot + 1) & mask;
    slots[3 * slot] = low;
    slots[3 * slot + 1] = high;
    slots[3 * slot + 2] = (value << 4) | length;
    this.size++;
  }

  clear(): void {
    this.slots.fill(0);
    this.size = 0;
  }
}

/**
 * Counts of recently seen pieces of up to 8 bytes, direct-mapped: a slot keeps the last piece
 * hashed to it. Small enough to stay in the CPU's caches (code repeats its pieces: most lookups
 * end here, before the vocabulary's megabytes are touched).
 */
class RecentCounts {
  private static readonly BITS = 13;
  private readonly slots = new Int32Array(3 << RecentCounts.BITS);

  private static slot(low: number, high: number, length: number): number {
    return 3 * (Math.imul(low ^ Math.imul(high ^ length, 0x85ebca6b), 0x9e3779b1) >>> (32 - RecentCounts.BITS));
  }

  get(low: number, high: number, length: number): number {
    const at = RecentCounts.slot(low, high, length);
    const slots = this.slots;
    const meta = slots[at + 2];
    return (meta & 15) === length && slots[at] === low && slots[at + 1] === high ? meta >>> 4 : -1;
  }

  set(low: number, high: number, length: number, count: number): void {
    const at = RecentCounts.slot(low, high, length);
    this.slots[at] = low;
    this.slots[at + 1] = high;
    this.slots[at + 2] = (count << 4) | length;
  }

  clear(): void {
    this.slots.fill(0);
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let k = start; k < end; k++) h = Math.imul(h ^ bytes[k], FNV_PRIME);
  return h ^ (h >>> 15);
}

/**
 * Keys longer than PACKED bytes → value, the bytes kept in a pool. Slot k holds [hash, entry + 1].
 * With `limit`, a bounded cache: emptied whole when its entries or pool are full.
 */
class PooledTable {
  readonly slots: Int32Array;
  private readonly mask: number;
  readonly pool: Uint8Array;
  readonly offsets: Int32Array;
  readonly values: Int32Array;
  size = 0;

  constructor(
    readonly capacity: number,
    poolBytes: number,
    private readonly bounded: boolean,
    /** Arrays of a table saved before (`saveVocabulary`), in place of empty ones. */
    saved?: { slots: Int32Array; pool: Uint8Array; offsets: Int32Array; values: Int32Array; size: number },
  ) {
    this.slots = saved?.slots ?? new Int32Array(2 * capacity);
    this.mask = capacity - 1;
    this.pool = saved?.pool ?? new Uint8Array(poolBytes);
    this.offsets = saved?.offsets ?? new Int32Array(capacity / 2 + 1);
    this.values = saved?.values ?? new Int32Array(capacity / 2);
    this.size = saved?.size ?? 0;
  }

  get(bytes: Uint8Array, start: number, end: number, h: number): number {
    const length = end - start;
    const { slots, mask, pool, offsets } = this;
    let slot = h & mask;
    for (;;) {
      const entry = slots[2 * slot + 1];
      if (entry === 0) return -1;
      if (slots[2 * slot] === h) {
        const offset = offsets[entry - 1];
        if (offsets[entry] - offset === length) {
          let k = 0;
          while (k < length && pool[offset + k] === bytes[start + k]) k++;
          if (k === length) return this.values[entry - 1];
        }
      }
      slot = (slot + 1) & mask;
    }
  }

  /** The same for an ASCII piece text[start, end), compared on its char codes. */
  getAscii(text: string, start: number, end: number, h: number): number {
    const length = end - start;
    const { slots, mask, pool, offsets } = this;
    let slot = h & mask;
    for (;;) {
      const entry = slots[2 * slot + 1];
      if (entry === 0) return -1;
      if (slots[2 * slot] === h) {
        const offset = offsets[entry - 1];
        if (offsets[entry] - offset === length) {
          let k = 0;
          while (k < length && pool[offset + k] === text.charCodeAt(start + k)) k++;
          if (k === length) return this.values[entry - 1];
        }
      }
      slot = (slot + 1) & mask;
    }
  }

  set(bytes: Uint8Array, start: number, end: number, h: number, value: number): void {
    const length = end - start;
    if (this.size === this.capacity / 2 || this.offsets[this.size] + length > this.pool.length) {
      if (!this.bounded) throw new Error('token table overflow');
      this.slots.fill(0);
      this.size = 0;
    }
    const index = this.size++;
    const offset = this.offsets[index];
    this.pool.set(bytes.subarray(start, end), offset);
    this.offsets[index + 1] = offset + length;
    this.values[index] = value;
    let slot = h & this.mask;
    while (this.slots[2 * slot + 1] !== 0) slot = (slot + 1) & this.mask;
    this.slots[2 * slot] = h;
    this.slots[2 * slot + 1] = index + 1;
  }

  clear(): void {
    this.slots.fill(0);
    this.size = 0;
  }
}

// ---------------------------------------------------------------------------------------------
// The vocabulary.

interface RankData {
  default: readonly (string | number[])[];
}

/** gpt-tokenizer's `isValidUTF8` (strict: no overlongs, surrogates or values past U+10FFFF). */
function isValidUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const b = bytes[i];
    let n: number;
    let cp: number;
    if (b <= 0x7f) {
      i++;
      continue;
    } else if ((b & 0xe0) === 0xc0) {
      if (b <= 0xc1) return false;
      n = 2;
      cp = b & 0x1f;
    } else if ((b & 0xf0) === 0xe0) {
      n = 3;
      cp = b & 0x0f;
    } else if ((b & 0xf8) === 0xf0) {
      if (b > 0xf4) return false;
      n = 4;
      cp = b & 0x07;
    } else {
      return false;
    }
    if (i + n > end) return false;
    for (let j = 1; j < n; j++) {
      const c = bytes[i + j];
      if ((c & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if ((n === 3 && cp < 0x800) || (n === 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
    i += n;
  }
  return true;
}

/**
 * UTF-8 of text[start, end) into bytes from 0, as TextEncoder writes it (a lone surrogate as
 * U+FFFD). Returns the byte count, negated when a lone surrogate was replaced. bytes must hold
 * 3 × (end − start).
 */
function encodeUtf8(text: string, start: number, end: number, bytes: Uint8Array): number {
  let n = 0;
  let lone = false;
  for (let k = start; k < end; k++) {
    let c = text.charCodeAt(k);
    if (c < 0x80) {
      bytes[n++] = c;
    } else if (c < 0x800) {
      bytes[n++] = 0xc0 | (c >> 6);
      bytes[n++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = k + 1 < end ? text.charCodeAt(k + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
          k++;
          bytes[n++] = 0xf0 | (c >> 18);
          bytes[n++] = 0x80 | ((c >> 12) & 0x3f);
          bytes[n++] = 0x80 | ((c >> 6) & 0x3f);
          bytes[n++] = 0x80 | (c & 0x3f);
          continue;
        }
        lone = true;
        c = 0xfffd;
      }
      bytes[n++] = 0xe0 | (c >> 12);
      bytes[n++] = 0x80 | ((c >> 6) & 0x3f);
      bytes[n++] = 0x80 | (c & 0x3f);
    }
  }
  return lone ? -n : n;
}

/** bytes[start, end) (at most PACKED) as the two int32s of a packed key. */
function packLow(bytes: Uint8Array, start: number, end: number): number {
  let low = 0;
  for (let k = start, shift = 0; k < end && shift < 32; k++, shift += 8) low |= bytes[k] << shift;
  return low;
}

function packHigh(bytes: Uint8Array, start: number, end: number): number {
  let high = 0;
  for (let k = start + 4, shift = 0; k < end; k++, shift += 8) high |= bytes[k] << shift;
  return high;
}

/** No such token: a pair that never merges. */
const INFINITE_RANK = 0x7fffffff;

export interface Vocabulary {
  short: PackedTable;
  long: PooledTable;
  /** The rank of each two-byte sequence (INFINITE_RANK if none): a merge's first lookups. */
  pairs: Int32Array;
  maxLength: number;
}

const vocabularies = new Map<BpeEncodingName, Vocabulary>();

/** Bumped when the tables' layout changes: saved tables of another layout are not read. */
const SAVED_LAYOUT = 2;

/** Where `npm run build` saves an encoding's tables: beside this module, in dist only. */
export function savedVocabularyFile(encoding: BpeEncodingName): string {
  return path.join(__dirname, `${encoding}.tables`);
}

/** What saved tables must have been built from: the layout, and the rank data's package version. */
function vocabularySource(encoding: BpeEncodingName): string {
  const { version } = JSON.parse(fs.readFileSync(require.resolve('gpt-tokenizer/package.json'), 'utf8')) as { version: string };
  return `${encoding} layout ${SAVED_LAYOUT} gpt-tokenizer ${version}`;
}

/**
 * An encoding's tables as bytes: a JSON header (source, sizes, where each array starts), then the
 * arrays, each 8-byte aligned. Building them from gpt-tokenizer's rank list costs ~0.3 s of CPU in
 * every process and shard thread (the list is a 200,000-entry JavaScript module to load, then
 * every token is encoded and hashed); reading them back, a few milliseconds.
 */
export function saveVocabulary(encoding: BpeEncodingName): Buffer {
  const { short, long, pairs, maxLength } = buildVocabulary(encoding);
  const arrays = { short: short.slots, longSlots: long.slots, longPool: long.pool, longOffsets: long.offsets, longValues: long.values, pairs };
  const layout: Record<string, [offset: number, length: number]> = {};
  let offset = 0;
  for (const [name, array] of Object.entries(arrays)) {
    layout[name] = [offset, array.length];
    offset += Math.ceil(array.byteLength / 8) * 8;
  }
  const header = Buffer.from(
    JSON.stringify({ source: vocabularySource(encoding), shortCapacity: short.capacity, shortSize: short.size, longCapacity: long.capacity, longSize: long.size, maxLength, layout, arrayBytes: offset }),
  );
  const headerBytes = 8 + Math.ceil(header.length / 8) * 8;
  const bytes = Buffer.alloc(headerBytes + offset);
  bytes.writeUInt32LE(header.length, 0);
  header.copy(bytes, 8);
  for (const [name, array] of Object.entries(arrays)) bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), headerBytes + layout[name][0]);
  return bytes;
}

/** Tables `npm run build` saved, or undefined when there are none or they were built from other data. */
function loadSavedVocabulary(encoding: BpeEncodingName): Vocabulary | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(savedVocabularyFile(encoding));
  } catch {
    return undefined;
  }
  return readSavedVocabulary(bytes, encoding);
}

/** Tables from `saveVocabulary`'s bytes; undefined when they were built from other data or are damaged. */
export function readSavedVocabulary(bytes: Buffer, encoding: BpeEncodingName): Vocabulary | undefined {
  try {
    const headerLength = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.toString('utf8', 8, 8 + headerLength)) as {
      source: string;
      shortCapacity: number;
      shortSize: number;
      longCapacity: number;
      longSize: number;
      maxLength: number;
      layout: Record<string, [number, number]>;
      /** The arrays' bytes after the header. */
      arrayBytes: number;
    };
    if (header.source !== vocabularySource(encoding)) return undefined;
    // Views of the file's bytes, no copy: a file read whole is a buffer of its own at offset 0, so
    // the arrays (8-byte aligned in it) are aligned; other bytes (a test's) are copied first.
    const data = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes);
    const headerBytes = 8 + Math.ceil(headerLength / 8) * 8;
    // A short file must not be read past its end, into the rest of its buffer.
    if (data.byteLength < headerBytes + header.arrayBytes) return undefined;
    const base = data.byteOffset + headerBytes;
    const int32 = (name: string) => new Int32Array(data.buffer, base + header.layout[name][0], header.layout[name][1]);
    const short = new PackedTable(header.shortCapacity, int32('short'));
    short.size = header.shortSize;
    const long = new PooledTable(header.longCapacity, 0, false, {
      slots: int32('longSlots'),
      pool: new Uint8Array(data.buffer, base + header.layout.longPool[0], header.layout.longPool[1]),
      offsets: int32('longOffsets'),
      values: int32('longValues'),
      size: header.longSize,
    });
    return { short, long, pairs: int32('pairs'), maxLength: header.maxLength };
  } catch {
    return undefined; // a damaged file: build the tables instead
  }
}

/** The encoding's tables: saved ones when `npm run build` wrote them for this rank data, else built. */
function vocabulary(encoding: BpeEncodingName): Vocabulary {
  let loaded = vocabularies.get(encoding);
  if (loaded === undefined) {
    loaded = loadSavedVocabulary(encoding) ?? buildVocabulary(encoding);
    vocabularies.set(encoding, loaded);
  }
  return loaded;
}

/**
 * The vocabulary as gpt-tokenizer finds it. Its rank list holds strings (valid UTF-8 tokens) and
 * byte arrays (the rest); it looks a byte range up by decoding it when it is valid UTF-8, so a
 * byte array that is valid UTF-8 (the BOM-prefixed tokens) is never found. Those are left out.
 * ~0.3 s, and ~14 MB of tables besides the parsed rank list.
 */
function buildVocabulary(encoding: BpeEncodingName): Vocabulary {
  const data = (
    encoding === 'o200k_base'
      ? // Literal requires, one per encoding, so bundlers and `npm ls` see exactly what is used.
        (require('gpt-tokenizer/cjs/bpeRanks/o200k_base') as RankData)
      : (require('gpt-tokenizer/cjs/bpeRanks/cl100k_base') as RankData)
  ).default;
  let capacity = 1;
  while (capacity < data.length * 2) capacity <<= 1;
  const short = new PackedTable(capacity);
  const long = new PooledTable(capacity / 2, 4 * data.length, false);
  let bytes = new Uint8Array(1024);
  let maxLength = 0;
  const pairs = new Int32Array(1 << 16).fill(INFINITE_RANK);
  data.forEach((value, rank) => {
    let n: number;
    if (typeof value === 'string') {
      if (bytes.length < 3 * value.length) bytes = new Uint8Array(3 * value.length);
      n = encodeUtf8(value, 0, value.length, bytes);
      // A string with a lone surrogate could be found only by a piece holding the same one.
      if (n < 0) throw new Error(`${encoding}: token ${rank} is not well-formed text`);
    } else {
      n = value.length;
      if (bytes.length < n) bytes = new Uint8Array(n);
      bytes.set(value);
      if (isValidUtf8(bytes, 0, n)) return;
    }
    maxLength = Math.max(maxLength, n);
    if (n === 2) pairs[(bytes[0] << 8) | bytes[1]] = rank;
    if (n <= PACKED) short.set(packLow(bytes, 0, n), packHigh(bytes, 0, n), n, rank);
    else long.set(bytes, 0, n, hashBytes(bytes, 0, n), rank);
  });
  return { short, long, pairs, maxLength };
}

// ---------------------------------------------------------------------------------------------
// The counter.

/** Pieces of more bytes than this are merged with a heap. */
const LONG_MERGE = 96;
/** A heap key: rank × PAIR_KEY + start offset (exact in a double: ranks < 2^21, offsets < 2^32). */
const PAIR_KEY = 2 ** 32;

/** A binary min-heap of numbers. */
class MinHeap {
  private readonly keys: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.keys = new Float64Array(capacity);
  }

  push(key: number): void {
    const keys = this.keys;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      keys[i] = keys[parent];
      i = parent;
    }
    keys[i] = key;
  }

  pop(): number {
    const keys = this.keys;
    const top = keys[0];
    const last = keys[--this.size];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && keys[child + 1] < keys[child]) child++;
      if (keys[child] >= last) break;
      keys[i] = keys[child];
      i = child;
    }
    keys[i] = last;
    return top;
  }
}

/**
 * The `bpe_count` addon (../native.ts, native/bpe_count.c): this counter's o200k_base algorithm
 * in C over the same tables (shared, not copied), for ASCII texts, ~4× faster; -1 for any other text.
 */
interface BpeCountAddon {
  createCounter(shortSlots: Int32Array, longSlots: Int32Array, longPool: Uint8Array, longOffsets: Int32Array, longValues: Int32Array, pairs: Int32Array, maxLength: number): object;
  countAscii(counter: object, text: string): number;
}

export class BpeCounter {
  private readonly short: PackedTable;
  private readonly long: PooledTable;
  private readonly pairs: Int32Array;
  private readonly maxLength: number;
  private readonly pieceEnd: (text: string, i: number, length: number) => number;
  /**
   * Counts of pieces that are not one token, keyed by a copy of their bytes (never by a
   * substring: a V8 substring keeps its whole file text alive). Bounded: emptied when full.
   */
  private readonly recent = new RecentCounts();
  private readonly shortCounts = new PackedTable(1 << 15);
  private readonly longCounts = new PooledTable(1 << 15, 1 << 20, true);
  private bytes = new Uint8Array(1024);
  private starts = new Int32Array(1024);
  private pairRanks = new Int32Array(1024);
  private readonly native: { addon: BpeCountAddon; counter: object } | undefined;

  /** `tables`: for tests; by default the process's own, loaded once. `native: false`: JavaScript only (tests). */
  constructor(
    readonly encoding: BpeEncodingName,
    tables: Vocabulary = vocabulary(encoding),
    options: { native?: boolean } = {},
  ) {
    const { short, long, pairs, maxLength } = tables;
    this.pairs = pairs;
    this.short = short;
    this.long = long;
    this.maxLength = maxLength;
    this.pieceEnd = encoding === 'o200k_base' ? o200kPieceEnd : cl100kPieceEnd;
    const addon = encoding === 'o200k_base' && options.native !== false ? nativeAddon<BpeCountAddon>('bpe_count') : null;
    if (addon !== null) this.native = { addon, counter: addon.createCounter(short.slots, long.slots, long.pool, long.offsets, long.values, pairs, maxLength) };
  }

  /** Whether ASCII texts are counted by the native addon. */
  get nativeCounting(): boolean {
    return this.native !== undefined;
  }

  /** The number of tokens of text, special-token text counted as ordinary text. */
  count(text: string): number {
    if (this.native !== undefined) {
      const tokens = this.native.addon.countAscii(this.native.counter, text);
      if (tokens >= 0) return tokens;
    }
    const length = text.length;
    const pieceEnd = this.pieceEnd;
    const recent = this.recent;
    let tokens = 0;
    let i = 0;
    while (i < length) {
      const end = pieceEnd(text, i, length);
      const size = end - i;
      if (size <= PACKED) {
        if (size === 1 && text.charCodeAt(i) < 0x80) {
          tokens++;
          i = end;
          continue;
        }
        // Up to 8 ASCII characters: a key packed straight from the char codes.
        let low = 0;
        let high = 0;
        let any = 0;
        let k = i;
        const lowEnd = size < 4 ? end : i + 4;
        for (let shift = 0; k < lowEnd; k++, shift += 8) {
          const c = text.charCodeAt(k);
          any |= c;
          low |= c << shift;
        }
        for (let shift = 0; k < end; k++, shift += 8) {
          const c = text.charCodeAt(k);
          any |= c;
          high |= c << shift;
        }
        if (any < 0x80) {
          const count = recent.get(low, high, size);
          tokens += count !== -1 ? count : this.countPacked(text, i, end, low, high, size, false);
          i = end;
          continue;
        }
      }
      tokens += this.countPiece(text, i, end);
      i = end;
    }
    return tokens;
  }

  /** Forgets the cached piece counts (they hold no text, only copies of their bytes: ~2 MB). */
  clearCache(): void {
    this.recent.clear();
    this.shortCounts.clear();
    this.longCounts.clear();
  }

  /**
   * A piece of up to 8 bytes, not in the recent counts: the vocabulary, the cache, or merges.
   * text[start, end) is ASCII, or (text undefined) its bytes are in this.bytes already.
   */
  private countPacked(text: string | undefined, start: number, end: number, low: number, high: number, n: number, lone: boolean): number {
    // gpt-tokenizer looks a piece up whole as a string: never found with a lone surrogate in it.
    let count = !lone && this.short.get(low, high, n) !== -1 ? 1 : this.shortCounts.get(low, high, n);
    if (count === -1) {
      if (text !== undefined) {
        const bytes = this.bytes;
        for (let j = 0; j < n; j++) bytes[j] = text.charCodeAt(start + j);
      }
      count = this.merge(n);
      if (this.shortCounts.size >= this.shortCounts.capacity / 2) this.shortCounts.clear();
      this.shortCounts.set(low, high, n, count);
    }
    if (!lone) this.recent.set(low, high, n, count);
    return count;
  }

  /** Any other piece: longer than 8 characters, or not ASCII. */
  private countPiece(text: string, start: number, end: number): number {
    const length = end - start;
    if (length > PACKED) {
      // Longer ASCII: hashed and compared on the char codes, nothing copied.
      let h = FNV_OFFSET;
      let k = start;
      for (; k < end; k++) {
        const c = text.charCodeAt(k);
        if (c >= 0x80) break;
        h = Math.imul(h ^ c, FNV_PRIME);
      }
      if (k === end && length <= this.maxLength && this.long.getAscii(text, start, end, h ^ (h >>> 15)) !== -1) return 1;
    }
    if (this.bytes.length < 3 * length) this.bytes = new Uint8Array(4 * length);
    const bytes = this.bytes;
    let n = encodeUtf8(text, start, end, bytes);
    // gpt-tokenizer looks a piece up whole as a string: never found with a lone surrogate in it.
    const lone = n < 0;
    if (lone) n = -n;
    if (n <= PACKED) {
      const low = packLow(bytes, 0, n);
      const high = packHigh(bytes, 0, n);
      const recent = lone ? -1 : this.recent.get(low, high, n);
      return recent !== -1 ? recent : this.countPacked(undefined, 0, n, low, high, n, lone);
    }
    const h = hashBytes(bytes, 0, n);
    if (!lone && n <= this.maxLength && this.long.get(bytes, 0, n, h) !== -1) return 1;
    const cached = this.longCounts.get(bytes, 0, n, h);
    if (cached !== -1) return cached;
    const count = this.merge(n);
    if (n <= 256) this.longCounts.set(bytes, 0, n, h, count);
    return count;
  }

  /** The rank of bytes[start, end) as gpt-tokenizer finds it, or INFINITE_RANK. */
  private rankOf(start: number, end: number): number {
    const bytes = this.bytes;
    if (end - start === 2) return this.pairs[(bytes[start] << 8) | bytes[start + 1]];
    if (bytes[start] === 0xef && end - start >= 3 && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf && isValidUtf8(bytes, start, end)) {
      // Decoded, a leading byte-order mark is dropped: the rest is what gets looked up.
      start += 3;
      if (start === end) return INFINITE_RANK;
    }
    const length = end - start;
    let rank: number;
    if (length <= PACKED) rank = this.short.get(packLow(bytes, start, end), packHigh(bytes, start, end), length);
    else if (length <= this.maxLength) rank = this.long.get(bytes, start, end, hashBytes(bytes, start, end));
    else return INFINITE_RANK;
    return rank === -1 ? INFINITE_RANK : rank;
  }

  /**
   * Byte-pair merges of bytes[0, n): repeatedly join the adjacent parts whose joined bytes have
   * the lowest rank (the leftmost of equals) until no pair is a token; the parts left are the
   * tokens. `starts` holds part boundaries, `pairRanks[i]` the rank of parts i and i+1 joined.
   */
  private merge(n: number): number {
    if (n <= 1) return n;
    if (n > LONG_MERGE) return this.mergeLong(n);
    if (this.starts.length < n + 1) {
      this.starts = new Int32Array(2 * (n + 1));
      this.pairRanks = new Int32Array(2 * (n + 1));
    }
    const starts = this.starts;
    const ranks = this.pairRanks;
    for (let i = 0; i <= n; i++) starts[i] = i;
    for (let i = 0; i < n - 1; i++) ranks[i] = this.rankOf(i, i + 2);
    ranks[n - 1] = INFINITE_RANK;
    let parts = n; // starts[0..parts] are the boundaries
    while (parts > 1) {
      let lowest = INFINITE_RANK;
      let at = -1;
      for (let i = 0; i < parts - 1; i++) {
        if (ranks[i] < lowest) {
          lowest = ranks[i];
          at = i;
        }
      }
      if (at === -1) break;
      // Join parts at and at+1: drop boundary at+1 and pair rank at.
      for (let i = at + 1; i < parts; i++) {
        starts[i] = starts[i + 1];
        ranks[i - 1] = ranks[i];
      }
      parts--;
      ranks[at] = at + 2 <= parts ? this.rankOf(starts[at], starts[at + 2]) : INFINITE_RANK;
      if (at > 0) ranks[at - 1] = this.rankOf(starts[at - 1], starts[at + 1]);
    }
    return parts;
  }

  /**
   * The same merges for a long piece (a line of `=`, a run of one letter…) in O(n log n) instead of
   * O(n²): parts in a linked list by start offset, candidate pairs in a min-heap keyed by
   * (rank, start offset), so the pair taken is the same lowest-rank-leftmost one; entries made
   * stale by a merge are skipped when they surface.
   */
  private mergeLong(n: number): number {
    // ends[p]: where the part starting at byte p ends (-1 once merged into its left neighbour).
    const ends = new Int32Array(n);
    const previous = new Int32Array(n);
    const pairRanks = new Int32Array(n);
    const heap = new MinHeap(3 * n);
    for (let p = 0; p < n; p++) {
      ends[p] = p + 1;
      previous[p] = p - 1;
    }
    for (let p = 0; p < n - 1; p++) {
      pairRanks[p] = this.rankOf(p, p + 2);
      if (pairRanks[p] !== INFINITE_RANK) heap.push(pairRanks[p] * PAIR_KEY + p);
    }
    pairRanks[n - 1] = INFINITE_RANK;
    let parts = n;
    while (heap.size > 0) {
      const key = heap.pop();
      const rank = Math.floor(key / PAIR_KEY);
      const p = key - rank * PAIR_KEY;
      if (ends[p] === -1 || pairRanks[p] !== rank) continue;
      // Join part p and the next one.
      const q = ends[p];
      ends[p] = ends[q];
      ends[q] = -1;
      if (ends[p] < n) previous[ends[p]] = p;
      parts--;
      pairRanks[p] = ends[p] < n ? this.rankOf(p, ends[ends[p]]) : INFINITE_RANK;
      if (pairRanks[p] !== INFINITE_RANK) heap.push(pairRanks[p] * PAIR_KEY + p);
      const o = previous[p];
      if (o >= 0) {
        pairRanks[o] = this.rankOf(o, ends[p]);
        if (pairRanks[o] !== INFINITE_RANK) heap.push(pairRanks[o] * PAIR_KEY + o);
      }
    }
    return parts;
  }
}
