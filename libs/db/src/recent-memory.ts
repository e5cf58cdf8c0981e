/**
 * The most recently used `capacity` entries of an immutable mapping (a blob's facts, a blob's code
 * index brief), approximately: what a worker has read or written lately, so a repeat scan of the
 * same files makes no round trip for them. Capacity 0 remembers nothing.
 *
 * "Second chance" rather than exact LRU: a hit only marks its entry used, and eviction passes over
 * used entries once (moving them to the back, unmarked) before it drops unused ones. Evictions
 * come in batches of a sixteenth of the capacity, in one pass of one iterator. Both for speed on
 * a kernel's 78k blobs: the exact LRU moved every hit to the back (a delete and an insert, 43 ms of
 * a re-scan's look-ups, now 13–34 ms), and dropped the oldest entry one insert at a time, each time
 * iterating from the map's front past the holes its deletes had left there (100k inserts into a
 * full memory: 4.6 s).
 */
export class RecentMemory<K, V> {
  private readonly entries = new Map<K, { value: V; used: boolean }>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value, marked used (kept over unused entries at the next eviction). */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** Puts what it remembers of `keys` into `found` (each marked used); returns the keys it does not remember. */
  recall(keys: Iterable<K>, found: Map<K, V>): K[] {
    const unknown: K[] = [];
    for (const key of keys) {
      const value = this.get(key);
      if (value === undefined) unknown.push(key);
      else found.set(key, value);
    }
    return unknown;
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return;
    const entry = this.entries.get(key);
    if (entry) {
      entry.value = value;
      entry.used = true;
      return;
    }
    this.entries.set(key, { value, used: false });
    if (this.entries.size > this.capacity) this.evict(key);
  }

  /** Drops the oldest unused entries, down to the capacity less a sixteenth; `newest` is never one. */
  private evict(newest: K): void {
    let excess = this.entries.size - this.capacity + Math.floor(this.capacity / 16);
    // A Map iterates in insertion order, and sees entries moved to its back during the pass.
    for (const [key, entry] of this.entries) {
      if (excess <= 0) break;
      this.entries.delete(key);
      if (entry.used || key === newest) {
        entry.used = false;
        this.entries.set(key, entry);
      } else {
        excess--;
      }
    }
  }
}
