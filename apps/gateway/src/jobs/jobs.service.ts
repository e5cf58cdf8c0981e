import { Inject, Injectable } from '@nestjs/common';
import IORedis from 'ioredis';
import {
  JOB_CONTRACTS,
  JOB_KINDS,
  JobPage,
  JobView,
  ListJobsQuery,
  QuarryError,
  closestMatch,
  isBuiltKind,
  isJobKind,
  assertStorableText,
  parseOrThrow,
  submitBatchSchema,
  submitJobSchema,
  BatchAnswer,
  BatchItem,
  JobKind,
  QuarryErrorBody,
  isQuarryError,
} from '@quarry/contracts';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isPackArtifactName, packContentType } from '@quarry/code-index';
import { QUARRY_CONFIG, QuarryConfig, Logger } from '@quarry/config';
import { GroupCommit, JobRepository } from '@quarry/db';
import { cancelChannel, enqueue, enqueueMany, withTimeout } from '@quarry/queue';
import { Principal, ownerFilter, ownerIdOf } from '../auth/principal';
import { QueueRegistry } from '../queues/queues.module';
import { GATEWAY_LOGGER, REDIS_PUBLISHER } from '../gateway.tokens';
import { admitInput } from './admission';
import { JobEventsEmitter } from '../events/job-events.emitter';

const ENQUEUE_TIMEOUT_MS = 2_000;

type NewJob = { kind: JobKind; input: Record<string, unknown>; ownerId: string | null; queuePrefix: string };

