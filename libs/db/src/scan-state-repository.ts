import type { ScanStateStore } from '@quarry/blob-scan';
import type { Pool } from 'pg';

/** States kept per repository and kind: the commits a re-scan may start from (a few KB each). */
export const KEPT_STATES_PER_REPOSITORY = 16;

/**
 * Remembered scan states in Postgres (`scan_states`), shared by every worker: the scan of a commit
 * on one worker is what the re-scan of the next commit on another starts from. A save keeps the
 * most recent `KEPT_STATES_PER_REPOSITORY` commits of the repository and kind.
 */
export class ScanStateRepository implements ScanStateStore {
  constructor(private readonly pool: Pool) {}

  async load(repository: string, kind: string, commit: string): Promise<unknown> {
    const { rows } = await this.pool.query<{ state: unknown }>('SELECT state FROM scan_states WHERE repository = $1 AND kind = $2 AND "commit" = $3', [repository, kind, commit]);
    return rows[0]?.state;
  }

  async save(repository: string, kind: string, commit: string, state: unknown): Promise<void> {
    await this.pool.query(
      `WITH saved AS (
         INSERT INTO scan_states (repository, kind, "commit", state) VALUES ($1, $2, $3, $4)
         ON CONFLICT (repository, kind, "commit") DO UPDATE SET state = EXCLUDED.state, updated_at = clock_timestamp()
         RETURNING "commit"
       )
       DELETE FROM scan_states WHERE repository = $1 AND kind = $2 AND "commit" <> $3 AND "commit" NOT IN (
         SELECT "commit" FROM scan_states WHERE repository = $1 AND kind = $2 AND "commit" <> $3 ORDER BY updated_at DESC LIMIT $5
       )`,
      [repository, kind, commit, JSON.stringify(state), KEPT_STATES_PER_REPOSITORY - 1],
    );
  }
}
