import type { FileMeasure } from '@quarry/workspace';

/**
 * What a scan learns from one blob, whatever its path, commit or repository: a blob id is a hash
 * of the content, so its facts hold forever and for every worker. Unreadable files have no facts
 * (that is a property of a checkout at a moment, not of content) and are never stored.
 */
export type BlobFact = { blob: string; kind: 'text'; bytes: number; lines: number } | { blob: string; kind: 'binary' };

/** Where the facts live: Postgres for workers (@quarry/db), memory for an in-process scan. */
export interface BlobFactStore {
  /** The facts known for these blobs (absent ones are simply missing from the map). */
  lookup(blobs: readonly string[]): Promise<Map<string, FileMeasure>>;
  /**
   * Records facts; a blob already recorded keeps its row (the facts are equal by construction), so
   * a shard that runs twice (a retry, a worker killed mid-shard) never doubles anything.
   * Resolves to how many blobs were new.
   */
  record(facts: readonly BlobFact[]): Promise<number>;
}

export function factOf(blob: string, measure: FileMeasure): BlobFact | undefined {
  if (measure.kind === 'text') return { blob, kind: 'text', bytes: measure.bytes, lines: measure.lines };
  if (measure.kind === 'binary') return { blob, kind: 'binary' };
  return undefined;
}

export function measureOf(fact: BlobFact): FileMeasure {
  return fact.kind === 'text' ? { kind: 'text', bytes: fact.bytes, lines: fact.lines } : { kind: 'binary' };
}

/** The store of an in-process scan (`quarry scan --local`): lives as long as the process. */
export class MemoryBlobFacts implements BlobFactStore {
  private readonly facts = new Map<string, FileMeasure>();

  get size(): number {
    return this.facts.size;
  }

  async lookup(blobs: readonly string[]): Promise<Map<string, FileMeasure>> {
    const found = new Map<string, FileMeasure>();
    for (const blob of blobs) {
      const measure = this.facts.get(blob);
      if (measure) found.set(blob, measure);
    }
    return found;
  }

  async record(facts: readonly BlobFact[]): Promise<number> {
    let added = 0;
    for (const fact of facts) {
      if (this.facts.has(fact.blob)) continue;
      this.facts.set(fact.blob, measureOf(fact));
      added++;
    }
    return added;
  }
}
