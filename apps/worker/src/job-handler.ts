import { SetMetadata } from '@nestjs/common';
import type { JobInput, JobKind, JobProgress, JobResult, ResolvedSourceBody } from '@quarry/contracts';

/** What a handler gets besides its input. */
export interface JobContext {
  jobId: string;
  attempt: number;
  /** Aborted when the job is cancelled or the worker is shutting down hard. */
  signal: AbortSignal;
  /** Report progress as often as convenient: the runner throttles what reaches clients. */
  progress(progress: JobProgress): void;
  /** The API key that submitted the job (children inherit it, so their owner sees them). */
  ownerId: string | null;
  /** This job's BullMQ identity, for child jobs' `parent` option. */
  queueJob: { id: string; queue: string };
  /** The repository commit an earlier attempt pinned, if any (a retry reads the same commit). */
  pinnedSource?: ResolvedSourceBody | null;
  /** Records the commit this job reads on its row now, before the work (the first pin wins): a retry reads the same commit. */
  pinSource?(source: ResolvedSourceBody): Promise<void>;
  /** Records the repository this job read with its result, in the same write (a directory is identified only beside the work). */
  recordSource?(source: ResolvedSourceBody): void;
}

/** Runs one kind of job: parse nothing (the runner did), call a library, return its result. */
export interface JobHandler<K extends JobKind = JobKind> {
  run(input: JobInput<K>, context: JobContext): Promise<JobResult<K>>;
}

export const HANDLES_JOB = 'quarry:handles-job';

/** Marks a provider as the handler of one job kind. Exactly one per built kind, checked at boot. */
export const HandlesJob = (kind: JobKind) => SetMetadata(HANDLES_JOB, kind);
