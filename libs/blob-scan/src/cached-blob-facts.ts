import type { FileMeasure } from '@quarry/workspace';
import { measureOf, type BlobFact, type BlobFactStore } from './blob-facts';

/** Facts a worker keeps in memory: a kernel commit's 78k blobs fit (~10 MB as packed numbers). */
export const DEFAULT_CACHED_FACTS = 150_000;

const BINARY: FileMeasure = Object.freeze({ kind: 'binary' });
/** lines < 2^21 and bytes < 2^32 pack exactly into one double: bytes · 2^21 + lines. */
const LINES_SPAN = 2 ** 21;
const MAX_PACKED_BYTES = 2 ** 32;

/**
 * A worker's memory of blob facts in front of the shared store (Postgres): facts never change, so
 * whatever this worker looked up or wrote stays true. A re-scan whose parent lands on a worker that
 * saw the previous commit looks up only the blobs it does not know (one, after a one-file commit)
 * instead of the commit's 78k rows. Bounded: the oldest entries go first. Writes still go to the
 * store, which alone says which rows were new (a scan's `processed` count).
 */
export class CachedBlobFacts implements BlobFactStore {
  private static readonly wrappers = new WeakMap<BlobFactStore, CachedBlobFacts>();
  /** Packed measure by blob: -1 binary, else bytes · 2^21 + lines. */
  private readonly facts = new Map<string, number>();

  constructor(
    private readonly store: BlobFactStore,
    private readonly maxEntries = DEFAULT_CACHED_FACTS,
  ) {}

  /** The one cache of a store in this process (the scan and its shards share what they learn). */
  static over(store: BlobFactStore): CachedBlobFacts {
    if (store instanceof CachedBlobFacts) return store;
    let cached = CachedBlobFacts.wrappers.get(store);
    if (!cached) CachedBlobFacts.wrappers.set(store, (cached = new CachedBlobFacts(store)));
    return cached;
  }

  get size(): number {
    return this.facts.size;
  }

  async lookup(blobs: readonly string[]): Promise<Map<string, FileMeasure>> {
    const found = new Map<string, FileMeasure>();
    const missing: string[] = [];
    for (const blob of blobs) {
      const packed = this.facts.get(blob);
      if (packed === undefined) missing.push(blob);
      else found.set(blob, packed < 0 ? BINARY : { kind: 'text', bytes: Math.floor(packed / LINES_SPAN), lines: packed % LINES_SPAN });
    }
    if (missing.length === 0) return found;
    for (const [blob, measure] of await this.store.lookup(missing)) {
      found.set(blob, measure);
      this.remember(blob, measure);
    }
    return found;
  }

  async record(facts: readonly BlobFact[]): Promise<number> {
    const added = await this.store.record(facts);
    for (const fact of facts) this.remember(fact.blob, measureOf(fact));
    return added;
  }

  private remember(blob: string, measure: FileMeasure): void {
    let packed: number;
    if (measure.kind === 'binary') packed = -1;
    else if (measure.kind === 'text' && measure.lines < LINES_SPAN && measure.bytes < MAX_PACKED_BYTES) packed = measure.bytes * LINES_SPAN + measure.lines;
    else return; // unreadable (never a fact), or too big to pack: asked of the store again
    if (this.facts.size >= this.maxEntries && !this.facts.has(blob)) this.facts.delete(this.facts.keys().next().value as string);
    this.facts.set(blob, packed);
  }
}
