import type { Pool } from 'pg';

/** A claimed row as the batch statement returns it (JobRepository types `kind`). */
export interface ClaimedRow {
  id: string;
  kind: string;
  input: unknown;
  ownerId: string | null;
  /** The repository commit an earlier attempt pinned, if any. */
  resolvedSource: unknown;
}

type Op =
  | { type: 'claim'; id: string; attempt: number; resolve: (job: ClaimedRow | null) => void; reject: (error: unknown) => void }
  | { type: 'complete'; id: string; result: string; source: string | null; resolve: (written: boolean) => void; reject: (error: unknown) => void }
  | { type: 'pin'; id: string; source: string; resolve: () => void; reject: (error: unknown) => void }
  | { type: 'progress'; id: string; progress: string; sample: boolean; resolve: () => void; reject: (error: unknown) => void };

export interface JobWriteBatcherOptions {
  /** Most operations in one statement. */
  maxBatch: number;
  /**
   * How long a batch may wait for company when nothing is being written. 0 = none (right after
   * the current callbacks): a lone job pays no delay, and under load the batch is whatever queued up while the
   * previous statement was committing (group commit).
   */
  windowMs: number;
  /**
   * Statements in flight at once. One (the default) makes the largest batches and the fewest
   * commits; two cut a job's wait under load but cost Postgres more (measured: no gain in jobs/s on
   * two cores). Never two statements for one job: its next operation waits.
   */
  maxInFlight: number;
}

/**
 * Group commit for the writes every job makes on a worker: claims, completions and progress.
 * Operations queue up while a statement is in flight and the next statement carries all of them —
 * one round trip and one commit (one WAL flush) for however many jobs, instead of one per job.
 *
 * Each operation keeps its own guard (claim only from queued|running, complete and progress only
 * while running), so the batch changes nothing about what may happen to a job; its history event
 * is written in the same statement as the change it records. A job appears in at most one
 * statement in flight (a second operation on the same job waits for the first to be written), so
 * two changes to one row never meet or race, and a job's events keep their order.
 */