/** Submitting, reading, cancelling and retrying jobs. Postgres first, the queue after commit. */
@Injectable()
export class JobsService {
  /**
   * Single submissions that arrive together (concurrent POSTs, an agent's parallel MCP tool calls)
   * share one multi-row insert and one addBulk per kind, like a batch; a lone one waits for nothing.
   */
  private readonly submissions = new GroupCommit<NewJob, JobView>(async (items) => {
    if (items.length === 1) {
      // Alone: the single-row insert and a plain add are quicker than their bulk forms.
      const job = await this.jobs.create(items[0]);
      await this.enqueueCommitted(job);
      return [job];
    }
    const jobs = await this.jobs.createMany(items);
    await this.enqueueAllCommitted(jobs);
    return jobs;
  });

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    @Inject(REDIS_PUBLISHER) private readonly publisher: IORedis,
    private readonly jobs: JobRepository,
    private readonly queues: QueueRegistry,
    private readonly emitter: JobEventsEmitter,
  ) {}

  async submit(body: unknown, principal: Principal): Promise<JobView> {
    const { kind, input } = await this.admit(body, 'body');
    return this.submissions.submit({ kind, input, ownerId: ownerIdOf(principal), queuePrefix: this.config.queuePrefix });
  }

  /**
   * Several submissions in one request: each item is validated and admitted on its own (a bad one
   * gets its typed error at its index), the good ones are stored in one multi-row statement and
   * queued with one `addBulk` per kind.
   */
  async submitBatch(body: unknown, principal: Principal): Promise<BatchAnswer> {
    const max = this.config.batchMaxJobs;
    const count = (body as { jobs?: unknown } | null)?.jobs;
    if (Array.isArray(count) && count.length > max) {
      throw new QuarryError('batch_too_large', `The batch has ${count.length} jobs; this server takes at most ${max} per request.`, {
        suggestion: `Split it into requests of at most ${max} jobs, or raise QUARRY_BATCH_MAX_JOBS.`,
      });
    }
    const { jobs: items } = parseOrThrow(submitBatchSchema, body, 'body');
    const roots = new Map<string, Promise<string>>();
    const checked = await Promise.all(
      items.map(async (item, index): Promise<{ index: number; kind: JobKind; input: Record<string, unknown> } | { index: number; error: QuarryErrorBody }> => {
        try {
          return { index, ...(await this.admit(item, `jobs[${index}]`, roots)) };
        } catch (error) {
          if (isQuarryError(error)) return { index, error: error.toBody() };
          throw error;
        }
      }),
    );
    const valid = checked.filter((item): item is { index: number; kind: JobKind; input: Record<string, unknown> } => !('error' in item));
    const ownerId = ownerIdOf(principal);
    const created = await this.jobs.createMany(valid.map((item) => ({ kind: item.kind, input: item.input, ownerId, queuePrefix: this.config.queuePrefix })));
    await this.enqueueAllCommitted(created);
    const jobAt = new Map(valid.map((item, i) => [item.index, created[i]]));
    const answer: BatchItem[] = checked.map((item) =>
      'error' in item ? { index: item.index, ok: false, error: item.error } : { index: item.index, ok: true, job: jobAt.get(item.index) as JobView },
    );
    return { accepted: created.length, rejected: checked.length - created.length, items: answer };
  }

  /** Validates one submission and runs the admission checks (workspace root, URL gate). */
  private async admit(body: unknown, where: string, roots?: Map<string, Promise<string>>): Promise<{ kind: JobKind; input: Record<string, unknown> }> {
    const request = parseOrThrow(submitJobSchema, body, where);
    if (!isJobKind(request.kind)) {
      const guess = closestMatch(request.kind, JOB_KINDS);
      throw new QuarryError('kind_unknown', `There is no job kind "${request.kind}".`, {
        suggestion: guess ? `Did you mean "${guess}"? Kinds: ${JOB_KINDS.join(', ')}.` : `Kinds: ${JOB_KINDS.join(', ')}.`,
      });
    }
    if (!isBuiltKind(request.kind)) {
      throw new QuarryError('kind_not_available', `"${request.kind}" jobs are not available on this server yet.`, {
        suggestion: 'Upgrade Quarry, or submit one of the available kinds listed at /docs.',
      });
    }
    const inputWhere = where === 'body' ? 'input' : `${where}.input`;
    const input = parseOrThrow(JOB_CONTRACTS[request.kind].input, request.input, inputWhere) as Record<string, unknown>;
    // Checked before the roots are resolved, so a NUL in a path reads as bad input, not a missing root.
    assertStorableText(input, inputWhere);
    const admitted = await admitInput(request.kind, input, { workspaceRoots: this.config.workspaceRoots, fetchAllow: this.config.fetch.allow }, roots);
    return { kind: request.kind, input: admitted };
  }

  /** Like enqueueCommitted, for a batch. */
  private async enqueueAllCommitted(jobs: JobView[]): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await withTimeout(enqueueMany(this.queues, jobs), ENQUEUE_TIMEOUT_MS, 'enqueue');
    } catch (error) {
      this.logger.warn({ err: error, jobs: jobs.length }, 'jobs stored but not queued yet; the reconciler will queue them');
    }
  }

  /** The row is committed, so the job is accepted even if Redis is away: the reconciler re-adds it. */
  private async enqueueCommitted(job: JobView): Promise<void> {
    try {
      await withTimeout(enqueue(this.queues, job.kind, job.id), ENQUEUE_TIMEOUT_MS, 'enqueue');
    } catch (error) {
      this.logger.warn({ err: error, jobId: job.id }, 'job stored but not queued yet; the reconciler will queue it');
    }
  }

  async get(id: string, principal: Principal): Promise<JobView> {
    const job = await this.jobs.find(id);
    if (!job || !(await this.visible(job.id, principal))) throw notFound(id);
    return job;
  }

  /** History of a job the caller has already been allowed to see (no second visibility check). */
  historyOf(id: string) {
    return this.jobs.history(id);
  }

  async history(id: string, principal: Principal) {
    await this.get(id, principal);
    return this.jobs.history(id);
  }

  list(query: ListJobsQuery, principal: Principal): Promise<JobPage> {
    return this.jobs.list({ ...query, ownerId: ownerFilter(principal) });
  }

  async cancel(id: string, principal: Principal): Promise<JobView> {
    const job = await this.get(id, principal);
    if (!(await this.jobs.cancel(id))) {
      throw new QuarryError('job_not_cancellable', `The job is ${job.status}; only queued or running jobs can be cancelled.`, {
        suggestion: job.status === 'failed' ? 'Retry it with POST /v1/jobs/:id/retry instead.' : undefined,
      });
    }
    // A waiting copy is simply removed; a running one is aborted by whichever worker holds it.
    await this.queues.queueFor(job.kind).remove(id).catch(() => 0);
    // If the message is lost (Redis away), the run finishes but its result is not written: the
    // completion is guarded on the row still being `running`.
    await this.publisher.publish(cancelChannel(this.config.queuePrefix), id).catch((error: unknown) => {
      this.logger.warn({ err: error, jobId: id }, 'could not broadcast the cancel');
    });
    const cancelled = await this.get(id, principal);
    this.emitter.cancelled(id, cancelled.finishedAt);
    return cancelled;
  }

  async retry(id: string, principal: Principal): Promise<JobView> {
    const job = await this.get(id, principal);
    if (!(await this.jobs.resetForRetry(id))) {
      throw new QuarryError('job_not_retryable', `The job is ${job.status}; only failed or cancelled jobs can be retried.`);
    }
    // The failed copy still holds this id in Redis; drop it so the new one is not deduplicated away.
    await this.queues.queueFor(job.kind).remove(id).catch(() => 0);
    const queued = await this.get(id, principal);
    await this.enqueueCommitted(queued);
    this.emitter.status(id, 'queued', 0);
    return queued;
  }

  /**
   * Where a job's artifact (a pack's document) is: a succeeded pack job of this principal whose
   * file is still in the artifact directory; `not_found` otherwise, saying why.
   */
  async artifact(id: string, principal: Principal): Promise<{ file: string; name: string; contentType: string; bytes: number }> {
    const job = await this.get(id, principal);
    if (job.kind !== 'pack') {
      throw new QuarryError('not_found', `Job ${id} is a ${job.kind} job: only pack jobs have an artifact.`, { suggestion: 'Its result is in GET /v1/jobs/{id}.' });
    }
    const artifact = (job.result as { artifact?: { name?: unknown; contentType?: unknown } } | null)?.artifact;
    if (job.status !== 'succeeded' || typeof artifact?.name !== 'string' || !isPackArtifactName(artifact.name)) {
      throw new QuarryError('not_found', `Job ${id} has no artifact (it is ${job.status}).`, {
        suggestion: job.status === 'failed' || job.status === 'cancelled' ? `Retry it: POST /v1/jobs/${id}/retry.` : 'Wait until it succeeds; watch it on the socket or poll GET /v1/jobs/{id}.',
      });
    }
    const file = path.join(this.config.artifactDir, artifact.name);
    const stats = await stat(file).catch(() => undefined);
    if (!stats?.isFile()) {
      throw new QuarryError('not_found', `The document of job ${id} is no longer stored.`, {
        suggestion: `Pack again (POST /v1/jobs/${id}/retry), and check that gateway and workers share QUARRY_ARTIFACT_DIR.`,
      });
    }
    return { file, name: artifact.name, contentType: packContentType(artifact.name), bytes: stats.size };
  }

  /** Whether the principal may see this job (its own, or any when keys are off). */
  async visible(id: string, principal: Principal): Promise<boolean> {
    const owner = ownerFilter(principal);
    if (owner === undefined) return true;
    const { exists, ownerId } = await this.jobs.ownerOf(id);
    return exists && ownerId === owner;
  }
}

function notFound(id: string): QuarryError {
  return new QuarryError('job_not_found', `No job ${id}.`, { suggestion: 'List your jobs with GET /v1/jobs.' });
}
