import { randomUUID } from 'node:crypto';
import {
  JOB_CONTRACTS,
  QuarryError,
  isQuarryError,
  parseOrThrow,
  type JobInput,
  type JobKind,
  type JobProgress,
  type JobResult,
  type JobView,
} from '@quarry/contracts';
import type { RunOptions } from './backend';

/** Jobs kept for `quarry://jobs/{id}` in a process that runs them itself; the oldest are forgotten first. */
export const KEPT_JOBS = 100;

/** One job's work: `id` is the job's id in this session (a pack's artifact is named by it). */
export type JobWork<K extends JobKind> = (input: JobInput<K>, signal: AbortSignal, onProgress: (progress: JobProgress) => void, id: string) => Promise<JobResult<K>>;

/**
 * The job bookkeeping of a process that runs jobs in-process (`quarry mcp` without a server):
 * each run gets an id and a record with the same shape the gateway returns (status, progress,
 * result or typed error), kept in memory for the session so its resource can be read.
 */
export class InProcessJobs {
  private readonly jobs = new Map<string, JobView>();

  async run<K extends JobKind>(kind: K, rawInput: JobInput<K>, options: RunOptions, work: JobWork<K>): Promise<{ jobId: string; result: JobResult<K> }> {
    const input = parseOrThrow(JOB_CONTRACTS[kind].input, rawInput, 'input') as JobInput<K>;
    const now = new Date().toISOString();
    const job: JobView = {
      id: randomUUID(),
      kind,
      status: 'running',
      input,
      result: null,
      error: null,
      progress: null,
      attempts: 1,
      parentId: null,
      createdAt: now,
      startedAt: now,
      finishedAt: null,
    };
    this.remember(job);
    options.onJob?.(job.id);
    const onProgress = (progress: JobProgress) => {
      job.progress = progress;
      options.onProgress(progress);
    };
    try {
      options.signal.throwIfAborted();
      const result = await work(input, options.signal, onProgress, job.id);
      this.finish(job, 'succeeded', { result });
      return { jobId: job.id, result };
    } catch (error) {
      if (options.signal.aborted) {
        this.finish(job, 'cancelled', {});
        throw new QuarryError('job_cancelled', `The ${kind} job ${job.id} was cancelled.`);
      }
      const failure = isQuarryError(error) ? error : new QuarryError('internal', `The ${kind} job failed: ${(error as Error)?.message ?? String(error)}`);
      this.finish(job, 'failed', { error: failure.toBody() });
      throw failure;
    }
  }

  get(id: string): JobView {
    const job = this.jobs.get(id);
    if (!job) throw new QuarryError('job_not_found', `No job ${id} in this session.`, { suggestion: 'List the jobs of this session with resources/list.' });
    return { ...job };
  }

  /** Newest first. */
  list(limit: number): JobView[] {
    return [...this.jobs.values()].reverse().slice(0, limit).map((job) => ({ ...job }));
  }

  private remember(job: JobView): void {
    this.jobs.set(job.id, job);
    for (const id of this.jobs.keys()) {
      if (this.jobs.size <= KEPT_JOBS) break;
      this.jobs.delete(id);
    }
  }

  private finish(job: JobView, status: 'succeeded' | 'failed' | 'cancelled', outcome: Partial<Pick<JobView, 'result' | 'error'>>): void {
    Object.assign(job, outcome, { status, finishedAt: new Date().toISOString() });
  }
}
