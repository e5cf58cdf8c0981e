import { randomUUID } from 'node:crypto';
import {
  JobEventView,
  JobKind,
  JobProgress,
  JobStatus,
  JobView,
  QuarryError,
  QuarryErrorBody,
  canTransition,
} from '@quarry/contracts';
import { Prisma, PrismaClient } from './prisma-client';

type JobRow = {
  id: string;
  kind: JobKind;
  status: JobStatus;
  input: unknown;
  result: unknown;
  error: unknown;
  progress: unknown;
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
}

export interface ListJobsFilter {
  kind?: JobKind;
  status?: JobStatus;
  ownerId?: string | null;
  limit: number;
  cursor?: string;
}

const json = (value: unknown) => JSON.stringify(value ?? null);

/**
 * Jobs and their history in Postgres, the source of truth. Every status change is a guarded
 * UPDATE (it only happens from the states the status machine allows) that also appends its
 * JobEvent in the same statement, so a job that runs twice, or a cancel racing a completion,
 * writes exactly once.
 */
export class JobRepository {
  constructor(private readonly prisma: PrismaClient) {}

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
    const rows = await this.prisma.$queryRaw<JobRow[]>`
      WITH job AS (
        INSERT INTO jobs (id, kind, input, owner_id, parent_id, queue_prefix, updated_at)
        VALUES (${id}::uuid, ${params.kind}::"JobKind", ${json(params.input)}::jsonb, ${params.ownerId ?? null}::uuid,
                ${params.parentId ?? null}::uuid, ${params.queuePrefix ?? 'quarry'}, now())
        RETURNING *
      ), logged AS (
        INSERT INTO job_events (job_id, type) SELECT id, 'queued' FROM job
      )
      SELECT id, kind::text AS kind, status::text AS status, input, result, error, progress, attempts,
             owner_id AS "ownerId", parent_id AS "parentId", created_at AS "createdAt", started_at AS "startedAt", finished_at AS "finishedAt"
      FROM job`;
    return toView(rows[0]);
  }

  async find(id: string): Promise<JobView | null> {
    if (!isUuid(id)) return null;
    const row = await this.prisma.job.findUnique({ where: { id } });
    return row ? toView(row as JobRow) : null;
  }

  async ownerOf(id: string): Promise<{ exists: boolean; ownerId: string | null }> {
    if (!isUuid(id)) return { exists: false, ownerId: null };
    const row = await this.prisma.job.findUnique({ where: { id }, select: { ownerId: true } });
    return { exists: row !== null, ownerId: row?.ownerId ?? null };
  }

  async history(id: string, limit = 500): Promise<JobEventView[]> {
    const events = await this.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: 'asc' }, take: limit });
    return events.map((event) => ({ at: event.at.toISOString(), type: event.type, data: event.data ?? null }));
  }

  /** Newest first, keyset-paginated on (createdAt, id) so pages stay stable while jobs arrive. */
  async list(filter: ListJobsFilter): Promise<{ items: JobView[]; nextCursor: string | null }> {
    const where: Prisma.JobWhereInput = {};
    if (filter.kind) where.kind = filter.kind;
    if (filter.status) where.status = filter.status;
    if (filter.ownerId !== undefined) where.ownerId = filter.ownerId;
    if (filter.cursor) {
      const { createdAt, id } = decodeCursor(filter.cursor);
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
      nextCursor: rows.length > filter.limit && last ? encodeCursor(last.createdAt, last.id) : null,
    };
  }

  /**
   * queued|running → running. Returns the job to run, or null when it is not runnable any more
   * (cancelled, already finished, deleted): the worker then drops its queue copy.
   */
  async claim(id: string, attempt: number): Promise<ClaimedJob | null> {
    const rows = await this.prisma.$queryRaw<ClaimedJob[]>`
      WITH claimed AS (
        UPDATE jobs SET status = 'running', attempts = ${attempt}, started_at = COALESCE(started_at, now()), updated_at = now()
        WHERE id = ${id}::uuid AND status IN ('queued', 'running')
        RETURNING id, kind, input, owner_id
      ), logged AS (
        INSERT INTO job_events (job_id, type, data) SELECT id, 'started', ${json({ attempt })}::jsonb FROM claimed
      )
      SELECT id, kind::text AS kind, input, owner_id AS "ownerId" FROM claimed`;
    return rows[0] ?? null;
  }

  /** Latest progress of a running job (the history keeps a sample of it). */
  async recordProgress(id: string, progress: JobProgress, keepInHistory: boolean): Promise<void> {
    if (keepInHistory) {
      await this.prisma.$executeRaw`
        WITH updated AS (
          UPDATE jobs SET progress = ${json(progress)}::jsonb, updated_at = now()
          WHERE id = ${id}::uuid AND status = 'running' RETURNING id
        )
        INSERT INTO job_events (job_id, type, data) SELECT id, 'progress', ${json(progress)}::jsonb FROM updated`;
    } else {
      await this.prisma.$executeRaw`
        UPDATE jobs SET progress = ${json(progress)}::jsonb, updated_at = now() WHERE id = ${id}::uuid AND status = 'running'`;
    }
  }

  /** running → succeeded with the result. False when another run (or a cancel) got there first. */
  complete(id: string, result: unknown): Promise<boolean> {
    return this.transition(id, ['running'], 'succeeded', 'completed', null, {
      result: json(result),
      error: json(null),
      finishedAt: true,
    });
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
    const count = await this.prisma.$executeRaw`
      WITH updated AS (
        UPDATE jobs SET status = 'queued', result = NULL, error = NULL, progress = NULL, attempts = 0,
               started_at = NULL, finished_at = NULL, updated_at = now()
        WHERE id = ${id}::uuid AND status IN ('failed', 'cancelled') RETURNING id
      )
      INSERT INTO job_events (job_id, type) SELECT id, 'retried' FROM updated`;
    return count > 0;
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
    set: { result?: string; error?: string; finishedAt?: boolean },
  ): Promise<boolean> {
    if (!from.every((status) => canTransition(status, to))) throw new Error(`no transition ${from.join('|')} → ${to}`);
    const count = await this.prisma.$executeRaw`
      WITH updated AS (
        UPDATE jobs SET status = ${to}::"JobStatus",
               result = CASE WHEN ${set.result !== undefined} THEN ${set.result ?? null}::jsonb ELSE result END,
               error = CASE WHEN ${set.error !== undefined} THEN ${set.error ?? null}::jsonb ELSE error END,
               finished_at = CASE WHEN ${set.finishedAt === true} THEN now() ELSE finished_at END,
               updated_at = now()
        WHERE id = ${id}::uuid AND status = ANY(${from}::"JobStatus"[])
        RETURNING id
      )
      INSERT INTO job_events (job_id, type, data) SELECT id, ${eventType}, ${json(eventData)}::jsonb FROM updated`;
    return count > 0;
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
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || !isUuid(id) || Number.isNaN(createdAt.getTime())) {
    throw new QuarryError('cursor_invalid', 'The cursor is not one this server handed out.', {
      suggestion: 'Use the nextCursor value from the previous page, or leave cursor out for the first page.',
    });
  }
  return { createdAt, id };
}
