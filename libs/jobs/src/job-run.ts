import type { JobProgress, ResolvedSourceBody } from '@quarry/contracts';

/**
 * One run of a job kind, as every caller gives it to a use case: the worker (a job row and its
 * BullMQ job), the CLI's in-process commands and `quarry mcp` in-process.
 */
export interface JobRun {
  /** The job's id: the worker's row id, or one made up in-process. It names a pack's artifact. */
  readonly id: string;
  /** Aborted when the job is cancelled (or its worker shuts down hard). */
  readonly signal: AbortSignal;
  /** Progress, as often as convenient: callers throttle what reaches clients. */
  progress(progress: JobProgress): void;
  /** Where a job records the commit it reads (the worker's job row); absent in-process. */
  readonly pins?: SourcePins;
}

/** The worker's job row as the keeper of the commit a job reads: a retry reads the same commit. */
export interface SourcePins {
  /** The commit an earlier attempt pinned, if any. */
  readonly pinned?: ResolvedSourceBody | null;
  /** Records the commit now, before the work (a git ref resolved to its commit; the first pin wins). */
  pin?(source: ResolvedSourceBody): Promise<void>;
  /** Records a directory's identity with the result, in the same write (it is known only once the work read the files). */
  record?(source: ResolvedSourceBody): void;
}
