import { Job, UnrecoverableError } from 'bullmq';
import {
  JOB_CONTRACTS,
  JobKind,
  QuarryError,
  QuarryErrorBody,
  ResolvedSourceBody,
  isQuarryError,
  parseOrThrow,
} from '@quarry/contracts';
import type { JobRepository } from '@quarry/db';
import type { QueuedJobData } from '@quarry/queue';
import type { Logger } from '@quarry/config';
import type { JobHandler } from './job-handler';
import { ProgressReporter } from './progress-reporter';

/**
 * What a run ends with, as BullMQ's return value. The result lives in Postgres; a small one is
 * also handed over here (only when this run wrote it), so the gateway can relay the completion
 * without reading the row back.
 */
export type RunOutcome = { written: boolean; durationMs: number; result?: unknown } | { skipped: 'not-runnable' };

/** Results up to this size (as JSON) travel with the completion event; larger ones are read from Postgres. */
export const HANDOVER_MAX_CHARS = 16_384;

/**
 * Runs one queue job: claim the row, run the handler with progress and cancellation, write the
 * outcome once. Permanent errors become UnrecoverableError (no retry); transient ones are thrown
 * again so BullMQ retries them with backoff, and the row goes back to `queued` meanwhile.
 */
export class JobRunner {
  constructor(
    private readonly jobs: JobRepository,
    private readonly handlers: ReadonlyMap<JobKind, JobHandler>,
    private readonly logger: Logger,
  ) {}

  async run(job: Job<QueuedJobData>, signal: AbortSignal): Promise<RunOutcome> {
    const id = job.data.jobId;
    const attempt = job.attemptsMade + 1;
    const claimed = await this.jobs.claim(id, attempt);
    if (!claimed) return { skipped: 'not-runnable' };
    this.logger.info({ jobId: id, kind: claimed.kind, attempt }, 'job started');

    const handler = this.handlers.get(claimed.kind);
    const reporter = new ProgressReporter({
      live: (progress) => job.updateProgress(progress),
      store: (progress, sample) => this.jobs.recordProgress(id, progress, sample),
      onError: (error) => this.logger.warn({ err: error, jobId: id }, 'progress write failed'),
    });
    let sourceRead: ResolvedSourceBody | undefined;
    try {
      if (!handler) throw new QuarryError('kind_not_available', `This worker has no handler for ${claimed.kind} jobs.`);
      const startedAt = Date.now();
      const input = parseOrThrow(JOB_CONTRACTS[claimed.kind].input, claimed.input);
      const result = await handler.run(input as never, {
        jobId: id,
        attempt,
        signal,
        progress: reporter.report,
        ownerId: claimed.ownerId,
        queueJob: { id: job.id ?? id, queue: job.queueQualifiedName },
        pinnedSource: claimed.resolvedSource,
        pinSource: (source) => this.jobs.pinSource(id, source),
        recordSource: (source) => {
          sourceRead = source;
        },
      });
      await reporter.stop();
      const written = await this.jobs.complete(id, result, sourceRead);
      const outcome: RunOutcome = { written, durationMs: Date.now() - startedAt };
      if (written && (JSON.stringify(result ?? null)?.length ?? 0) <= HANDOVER_MAX_CHARS) outcome.result = result ?? null;
      return outcome;
    } catch (error) {
      await reporter.stop();
      throw await this.settleFailure(job, id, attempt, error, signal);
    }
  }

  /** Records the failure and returns what to throw to BullMQ. */
  private async settleFailure(job: Job<QueuedJobData>, id: string, attempt: number, error: unknown, signal: AbortSignal): Promise<Error> {
    if (signal.aborted) {
      await this.jobs.cancel(id);
      return new UnrecoverableError(JSON.stringify({ kind: 'job_cancelled', message: 'The job was cancelled.' }));
    }
    const body = errorBody(error);
    const permanent = isQuarryError(error) ? error.permanent : false;
    const lastAttempt = attempt >= (job.opts.attempts ?? 1);
    if (permanent || lastAttempt) {
      await this.jobs.fail(id, body);
      this.logger.info({ jobId: id, kind: body.kind, attempt }, 'job failed');
      return permanent ? new UnrecoverableError(JSON.stringify(body)) : new Error(JSON.stringify(body));
    }
    await this.jobs.requeue(id, body, attempt);
    this.logger.warn({ jobId: id, kind: body.kind, attempt, err: error }, 'job attempt failed; will retry');
    return new Error(JSON.stringify(body));
  }
}

export function errorBody(error: unknown): QuarryErrorBody {
  if (isQuarryError(error)) return error.toBody();
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'internal', message, suggestion: 'This is a bug or an outage; the job is retried automatically.' };
}
