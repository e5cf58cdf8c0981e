/**
 * The most recently used `capacity` entries of an immutable mapping (a blob's facts, a blob's code
 * index brief): what a worker has read or written lately, so a repeat scan of the same files makes
 * no round trip for them. Capacity 0 remembers nothing.
 */
export class RecentMemory<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    // A Map iterates in insertion order: the first key is the least recently used.
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }
}
