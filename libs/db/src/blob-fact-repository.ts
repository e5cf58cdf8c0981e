import { measureOf, type BlobFact, type BlobFactStore } from '@quarry/blob-scan';
import type { FileMeasure } from '@quarry/workspace';
import type { Pool } from 'pg';
import { PrismaClient } from './prisma-client';

/** Look-ups and writes go in slices this size: one statement each, arrays as parameters. */
const SLICE = 50_000;
const BINARY: FileMeasure = { kind: 'binary' };

/** Blobs whose facts a worker keeps in memory by default (about 150 bytes each). */
export const DEFAULT_REMEMBERED_BLOBS = 50_000;

/**
 * Per-blob scan facts in Postgres, shared by every worker: the store behind a sharded scan.
 *
 * A blob's facts never change (its id is a hash of its content), so the facts this process has
 * read or written are remembered (most recent `remember` blobs): a worker scanning the same files
 * again — many small scans of one repository, a re-scan — makes no round trip for them. Before
 * this, every tiny scan paid two statements outside the worker's group commit.
 */
export class BlobFactRepository implements BlobFactStore {
  private readonly remembered = new Map<string, FileMeasure>();

  /** `pool`: look-ups of a whole commit (tens of thousands of rows) go through pg directly, about 2x faster than Prisma's raw query. */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool?: Pool,
    private readonly remember: number = DEFAULT_REMEMBERED_BLOBS,
  ) {}

  async lookup(blobs: readonly string[]): Promise<Map<string, FileMeasure>> {
    const found = new Map<string, FileMeasure>();
    const unknown: string[] = [];
    for (const blob of blobs) {
      const measure = this.recall(blob);
      if (measure) found.set(blob, measure);
      else unknown.push(blob);
    }
    for (let start = 0; start < unknown.length; start += SLICE) {
      const slice = unknown.slice(start, start + SLICE);
      type Row = { blob: string; binary: boolean; bytes: bigint | string; lines: bigint | string };
      const rows: Row[] = this.pool
        ? (await this.pool.query<Row>('SELECT blob, "binary", bytes, lines FROM blob_facts WHERE blob = ANY($1::text[])', [slice])).rows
        : await this.prisma.$queryRaw<Row[]>`SELECT blob, "binary", bytes, lines FROM blob_facts WHERE blob = ANY(${slice}::text[])`;
      for (const row of rows) {
        const measure: FileMeasure = row.binary ? BINARY : { kind: 'text', bytes: Number(row.bytes), lines: Number(row.lines) };
        found.set(row.blob, measure);
        this.keep(row.blob, measure);
      }
    }
    return found;
  }

  /** Insert-or-keep: a blob's facts never change, so the first row stays and a repeat is a no-op. */
  async record(facts: readonly BlobFact[]): Promise<number> {
    // Blobs this process already knows are stored: writing them again would insert nothing.
    const fresh = facts.filter((fact) => !this.remembered.has(fact.blob));
    let added = 0;
    for (let start = 0; start < fresh.length; start += SLICE) {
      const slice = fresh.slice(start, start + SLICE);
      added += await this.prisma.$executeRaw`
        INSERT INTO blob_facts (blob, "binary", bytes, lines)
        SELECT * FROM unnest(${slice.map((fact) => fact.blob)}::text[], ${slice.map((fact) => fact.kind === 'binary')}::boolean[],
                             ${slice.map((fact) => (fact.kind === 'text' ? fact.bytes : 0))}::bigint[], ${slice.map((fact) => (fact.kind === 'text' ? fact.lines : 0))}::bigint[])
        ON CONFLICT (blob) DO NOTHING`;
      for (const fact of slice) this.keep(fact.blob, measureOf(fact));
    }
    return added;
  }

  /** How many of these blobs have rows (tests assert re-scans through it; asks Postgres, not the memory). */
  async count(blobs?: readonly string[]): Promise<number> {
    if (!blobs) return this.prisma.blobFact.count();
    const rows = await this.prisma.$queryRaw<Array<{ count: bigint }>>`SELECT count(*) FROM blob_facts WHERE blob = ANY(${blobs}::text[])`;
    return Number(rows[0].count);
  }

  private recall(blob: string): FileMeasure | undefined {
    const measure = this.remembered.get(blob);
    if (measure) {
      // Most recently used last: the first key is the one to forget.
      this.remembered.delete(blob);
      this.remembered.set(blob, measure);
    }
    return measure;
  }

  private keep(blob: string, measure: FileMeasure): void {
    if (this.remember <= 0) return;
    this.remembered.delete(blob);
    this.remembered.set(blob, measure);
    if (this.remembered.size > this.remember) this.remembered.delete(this.remembered.keys().next().value as string);
  }
}
