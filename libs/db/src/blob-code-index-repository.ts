import { decodeBlobIndex, blobIndexKey, encodedRowOf, type BlobIndex, type BlobIndexBrief, type BlobIndexKey, type BlobIndexStore, type EncodedBlobIndex, type StoredBlobIndex, type TokenEncoding } from '@quarry/code-index';
import type { Pool } from 'pg';
import type { PrismaClient } from './prisma-client';
import { RecentMemory } from './recent-memory';

/** Look-ups go in slices this size (one statement each, arrays as parameters); writes in smaller ones (rows carry bytes). */
const LOOKUP_SLICE = 20_000;
const WRITE_SLICE = 500;
/** Briefs a worker keeps in memory by default (a few hundred bytes each with their keys). */
export const DEFAULT_REMEMBERED_BRIEFS = 50_000;

type BriefRow = { blob: string; variant: string; binary: boolean; bytes: bigint | string; tokens: bigint | string; definitions: number; secrets: number; warnings: number; symbols: string };

/**
 * Per-blob code indexes in Postgres (`blob_code_index`), shared by every worker and commit: the
 * scan's shards write them, `symbols`/`map`/`pack`/`@symbol:` read them. Briefs (the scalar
 * columns) are what totals and pack need; whole rows are decoded only for symbol lookups and maps;
 * the chunk rows (column `chunks`) are read only by retrieval, which decodes them one at a time.
 */
export class BlobCodeIndexRepository implements BlobIndexStore {
  /**
   * Briefs this process read or wrote, by encoding and key: a row never changes, so a worker's
   * repeat scans of the same files (many small scans of one repository) ask Postgres nothing.
   */
  private readonly remembered: RecentMemory<string, BlobIndexBrief>;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool?: Pool,
    remember = DEFAULT_REMEMBERED_BRIEFS,
  ) {
    this.remembered = new RecentMemory(remember);
  }

  async briefs(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, BlobIndexBrief>> {
    const found = new Map<string, BlobIndexBrief>();
    const unknown: BlobIndexKey[] = [];
    for (const key of keys) {
      const brief = this.remembered.get(`${encoding}:${blobIndexKey(key.blob, key.variant)}`);
      if (brief) found.set(blobIndexKey(key.blob, key.variant), brief);
      else unknown.push(key);
    }
    if (unknown.length === 0) return found;
    for (const rows of await this.select<BriefRow>('blob, variant, "binary", bytes, tokens, definitions, secrets, warnings, symbols', unknown, encoding)) {
      for (const row of rows) {
        const brief: BlobIndexBrief = {
          binary: row.binary,
          bytes: Number(row.bytes),
          tokens: Number(row.tokens),
          definitions: row.definitions,
          secrets: row.secrets,
          warnings: row.warnings,
          symbols: row.symbols as BlobIndexBrief['symbols'],
        };
        found.set(blobIndexKey(row.blob, row.variant), brief);
        this.remembered.set(`${encoding}:${blobIndexKey(row.blob, row.variant)}`, brief);
      }
    }
    return found;
  }

  async load(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, BlobIndex>> {
    const found = new Map<string, BlobIndex>();
    for (const rows of await this.select<{ blob: string; variant: string; data: Buffer }>('blob, variant, data', keys, encoding)) {
      for (const row of rows) found.set(blobIndexKey(row.blob, row.variant), decodeBlobIndex(row.data));
    }
    return found;
  }

  async loadChunks(keys: readonly BlobIndexKey[], encoding: TokenEncoding): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    for (const rows of await this.select<{ blob: string; variant: string; chunks: Buffer }>('blob, variant, chunks', keys, encoding, 'chunks IS NOT NULL')) {
      for (const row of rows) found.set(blobIndexKey(row.blob, row.variant), row.chunks);
    }
    return found;
  }

  /** Insert-or-keep: a row is a function of its key, so the first one stays and a repeat is a no-op. */
  async record(rows: readonly StoredBlobIndex[]): Promise<number> {
    return this.recordEncoded(rows.map(encodedRowOf));
  }

  async recordEncoded(rows: readonly EncodedBlobIndex[]): Promise<number> {
    let added = 0;
    for (let start = 0; start < rows.length; start += WRITE_SLICE) {
      const slice = rows.slice(start, start + WRITE_SLICE);
      const briefs = slice.map((row) => row.brief);
      const columns = [
        slice.map((row) => row.blob),
        slice.map((row) => row.variant),
        slice.map((row) => row.encoding),
        briefs.map((brief) => brief.binary),
        briefs.map((brief) => brief.bytes),
        briefs.map((brief) => brief.tokens),
        briefs.map((brief) => brief.definitions),
        briefs.map((brief) => brief.secrets),
        briefs.map((brief) => brief.warnings),
        briefs.map((brief) => brief.symbols),
        slice.map((row) => asBuffer(row.data)),
        slice.map((row) => (row.chunks === undefined ? null : asBuffer(row.chunks))),
      ];
      const sql = `INSERT INTO blob_code_index (blob, variant, encoding, "binary", bytes, tokens, definitions, secrets, warnings, symbols, data, chunks)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::bigint[], $7::int[], $8::int[], $9::int[], $10::text[], $11::bytea[], $12::bytea[])
        ON CONFLICT (blob, variant, encoding) DO NOTHING`;
      added += this.pool ? ((await this.pool.query(sql, columns)).rowCount ?? 0) : await this.prisma.$executeRawUnsafe(sql, ...columns);
      slice.forEach((row, index) => this.remembered.set(`${row.encoding}:${blobIndexKey(row.blob, row.variant)}`, briefs[index]));
    }
    return added;
  }

  /** Rows held (all, or in one encoding): tests assert what a scan wrote through it. */
  async count(encoding?: TokenEncoding): Promise<number> {
    return this.prisma.blobCodeIndex.count(encoding === undefined ? undefined : { where: { encoding } });
  }

  private async select<Row>(columns: string, keys: readonly BlobIndexKey[], encoding: TokenEncoding, where = 'TRUE'): Promise<Row[][]> {
    const results: Row[][] = [];
    for (let start = 0; start < keys.length; start += LOOKUP_SLICE) {
      const slice = keys.slice(start, start + LOOKUP_SLICE);
      const blobs = slice.map((key) => key.blob);
      const variants = slice.map((key) => key.variant);
      // The (blob, variant) pairs as a relation, joined on the primary key.
      const sql = `SELECT ${columns} FROM blob_code_index JOIN unnest($1::text[], $2::text[]) AS wanted(b, v) ON blob = wanted.b AND variant = wanted.v WHERE encoding = $3 AND ${where}`;
      results.push(this.pool ? (await this.pool.query<Row & object>(sql, [blobs, variants, encoding])).rows : await this.prisma.$queryRawUnsafe<Row[]>(sql, blobs, variants, encoding));
    }
    return results;
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
