import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { QuarryError, type ErrorKind, type JobInput, type JobKind, type JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { JobRepository } from '@quarry/db';
import { gateUrl, parseAllowList } from '@quarry/fetch';
import { cancelChannel, jobOptionsFor, QueuedJobData, redisOptions } from '@quarry/queue';
import type { JobContext } from './job-handler';

/** How often a parent looks at its child's row. Children are few (≤ 10 URLs) and short. */
const POLL_MS = 50;

/**
 * Runs a job of another kind as a child of the running one: its own row (parent_id set, same
 * owner), its own BullMQ job with the `parent` option — so it obeys that kind's queue, retries and
 * limits (a fetch's per-domain rate limit), and shows under its parent in the queue dashboard —
 * and the parent waits for its outcome in Postgres, the source of truth. A failed child never
 * blocks its parent from completing (`ignoreDependencyOnFailure`); a cancelled parent cancels the
 * children it is still waiting for.
 */
@Injectable()
export class ChildJobs implements OnApplicationShutdown {
  private readonly queues = new Map<JobKind, Queue<QueuedJobData>>();
  private readonly connection: IORedis;
  private readonly fetchAllow: ReturnType<typeof parseAllowList>;

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly jobs: JobRepository,
  ) {
    this.connection = new IORedis(redisOptions(config.redisUrl));
    this.fetchAllow = parseAllowList(config.fetch.allow);
  }

  /**
   * A URL as text, fetched by a child fetch job. A URL the gate refuses (scheme, credentials, an
   * internal literal address) fails here, before any job is made of it. The child may wait for a
   * queue slot and retry once; past that it fails as `url_timeout`.
   */
  fetch(parent: JobContext, url: string): Promise<JobResult<'fetch'>> {
    const gated = gateUrl(url, { allow: this.fetchAllow }).toString();
    return this.run(parent, 'fetch', { url: gated, force: false }, this.config.fetch.timeoutMs * 2 + 30_000);
  }

  async run<K extends JobKind>(parent: JobContext, kind: K, input: JobInput<K>, timeoutMs: number): Promise<JobResult<K>> {
    const child = await this.jobs.create({ kind, input, ownerId: parent.ownerId, parentId: parent.jobId, queuePrefix: this.config.queuePrefix });
    await this.queueFor(kind).add(kind, { jobId: child.id }, jobOptionsFor(kind, child.id, { parent: parent.queueJob, ignoreDependencyOnFailure: true }));
    return (await this.outcomeOf(child.id, parent.signal, timeoutMs)) as JobResult<K>;
  }

  private async outcomeOf(id: string, signal: AbortSignal, timeoutMs: number): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        const job = await this.jobs.find(id);
        if (job?.status === 'succeeded') return job.result;
        if (job?.status === 'failed' || job?.status === 'cancelled') {
          const error = job.error ?? { kind: 'job_cancelled', message: `Child job ${id} was cancelled.` };
          throw new QuarryError(error.kind as ErrorKind, error.message, { suggestion: error.suggestion });
        }
        if (Date.now() > deadline) {
          await this.cancel(id);
          throw new QuarryError('url_timeout', `Child ${job?.kind ?? 'job'} ${id} did not finish within ${Math.round(timeoutMs / 1000)} s.`, {
            suggestion: 'Check that some worker serves that queue (QUARRY_WORKER_QUEUES), or retry later.',
            permanent: false,
          });
        }
        await sleep(POLL_MS, undefined, { signal });
      }
    } catch (error) {
      if (signal.aborted) {
        await this.cancel(id);
        throw signal.reason;
      }
      throw error;
    }
  }

  /** The same path as a user's cancel: mark the row, drop a waiting copy, tell a running one. */
  private async cancel(id: string): Promise<void> {
    const job = await this.jobs.find(id);
    if (!job || !(await this.jobs.cancel(id))) return;
    await this.queueFor(job.kind).remove(id).catch(() => 0);
    await this.connection.publish(cancelChannel(this.config.queuePrefix), id).catch(() => 0);
  }

  private queueFor(kind: JobKind): Queue<QueuedJobData> {
    let queue = this.queues.get(kind);
    if (!queue) {
      queue = new Queue<QueuedJobData>(kind, { connection: this.connection, prefix: this.config.queuePrefix });
      this.queues.set(kind, queue);
    }
    return queue;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
