import type { BuiltSegment, CommitManifest, SearchIndexStore } from '@quarry/search-index';
import type { Pool } from 'pg';
import { DEFAULT_REMEMBERED_BLOBS } from './blob-fact-repository';
import { RecentMemory } from './recent-memory';

/** Look-ups go in slices this size: one statement each, arrays as parameters. */
const SLICE = 50_000;
/** Distinct segment ids interned at most (a kernel's index is a few hundred segments). */
const SEGMENT_IDS_KEPT = 10_000;

/**
 * The trigram index in Postgres, shared by every worker and the gateway: segments (immutable,
 * named by their blobs), the segment of each blob, and per commit the manifest written last.
 * Through pg directly: segments are megabytes of bytea, and a segment's rows go in one transaction.
 *
 * A blob's segment never changes once stored (insert-or-keep, never deleted), so the segments of
 * the blobs this process looked up are remembered (most recent `remember` blobs), as the blob
 * facts are: a re-scan of a kernel commit on the worker that indexed the previous one asks
 * Postgres about its new blobs only, instead of receiving and parsing 78k rows (~200 ms of the
 * worker's main thread, most of it garbage collection, while the scan waited on that thread).
 * Saving a segment remembers nothing: a blob already in another segment keeps that one.
 */
export class SearchIndexRepository implements SearchIndexStore {
  private readonly remembered: RecentMemory<string, string>;
  /** One string per segment id: 78k rows name a few dozen segments, each otherwise its own copy. */
  private readonly segmentIds = new Map<string, string>();

  constructor(
    private readonly pool: Pool,
    remember: number = DEFAULT_REMEMBERED_BLOBS,
  ) {
    this.remembered = new RecentMemory(remember);
  }

  async segmentsOf(blobs: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const unknown = this.remembered.recall(blobs, found);
    for (let start = 0; start < unknown.length; start += SLICE) {
      // A hash join on the wanted ids, as the blob facts' look-up: about twice as fast as `= ANY` for a commit's worth.
      const { rows } = await this.pool.query<[string, string]>({
        text: "SELECT b.blob, b.segment FROM string_to_table($1, ' ') AS wanted(blob) JOIN search_index_blobs b USING (blob)",
        values: [unknown.slice(start, start + SLICE).join(' ')],
        rowMode: 'array',
      });
      for (const [blob, segment] of rows) {
        const id = this.segmentId(segment);
        found.set(blob, id);
        this.remembered.set(blob, id);
      }
    }
    return found;
  }

  private segmentId(segment: string): string {
    let id = this.segmentIds.get(segment);
    if (id === undefined) {
      // Bounded like the memory it serves: ids of segments no remembered blob names any more go.
      if (this.segmentIds.size >= SEGMENT_IDS_KEPT) this.segmentIds.clear();
      this.segmentIds.set(segment, (id = segment));
    }
    return id;
  }

  /** Insert-or-keep, segment and blob rows in one transaction: a killed writer leaves all or nothing. */
  async saveSegment(segment: BuiltSegment): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO search_index_segments (id, data, blobs, text_bytes) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [
        segment.id,
        segment.data,
        segment.blobs.length,
        segment.textBytes,
      ]);
      for (let start = 0; start < segment.blobs.length; start += SLICE) {
        await client.query('INSERT INTO search_index_blobs (blob, segment) SELECT unnest($1::text[]), $2 ON CONFLICT (blob) DO NOTHING', [segment.blobs.slice(start, start + SLICE), segment.id]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async loadSegment(id: string): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query<{ data: Buffer }>('SELECT data FROM search_index_segments WHERE id = $1', [id]);
    return rows[0]?.data;
  }

  async segmentSizes(ids: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ id: string; size: number }>('SELECT id, octet_length(data) AS size FROM search_index_segments WHERE id = ANY($1::text[])', [ids]);
    return new Map(rows.map((row) => [row.id, Number(row.size)]));
  }

  async manifest(commit: string): Promise<CommitManifest | undefined> {
    type Row = { commit: string; segments: string[]; files: number; text_bytes: string; index_bytes: string };
    const { rows } = await this.pool.query<Row>('SELECT "commit", segments, files, text_bytes, index_bytes FROM search_index_commits WHERE "commit" = $1', [commit]);
    const row = rows[0];
    return row && { commit: row.commit, segments: row.segments, files: row.files, textBytes: Number(row.text_bytes), indexBytes: Number(row.index_bytes) };
  }

  async saveManifest(manifest: CommitManifest): Promise<void> {
    await this.pool.query(
      'INSERT INTO search_index_commits ("commit", segments, files, text_bytes, index_bytes) VALUES ($1, $2, $3, $4, $5) ON CONFLICT ("commit") DO NOTHING',
      [manifest.commit, manifest.segments, manifest.files, manifest.textBytes, manifest.indexBytes],
    );
  }
}
