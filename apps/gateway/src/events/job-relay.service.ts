import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { QueueEvents } from 'bullmq';
import { BUILT_KINDS, JobKind, JobProgress, jobProgressSchema } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig, Logger } from '@quarry/config';
import { JobRepository } from '@quarry/db';
import { redisOptions } from '@quarry/queue';
import { GATEWAY_LOGGER } from '../gateway.tokens';
import { MetricsService } from '../metrics/metrics.service';
import { JobEventsEmitter } from './job-events.emitter';

/**
 * Relays BullMQ QueueEvents (a Redis stream every gateway reads) to socket rooms. Progress goes
 * straight through. A completion whose worker wrote the row hands over the result it wrote, so the
 * usual path reads nothing; other outcomes (a run that lost to a cancel or to another run, a
 * failure, a result too big to hand over) are read back from Postgres, the source of truth, so
 * what is reported is what actually stuck.
 */
@Injectable()
export class JobRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly queueEvents: QueueEvents[] = [];

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    private readonly jobs: JobRepository,
    private readonly emitter: JobEventsEmitter,
    private readonly metrics: MetricsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const kind of BUILT_KINDS) this.queueEvents.push(this.listen(kind));
    await Promise.all(this.queueEvents.map((events) => events.waitUntilReady()));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.queueEvents.map((events) => events.close()));
  }

  private listen(kind: JobKind): QueueEvents {
    const events = new QueueEvents(kind, { connection: redisOptions(this.config.redisUrl, true), prefix: this.config.queuePrefix });
    events.on('error', (error) => this.logger.warn({ err: error, queue: kind }, 'queue events error'));
    events.on('active', ({ jobId }) => this.emitter.status(jobId, 'running'));
    events.on('progress', ({ jobId, data }) => {
      const progress = jobProgressSchema.safeParse(data);
      if (progress.success) this.emitter.progress(jobId, progress.data as JobProgress);
    });
    events.on('completed', ({ jobId, returnvalue }) => {
      const duration = (returnvalue as { durationMs?: unknown } | undefined)?.durationMs;
      if (typeof duration === 'number') this.metrics.observeDuration(kind, duration / 1000);
      // The worker hands over the result it wrote (when small): its guarded write made the row
      // succeeded with exactly that result, a final state, so there is nothing to read back.
      const handed = returnvalue as { written?: unknown; result?: unknown } | undefined;
      if (handed?.written === true && handed !== null && typeof handed === 'object' && 'result' in handed) {
        if (this.emitter.isWatched(jobId)) this.emitter.completed(jobId, handed.result);
        return;
      }
      this.settle(jobId).catch((error) => this.logger.warn({ err: error, jobId }, 'relay failed'));
    });
    events.on('failed', ({ jobId, failedReason }) => {
      this.onFailed(jobId, failedReason).catch((error) => this.logger.warn({ err: error, jobId }, 'relay failed'));
    });
    return events;
  }

  private async onFailed(jobId: string, failedReason: string): Promise<void> {
    // A job whose worker died too often ends failed in the queue without any worker writing it.
    if (/stalled more than allowable limit/i.test(failedReason)) {
      await this.jobs.fail(jobId, {
        kind: 'job_stalled',
        message: 'The job was abandoned by its worker too many times (the worker crashed or was killed).',
        suggestion: 'Retry it with POST /v1/jobs/:id/retry; if it keeps stalling, give workers more memory or time.',
      });
    }
    await this.settle(jobId);
  }

  /** Emits the job's current outcome to its watchers, if this gateway has any. */
  private async settle(jobId: string): Promise<void> {
    if (!this.emitter.isWatched(jobId)) return;
    const job = await this.jobs.find(jobId);
    if (!job) return;
    if (job.status === 'succeeded') this.emitter.completed(jobId, job.result);
    else if (job.status === 'failed' && job.error) this.emitter.failed(jobId, job.error, job.finishedAt);
    else if (job.status === 'cancelled') this.emitter.cancelled(jobId, job.finishedAt);
    else if (job.status === 'queued') this.emitter.status(jobId, 'queued', job.attempts, job.error ?? undefined);
  }
}
