/**
 * The storage the corpus is made of: strings interned into one byte pool, and growable typed
 * arrays. A commit's millions of terms and names as JavaScript strings in a `Map` cost ~45 bytes
 * each plus the GC's work of marking them; here a string costs its UTF-8 bytes plus 12 bytes of
 * index, and nothing the collector walks.
 */

const EMPTY = 0;

/** Strings by id (0, 1, … in the order added), ids by string. */
export class StringTable {
  private bytes = new Uint8Array(1 << 16);
  private pool = Buffer.from(this.bytes.buffer);
  private used = 0;
  /** starts[id]..starts[id + 1]: the string's bytes. */
  private starts: Int32Array<ArrayBuffer> = new Int32Array(1 << 12);
  private hashes: Int32Array<ArrayBuffer> = new Int32Array(1 << 12);
  /** Open addressing: id + 1, 0 for an empty slot. */
  private slots = new Int32Array(1 << 13);
  private count = 0;
  private scratch = new Uint8Array(256);
  private scratchBuffer = Buffer.from(this.scratch.buffer);
  private scratchLength = 0;

  get size(): number {
    return this.count;
  }

  /** Bytes held (pool, index, hash table). */
  get byteSize(): number {
    return this.bytes.byteLength + this.starts.byteLength + this.hashes.byteLength + this.slots.byteLength;
  }

  /** The id of `text`, or -1. */
  id(text: string): number {
    const hash = this.encode(text);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot];
      if (entry === EMPTY) return -1;
      if (this.hashes[entry - 1] === hash && this.matches(entry - 1)) return entry - 1;
    }
  }

  /** The id of `text`, added if new. */
  add(text: string): number {
    const hash = this.encode(text);
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot];
      if (entry === EMPTY) break;
      if (this.hashes[entry - 1] === hash && this.matches(entry - 1)) return entry - 1;
    }
    const id = this.count++;
    if (this.count + 1 > this.starts.length) {
      this.starts = growInt32(this.starts, this.count + 1);
      this.hashes = growInt32(this.hashes, this.count + 1);
    }
    if (this.used + this.scratchLength > this.bytes.length) {
      const bytes = new Uint8Array(Math.max(this.used + this.scratchLength, Math.ceil(this.bytes.length * 1.5)));
      bytes.set(this.bytes.subarray(0, this.used));
      this.bytes = bytes;
      this.pool = Buffer.from(bytes.buffer);
    }
    this.bytes.set(this.scratch.subarray(0, this.scratchLength), this.used);
    this.starts[id] = this.used;
    this.used += this.scratchLength;
    this.starts[id + 1] = this.used;
    this.hashes[id] = hash;
    this.slots[slot] = id + 1;
    if (this.count * 2 > this.slots.length) this.rehash();
    return id;
  }

  get(id: number): string {
    return this.pool.toString('utf8', this.starts[id], this.starts[id + 1]);
  }

  /** Drops the spare capacity (once everything is added: adding after it still works). */
  trim(): void {
    this.bytes = this.bytes.slice(0, this.used);
    this.pool = Buffer.from(this.bytes.buffer);
    this.starts = this.starts.slice(0, this.count + 1);
    this.hashes = this.hashes.slice(0, Math.max(1, this.count));
  }

  /** The text's UTF-8 bytes into the scratch buffer; returns its FNV-1a hash. */
  private encode(text: string): number {
    const length = text.length;
    if (length * 3 > this.scratch.length) {
      this.scratch = new Uint8Array(length * 3 + 64);
      this.scratchBuffer = Buffer.from(this.scratch.buffer);
    }
    const scratch = this.scratch;
    let bytes = length;
    for (let index = 0; index < length; index++) {
      const code = text.charCodeAt(index);
      if (code >= 0x80) {
        bytes = this.scratchBuffer.write(text, 0, 'utf8');
        break;
      }
      scratch[index] = code;
    }
    this.scratchLength = bytes;
    let hash = 0x811c9dc5 | 0;
    for (let index = 0; index < bytes; index++) hash = Math.imul(hash ^ scratch[index], 0x01000193);
    return hash;
  }

  private matches(id: number): boolean {
    const start = this.starts[id];
    if (this.starts[id + 1] - start !== this.scratchLength) return false;
    const bytes = this.bytes;
    const scratch = this.scratch;
    for (let index = 0; index < this.scratchLength; index++) if (bytes[start + index] !== scratch[index]) return false;
    return true;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id] & mask;
      while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}

type IntArray = Int32Array | Uint8Array | Uint16Array | Float64Array;

/** A growable typed array; `array()` hands back exactly the values pushed. */
export class Vector<T extends IntArray> {
  private data: T;
  length = 0;

  constructor(private readonly make: (length: number) => T, capacity = 1024) {
    this.data = make(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.reserve(this.length + 1);
    this.data[this.length++] = value;
  }

  get(index: number): number {
    return this.data[index];
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  /** Adds `by` at `index` (within the length). */
  add(index: number, by: number): void {
    this.data[index] += by;
  }

  /** Pushes `value` until the length is `length`. */
  fill(length: number, value = 0): void {
    if (length > this.data.length) this.reserve(length);
    if (length > this.length) this.data.fill(value, this.length, length);
    this.length = Math.max(this.length, length);
  }

  /** The values, in an array of their exact length (the vector is left empty). */
  array(): T {
    const data = this.data.length === this.length ? this.data : (this.data.slice(0, this.length) as T);
    this.data = this.make(0);
    this.length = 0;
    return data;
  }

  private reserve(length: number): void {
    const grown = this.make(Math.max(length, Math.ceil(this.data.length * 1.5), 16));
    grown.set(this.data.subarray(0, this.length) as never);
    this.data = grown;
  }
}

export const int32Vector = (capacity?: number) => new Vector<Int32Array>((length) => new Int32Array(length), capacity);
export const uint8Vector = (capacity?: number) => new Vector<Uint8Array>((length) => new Uint8Array(length), capacity);
export const float64Vector = (capacity?: number) => new Vector<Float64Array>((length) => new Float64Array(length), capacity);

const PAGE_BITS = 20;
const PAGE = 1 << PAGE_BITS;

/**
 * Append-only values in pages of a million: growing never copies, so the biggest transient
 * arrays of a build (every chunk's term ids, in chunk order) cost what they hold.
 */
export class PagedVector<T extends Int32Array | Uint16Array> {
  private readonly pages: T[] = [];
  length = 0;

  constructor(private readonly make: (length: number) => T) {}

  push(value: number): void {
    const offset = this.length & (PAGE - 1);
    if (offset === 0) this.pages.push(this.make(PAGE));
    this.pages[this.pages.length - 1][offset] = value;
    this.length++;
  }

  get(index: number): number {
    return this.pages[index >>> PAGE_BITS][index & (PAGE - 1)];
  }

  clear(): void {
    this.pages.length = 0;
    this.length = 0;
  }
}

function growInt32(array: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}