export class JobWriteBatcher {
  private queue: Op[] = [];
  private inFlight = 0;
  /** Jobs with an operation in a statement in flight: their next operation waits for it. */
  private readonly writing = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly pool: Pool,
    private readonly options: JobWriteBatcherOptions = { maxBatch: 500, windowMs: 0, maxInFlight: 1 },
  ) {}

  claim(id: string, attempt: number): Promise<ClaimedRow | null> {
    return new Promise((resolve, reject) => this.push({ type: 'claim', id, attempt, resolve, reject }));
  }

  /** `source`: the repository the job read, pinned with the result unless an earlier write pinned one. */
  complete(id: string, result: string, source: string | null = null): Promise<boolean> {
    return new Promise((resolve, reject) => this.push({ type: 'complete', id, result, source, resolve, reject }));
  }

  /** Pins the repository commit a job reads (the first pin stays). */
  pin(id: string, source: string): Promise<void> {
    return new Promise((resolve, reject) => this.push({ type: 'pin', id, source, resolve, reject }));
  }

  progress(id: string, progress: string, sample: boolean): Promise<void> {
    return new Promise((resolve, reject) => this.push({ type: 'progress', id, progress, sample, resolve, reject }));
  }

  /** Resolves once everything queued so far is written (or has failed). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  private push(op: Op): void {
    this.queue.push(op);
    this.schedule();
  }

  private schedule(): void {
    if (this.inFlight >= this.options.maxInFlight || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      void this.flush();
    };
    // Idle: right after the current turn's callbacks (a lone job waits for nothing). Busy: the
    // operations wait for the statement in flight, which is what makes the batches.
    if (this.options.windowMs > 0) setTimeout(run, this.options.windowMs);
    else queueMicrotask(run);
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    const batch: Op[] = [];
    const rest: Op[] = [];
    const ids = new Set<string>();
    for (const op of this.queue) {
      if (batch.length < this.options.maxBatch && !ids.has(op.id) && !this.writing.has(op.id)) {
        ids.add(op.id);
        batch.push(op);
      } else rest.push(op);
    }
    this.queue = rest;
    if (batch.length === 0) return; // everything queued waits for a job already being written
    for (const id of ids) this.writing.add(id);
    this.inFlight++;
    try {
      await this.write(batch).catch(async (error: unknown) => {
        if (batch.length === 1) throw error;
        // One bad value (say a result jsonb refuses) must not fail its neighbours: write each
        // operation alone, so only the one at fault fails. When Postgres is away they all fail fast.
        await Promise.all(batch.map((op) => this.write([op]).catch((alone: unknown) => op.reject(alone))));
      });
    } catch (error) {
      for (const op of batch) op.reject(error);
    } finally {
      for (const id of ids) this.writing.delete(id);
      this.inFlight--;
      this.schedule();
    }
  }

  private async write(batch: Op[]): Promise<void> {
    if (batch.length === 1) return this.writeOne(batch[0]);
    const claims = batch.filter((op): op is Extract<Op, { type: 'claim' }> => op.type === 'claim');
    const completes = batch.filter((op): op is Extract<Op, { type: 'complete' }> => op.type === 'complete');
    const progress = batch.filter((op): op is Extract<Op, { type: 'progress' }> => op.type === 'progress');
    const pins = batch.filter((op): op is Extract<Op, { type: 'pin' }> => op.type === 'pin');
    // Only the parts this batch needs, as a named statement: Postgres parses and plans each of the
    // fifteen shapes once per connection, not once per batch.
    const shape = (claims.length ? 'c' : '') + (completes.length ? 'd' : '') + (progress.length ? 'p' : '') + (pins.length ? 'n' : '');
    const values: unknown[] = [];
    const param = (value: unknown) => `$${values.push(value)}`;
    const ctes: string[] = [];
    const events: string[] = [];
    const selects: string[] = [];
    if (claims.length) {
      ctes.push(`claimed AS (
         UPDATE jobs j SET status = 'running', attempts = i.attempt, started_at = COALESCE(j.started_at, now()), updated_at = now()
           FROM unnest(${param(claims.map((op) => op.id))}::uuid[], ${param(claims.map((op) => op.attempt))}::int[]) AS i(id, attempt)
          WHERE j.id = i.id AND j.status IN ('queued', 'running')
         RETURNING j.id, j.kind, j.input, j.owner_id, j.resolved_source, i.attempt)`);
      events.push(`SELECT id, 'started', jsonb_build_object('attempt', attempt) FROM claimed`);
      selects.push(`SELECT 'claim' AS op, id::text AS id, kind::text AS kind, input, owner_id::text AS "ownerId", resolved_source AS "resolvedSource" FROM claimed`);
    }
    if (completes.length) {
      ctes.push(`done AS (
         UPDATE jobs j SET status = 'succeeded', result = i.result, error = NULL, finished_at = now(), updated_at = now(),
                resolved_source = COALESCE(j.resolved_source, i.source)
           FROM jsonb_to_recordset(${param(jsonRecords(completes.map((op) => ({ id: op.id, result: op.result, source: op.source }))))}::jsonb) AS i(id uuid, result jsonb, source jsonb)
          WHERE j.id = i.id AND j.status = 'running'
         RETURNING j.id)`);
      events.push(`SELECT id, 'completed', 'null'::jsonb FROM done`);
      selects.push(`SELECT 'complete' AS op, id::text AS id, NULL AS kind, NULL::jsonb AS input, NULL AS "ownerId", NULL::jsonb AS "resolvedSource" FROM done`);
    }
    if (progress.length) {
      ctes.push(`progressed AS (
         UPDATE jobs j SET progress = i.progress, updated_at = now()
           FROM jsonb_to_recordset(${param(jsonRecords(progress.map((op) => ({ id: op.id, progress: op.progress, sample: op.sample ? 'true' : 'false' }))))}::jsonb) AS i(id uuid, progress jsonb, sample boolean)
          WHERE j.id = i.id AND j.status = 'running'
         RETURNING j.id, i.progress, i.sample)`);
      events.push(`SELECT id, 'progress', progress FROM progressed WHERE sample`);
      selects.push(`SELECT 'progress' AS op, NULL AS id, NULL AS kind, NULL::jsonb AS input, NULL AS "ownerId", NULL::jsonb AS "resolvedSource" WHERE false`);
    }
    if (pins.length) {
      // Not read by the final SELECT: Postgres runs every data-modifying CTE to completion anyway.
      ctes.push(`pinned AS (
         UPDATE jobs j SET resolved_source = i.source, updated_at = now()
           FROM jsonb_to_recordset(${param(jsonRecords(pins.map((op) => ({ id: op.id, source: op.source }))))}::jsonb) AS i(id uuid, source jsonb)
          WHERE j.id = i.id AND j.resolved_source IS NULL
         RETURNING j.id)`);
      selects.push(`SELECT 'pin' AS op, NULL AS id, NULL AS kind, NULL::jsonb AS input, NULL AS "ownerId", NULL::jsonb AS "resolvedSource" WHERE false`);
    }
    if (events.length) ctes.push(`logged AS (INSERT INTO job_events (job_id, type, data) ${events.join(' UNION ALL ')})`);
    const text = `WITH ${ctes.join(',\n')}
       ${selects.join(' UNION ALL ')}`;
    const { rows } = await this.pool.query<{ op: string; id: string; kind: string | null; input: unknown; ownerId: string | null; resolvedSource: unknown }>({
      name: `quarry-job-writes-${shape}`,
      text,
      values,
    });
    const claimed = new Map<string, ClaimedRow>();
    const completed = new Set<string>();
    for (const row of rows) {
      if (row.op === 'claim') claimed.set(row.id, { id: row.id, kind: row.kind as string, input: row.input, ownerId: row.ownerId, resolvedSource: row.resolvedSource ?? null });
      else completed.add(row.id);
    }
    for (const op of claims) op.resolve(claimed.get(op.id) ?? null);
    for (const op of completes) op.resolve(completed.has(op.id));
    for (const op of progress) op.resolve();
    for (const op of pins) op.resolve();
  }

  /** A lone operation (an idle worker): the plain single-row statement, cheaper to plan than the batch one. */
  private async writeOne(op: Op): Promise<void> {
    if (op.type === 'claim') {
      const { rows } = await this.pool.query<ClaimedRow>({
        name: 'quarry-job-claim',
        text: `WITH claimed AS (
           UPDATE jobs SET status = 'running', attempts = $2, started_at = COALESCE(started_at, now()), updated_at = now()
           WHERE id = $1::uuid AND status IN ('queued', 'running')
           RETURNING id, kind, input, owner_id, resolved_source
         ), logged AS (
           INSERT INTO job_events (job_id, type, data) SELECT id, 'started', jsonb_build_object('attempt', $2::int) FROM claimed
         )
         SELECT id::text AS id, kind::text AS kind, input, owner_id::text AS "ownerId", resolved_source AS "resolvedSource" FROM claimed`,
        values: [op.id, op.attempt],
      });
      op.resolve(rows[0] ?? null);
    } else if (op.type === 'complete') {
      const { rowCount } = await this.pool.query({
        name: 'quarry-job-complete',
        text: `WITH done AS (
           UPDATE jobs SET status = 'succeeded', result = $2::jsonb, error = NULL, finished_at = now(), updated_at = now(),
                  resolved_source = COALESCE(resolved_source, $3::jsonb)
           WHERE id = $1::uuid AND status = 'running' RETURNING id
         )
         INSERT INTO job_events (job_id, type, data) SELECT id, 'completed', 'null'::jsonb FROM done`,
        values: [op.id, op.result, op.source],
      });
      op.resolve((rowCount ?? 0) > 0);
    } else if (op.type === 'pin') {
      await this.pool.query({
        name: 'quarry-job-pin',
        text: `UPDATE jobs SET resolved_source = $2::jsonb, updated_at = now() WHERE id = $1::uuid AND resolved_source IS NULL`,
        values: [op.id, op.source],
      });
      op.resolve();
    } else {
      await this.pool.query({
        name: op.sample ? 'quarry-job-progress-sample' : 'quarry-job-progress',
        text: op.sample
          ? `WITH updated AS (UPDATE jobs SET progress = $2::jsonb, updated_at = now() WHERE id = $1::uuid AND status = 'running' RETURNING id)
             INSERT INTO job_events (job_id, type, data) SELECT id, 'progress', $2::jsonb FROM updated`
          : `UPDATE jobs SET progress = $2::jsonb, updated_at = now() WHERE id = $1::uuid AND status = 'running'`,
        values: [op.id, op.progress],
      });
      op.resolve();
    }
  }
}

/**
 * Rows for `jsonb_to_recordset`, built from values that are JSON text already (results, progress,
 * sources as the repository serialised them) without parsing or escaping them again: as `text[]`
 * parameters, node-postgres escaped every quote of every result into an array literal.
 */
export function jsonRecords(rows: ReadonlyArray<Record<string, string | null>>): string {
  const parts: string[] = [];
  for (const row of rows) {
    const fields: string[] = [];
    for (const [key, value] of Object.entries(row)) fields.push(key === 'id' ? `"id":${JSON.stringify(value)}` : `"${key}":${value ?? 'null'}`);
    parts.push(`{${fields.join(',')}}`);
  }
  return `[${parts.join(',')}]`;
}
