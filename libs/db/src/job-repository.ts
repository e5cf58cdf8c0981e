import { randomUUID } from 'node:crypto';
import {
  JobEventView,
  JobKind,
  JobProgress,
  JobStatus,
  JobView,
  QuarryErrorBody,
  ResolvedSourceBody,
  canTransition,
  decodeJobCursor,
  encodeJobCursor,
} from '@quarry/contracts';
import type { Pool } from 'pg';
import type { Prisma, PrismaClient } from './prisma-client';
import { JobWriteBatcher } from './job-write-batcher';

type JobRow = {
  id: string;
  kind: JobKind;
  status: JobStatus;
  input: unknown;
  result: unknown;
  error: unknown;
  progress: unknown;
  resolvedSource: unknown;
  attempts: number;
  ownerId: string | null;
  parentId: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
};

/** What a worker needs to run a job it has just claimed. */
export interface ClaimedJob {
  id: string;
  kind: JobKind;
  input: unknown;
  ownerId: string | null;
  /** Pinned by an earlier attempt: a retry reads the same commit. */
  resolvedSource: ResolvedSourceBody | null;
}

export interface ListJobsFilter {
  kind?: JobKind;
  status?: JobStatus;
  ownerId?: string | null;
  limit: number;
  cursor?: string;
}

const json = (value: unknown) => JSON.stringify(value ?? null);

/** The jobs columns as a JobRow (camelCase, enums as text). */
const JOB_COLUMNS = `id, kind::text AS kind, status::text AS status, input, result, error, progress, resolved_source AS "resolvedSource", attempts,
  owner_id AS "ownerId", parent_id AS "parentId", created_at AS "createdAt", started_at AS "startedAt", finished_at AS "finishedAt"`;

/**
 * Jobs and their history in Postgres, the source of truth. Every status change is a guarded
 * UPDATE (it only happens from the states the status machine allows) that also appends its
 * JobEvent in the same statement, so a job that runs twice, or a cancel racing a completion,
 * writes exactly once.
 */
