/**
 * Trigrams as the index sees them: three consecutive bytes of a line, ASCII letters folded to
 * lower case, packed into 24 bits (`b0 << 16 | b1 << 8 | b2`). Folding ASCII only keeps the
 * extraction a table look-up per byte, and still serves case-insensitive queries: their literal
 * runs are cut at every letter whose Unicode fold leaves ASCII (see query-plan.ts). Trigrams
 * across a line break are left out: a match never spans one.
 */

const NEWLINE = 0x0a;

/** Byte → byte with A–Z folded to a–z. */
export const FOLD = new Uint8Array(256).map((_, byte) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte));

/** Trigrams of a query string's UTF-8 bytes (folded), in no particular order, duplicates removed. */
export function trigramsOf(text: string): number[] {
  const bytes = Buffer.from(text, 'utf8');
  const found = new Set<number>();
  for (let index = 2; index < bytes.length; index++) {
    if (bytes[index] === NEWLINE || bytes[index - 1] === NEWLINE || bytes[index - 2] === NEWLINE) continue;
    found.add((FOLD[bytes[index - 2]] << 16) | (FOLD[bytes[index - 1]] << 8) | FOLD[bytes[index]]);
  }
  return [...found];
}

/**
 * Distinct trigrams of one document after another, without allocating per document: a 2 MiB
 * bit set remembers which trigrams the current document already has, and is cleared through the
 * list of those it set (cheaper than clearing the whole set for small files).
 */
export class TrigramCollector {
  private readonly seen = new Uint8Array(1 << 21);
  private distinct = new Uint32Array(1 << 16);
  private count = 0;

  /** The distinct trigrams of `content`, valid until the next call (a view on an internal buffer). */
  collect(content: Uint8Array): Uint32Array {
    this.clear();
    // Locals, not fields, in the loop: it runs once per byte of every indexed blob.
    const seen = this.seen;
    const fold = FOLD;
    let distinct = this.distinct;
    let count = 0;
    let window = 0;
    // Bytes since the last newline: a trigram is kept once it holds none.
    let run = 0;
    for (let index = 0; index < content.length; index++) {
      const byte = content[index];
      window = ((window << 8) | fold[byte]) & 0xffffff;
      if (byte === NEWLINE) {
        run = 0;
        continue;
      }
      if (++run < 3) continue;
      const bit = 1 << (window & 7);
      const slot = window >>> 3;
      const bits = seen[slot];
      if ((bits & bit) !== 0) continue;
      seen[slot] = bits | bit;
      if (count === distinct.length) {
        const larger = new Uint32Array(distinct.length * 2);
        larger.set(distinct);
        distinct = larger;
      }
      distinct[count++] = window;
    }
    this.distinct = distinct;
    this.count = count;
    return distinct.subarray(0, count);
  }

  private clear(): void {
    if (this.count > 1 << 18) this.seen.fill(0);
    else for (let index = 0; index < this.count; index++) this.seen[this.distinct[index] >>> 3] = 0;
    this.count = 0;
  }
}
