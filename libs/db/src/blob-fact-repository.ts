import { measureOf, type BlobFact, type BlobFactStore } from '@quarry/blob-scan';
import type { FileMeasure } from '@quarry/workspace';
import type { Pool } from 'pg';
import type { PrismaClient } from './prisma-client';
import { RecentMemory } from './recent-memory';

/** Look-ups and writes go in slices this size: one statement each, arrays as parameters. */
const SLICE = 50_000;
const BINARY: FileMeasure = { kind: 'binary' };

/**
 * Blobs whose facts a worker keeps in memory by default (about 150 bytes each): a kernel commit's
 * 78k, so a re-scan of it on a worker that saw the previous commit asks Postgres about one blob.
 */
export const DEFAULT_REMEMBERED_BLOBS = 100_000;

/**
 * Per-blob scan facts in Postgres, shared by every worker: the store behind a sharded scan.
 *
 * A blob's facts never change (its id is a hash of its content), so the facts this process has
 * read or written are remembered (most recent `remember` blobs): a worker scanning the same files
 * again — many small scans of one repository, a re-scan — makes no round trip for them. Before
 * this, every tiny scan paid two statements outside the worker's group commit.
 */
export class BlobFactRepository implements BlobFactStore {
  private readonly remembered: RecentMemory<string, FileMeasure>;

  /** `pool`: look-ups of a whole commit (tens of thousands of rows) go through pg directly, about 2x faster than Prisma's raw query. */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool?: Pool,
    remember: number = DEFAULT_REMEMBERED_BLOBS,
  ) {
    this.remembered = new RecentMemory(remember);
  }

  async lookup(blobs: readonly string[]): Promise<Map<string, FileMeasure>> {
    const found = new Map<string, FileMeasure>();
    const unknown = this.remembered.recall(blobs, found);
    for (let start = 0; start < unknown.length; start += SLICE) {
      const slice = unknown.slice(start, start + SLICE);
      // A join with the ids as one space-separated text (a hash join, not 50k index probes of
      // `= ANY(array)`), numbers as float8 and rows as arrays (no BigInt strings, no row objects):
      // a whole kernel commit is looked up in half the time.
      const text = 'SELECT f.blob, f."binary", f.bytes::float8, f.lines::float8 FROM string_to_table($1, \' \') AS wanted(blob) JOIN blob_facts f USING (blob)';
      type Row = [blob: string, binary: boolean, bytes: number, lines: number];
      const rows: Row[] = this.pool
        ? (await this.pool.query<Row>({ text, values: [slice.join(' ')], rowMode: 'array' })).rows
        : (await this.prisma.$queryRaw<Array<{ blob: string; binary: boolean; bytes: number; lines: number }>>`SELECT f.blob, f."binary", f.bytes::float8 AS bytes, f.lines::float8 AS lines FROM string_to_table(${slice.join(' ')}, ' ') AS wanted(blob) JOIN blob_facts f USING (blob)`).map(
            (row): Row => [row.blob, row.binary, Number(row.bytes), Number(row.lines)],
          );
      for (const [blob, binary, bytes, lines] of rows) {
        const measure: FileMeasure = binary ? BINARY : { kind: 'text', bytes, lines };
        found.set(blob, measure);
        this.remembered.set(blob, measure);
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
      const columns = [slice.map((fact) => fact.blob), slice.map((fact) => fact.kind === 'binary'), slice.map((fact) => (fact.kind === 'text' ? fact.bytes : 0)), slice.map((fact) => (fact.kind === 'text' ? fact.lines : 0))];
      const sql = `INSERT INTO blob_facts (blob, "binary", bytes, lines)
        SELECT * FROM unnest($1::text[], $2::boolean[], $3::bigint[], $4::bigint[])
        ON CONFLICT (blob) DO NOTHING`;
      added += this.pool ? ((await this.pool.query(sql, columns)).rowCount ?? 0) : await this.prisma.$executeRawUnsafe(sql, ...columns);
      for (const fact of slice) this.remembered.set(fact.blob, measureOf(fact));
    }
    return added;
  }

  /** How many of these blobs have rows (tests assert re-scans through it; asks Postgres, not the memory). */
  async count(blobs?: readonly string[]): Promise<number> {
    if (!blobs) return this.prisma.blobFact.count();
    const rows = await this.prisma.$queryRaw<Array<{ count: bigint }>>`SELECT count(*) FROM blob_facts WHERE blob = ANY(${blobs}::text[])`;
    return Number(rows[0].count);
  }


}