export class JobRepository {
  /**
   * Typed queries go through Prisma; the statements every job runs (submit, claim, complete, read
   * by id) go straight to the node-postgres pool Prisma itself uses, which costs a third of the CPU
   * per statement and is what bounds jobs per second on a small machine.
   */
  private readonly writes: JobWriteBatcher;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: Pool,
  ) {
    this.writes = new JobWriteBatcher(pool);
  }

  async create(params: {
    kind: JobKind;
    input: unknown;
    ownerId?: string | null;
    parentId?: string | null;
    id?: string;
    queuePrefix?: string;
  }): Promise<JobView> {
    const id = params.id ?? randomUUID();
    // One statement, one round trip: the row and its first event, atomically (no BEGIN/COMMIT).
    const { rows } = await this.pool.query<JobRow>({
      name: 'quarry-job-create',
      text: `WITH job AS (
         INSERT INTO jobs (id, kind, input, owner_id, parent_id, queue_prefix, updated_at)
         VALUES ($1::uuid, $2::"JobKind", $3::jsonb, $4::uuid, $5::uuid, $6, now())
         RETURNING *
       ), logged AS (
         INSERT INTO job_events (job_id, type) SELECT id, 'queued' FROM job
       )
       SELECT ${JOB_COLUMNS} FROM job`,
      values: [id, params.kind, json(params.input), params.ownerId ?? null, params.parentId ?? null, params.queuePrefix ?? 'quarry'],
    });
    return toView(rows[0]);
  }

  /**
   * Several rows and their first events in one statement (one round trip, one commit). Returns
   * the jobs in the order given.
   */
  async createMany(
    items: Array<{ kind: JobKind; input: unknown; ownerId?: string | null; id?: string; queuePrefix?: string }>,
  ): Promise<JobView[]> {
    if (items.length === 0) return [];
    const records = items.map((item, ord) => ({
      ord,
      id: item.id ?? randomUUID(),
      kind: item.kind,
      input: item.input ?? null,
      owner_id: item.ownerId ?? null,
      queue_prefix: item.queuePrefix ?? 'quarry',
    }));
    const { rows } = await this.pool.query<JobRow>({
      name: 'quarry-job-create-many',
      text: `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(id uuid, kind text, input jsonb, owner_id uuid, queue_prefix text, ord int)
       ), job AS (
         INSERT INTO jobs (id, kind, input, owner_id, queue_prefix, updated_at)
         SELECT id, kind::"JobKind", input, owner_id, queue_prefix, now() FROM input ORDER BY ord
         RETURNING *
       ), logged AS (
         INSERT INTO job_events (job_id, type) SELECT id, 'queued' FROM job
       )
       SELECT ${JOB_COLUMNS} FROM job`,
      values: [JSON.stringify(records)],
    });
    const byId = new Map(rows.map((row) => [row.id, toView(row)]));
    return records.map((record) => byId.get(record.id) as JobView);
  }

  async find(id: string): Promise<JobView | null> {
    if (!isUuid(id)) return null;
    const { rows } = await this.pool.query<JobRow>({ name: 'quarry-job-find', text: `SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1::uuid`, values: [id] });
    return rows[0] ? toView(rows[0]) : null;
  }

  async ownerOf(id: string): Promise<{ exists: boolean; ownerId: string | null }> {
    if (!isUuid(id)) return { exists: false, ownerId: null };
    const { rows } = await this.pool.query<{ ownerId: string | null }>({
      name: 'quarry-job-owner',
      text: 'SELECT owner_id AS "ownerId" FROM jobs WHERE id = $1::uuid',
      values: [id],
    });
    return { exists: rows.length > 0, ownerId: rows[0]?.ownerId ?? null };
  }

  async history(id: string, limit = 500): Promise<JobEventView[]> {
    if (!isUuid(id)) return [];
    const { rows } = await this.pool.query<{ at: Date; type: string; data: unknown }>({
      name: 'quarry-job-history',
      text: 'SELECT at, type, data FROM job_events WHERE job_id = $1::uuid ORDER BY id ASC LIMIT $2',
      values: [id, limit],
    });
    return rows.map((event) => ({ at: event.at.toISOString(), type: event.type, data: event.data ?? null }));
  }

  /** Newest first, keyset-paginated on (createdAt, id) so pages stay stable while jobs arrive. */
  async list(filter: ListJobsFilter): Promise<{ items: JobView[]; nextCursor: string | null }> {
    const where: Prisma.JobWhereInput = {};
    if (filter.kind) where.kind = filter.kind;
    if (filter.status) where.status = filter.status;
    if (filter.ownerId !== undefined) where.ownerId = filter.ownerId;
    if (filter.cursor) {
      const { createdAt, id } = decodeJobCursor(filter.cursor);
      where.OR = [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }];
    }
    const rows = await this.prisma.job.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: filter.limit + 1,
    });
    const page = rows.slice(0, filter.limit) as JobRow[];
    const last = page[page.length - 1];
    return {
      items: page.map(toView),
      nextCursor: rows.length > filter.limit && last ? encodeJobCursor(last.createdAt, last.id) : null,
    };
  }

  /**
   * queued|running → running. Returns the job to run, or null when it is not runnable any more
   * (cancelled, already finished, deleted): the worker then drops its queue copy.
   */
  async claim(id: string, attempt: number): Promise<ClaimedJob | null> {
    if (!isUuid(id)) return null;
    return (await this.writes.claim(id.toLowerCase(), attempt)) as ClaimedJob | null;
  }

  /**
   * Latest progress of a running job; `keepInHistory` also appends it to the history. Group
   * committed with other jobs' claims, progress and completions (see JobWriteBatcher).
   */

  /** Pins the repository commit a job reads, once: later attempts keep the first. */
  async pinSource(id: string, source: ResolvedSourceBody): Promise<void> {
    if (!isUuid(id)) return;
    await this.writes.pin(id.toLowerCase(), json(source));
  }

  /** Latest progress of a running job (the history keeps a sample of it). */
  async recordProgress(id: string, progress: JobProgress, keepInHistory: boolean): Promise<void> {
    if (!isUuid(id)) return;
    await this.writes.progress(id.toLowerCase(), json(progress), keepInHistory);
  }

  /**
   * running → succeeded with the result. False when another run (or a cancel) got there first.
   * `source`: the repository the job read, pinned in the same write (a directory's identity is known only at the end).
   */
  async complete(id: string, result: unknown, source?: ResolvedSourceBody): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.writes.complete(id.toLowerCase(), json(result), source ? json(source) : null);
  }

  /** queued|running → failed, keeping the error. */
  fail(id: string, error: QuarryErrorBody): Promise<boolean> {
    return this.transition(id, ['queued', 'running'], 'failed', 'failed', error, { error: json(error), finishedAt: true });
  }

  /** running → queued after a transient failure; the queue runs it again after its backoff. */
  requeue(id: string, error: QuarryErrorBody, attempt: number): Promise<boolean> {
    return this.transition(id, ['running'], 'queued', 'retrying', { ...error, attempt }, { error: json(error) });
  }

  /** queued|running → cancelled. */
  cancel(id: string): Promise<boolean> {
    return this.transition(id, ['queued', 'running'], 'cancelled', 'cancelled', null, { finishedAt: true });
  }

  /** failed|cancelled → queued, clearing the previous outcome. */
  async resetForRetry(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `WITH updated AS (
         UPDATE jobs SET status = 'queued', result = NULL, error = NULL, progress = NULL, attempts = 0,
                started_at = NULL, finished_at = NULL, updated_at = now()
         WHERE id = $1::uuid AND status IN ('failed', 'cancelled') RETURNING id
       )
       INSERT INTO job_events (job_id, type) SELECT id, 'retried' FROM updated`,
      [id],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Jobs of one queue prefix that should be in the queue: queued or running, untouched for `olderThanMs`. */
  async findUnfinished(queuePrefix: string, olderThanMs: number, limit = 500): Promise<Array<{ id: string; kind: JobKind; status: JobStatus }>> {
    const rows = await this.prisma.job.findMany({
      where: { queuePrefix, status: { in: ['queued', 'running'] }, updatedAt: { lt: new Date(Date.now() - olderThanMs) } },
      select: { id: true, kind: true, status: true },
      orderBy: { updatedAt: 'asc' },
      take: limit,
    });
    return rows as Array<{ id: string; kind: JobKind; status: JobStatus }>;
  }

  async touch(id: string): Promise<void> {
    await this.prisma.job.updateMany({ where: { id }, data: { updatedAt: new Date() } });
  }

  async countByKindAndStatus(): Promise<Array<{ kind: JobKind; status: JobStatus; count: number }>> {
    const groups = await this.prisma.job.groupBy({ by: ['kind', 'status'], _count: { _all: true } });
    return groups.map((group) => ({ kind: group.kind as JobKind, status: group.status as JobStatus, count: group._count._all }));
  }

  private async transition(
    id: string,
    from: JobStatus[],
    to: JobStatus,
    eventType: string,
    eventData: unknown,
    set: { result?: string; error?: string | null; finishedAt?: boolean },
  ): Promise<boolean> {
    if (!from.every((status) => canTransition(status, to))) throw new Error(`no transition ${from.join('|')} → ${to}`);
    const { rowCount } = await this.pool.query(
      `WITH updated AS (
         UPDATE jobs SET status = $2::"JobStatus",
                result = CASE WHEN $4::boolean THEN $5::jsonb ELSE result END,
                error = CASE WHEN $6::boolean THEN $7::jsonb ELSE error END,
                finished_at = CASE WHEN $8::boolean THEN now() ELSE finished_at END,
                updated_at = now()
         WHERE id = $1::uuid AND status = ANY($3::"JobStatus"[])
         RETURNING id
       )
       INSERT INTO job_events (job_id, type, data) SELECT id, $9, $10::jsonb FROM updated`,
      [id, to, from, set.result !== undefined, set.result ?? null, set.error !== undefined, set.error ?? null, set.finishedAt === true, eventType, json(eventData)],
    );
    return (rowCount ?? 0) > 0;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

function toView(row: JobRow): JobView {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    input: row.input,
    result: row.result ?? null,
    error: (row.error as JobView['error']) ?? null,
    progress: (row.progress as JobView['progress']) ?? null,
    attempts: row.attempts,
    parentId: row.parentId,
    source: (row.resolvedSource as JobView['source']) ?? null,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}
