import type { JobsOptions } from 'bullmq';
import type { JobKind } from '@quarry/contracts';

/** Completed jobs are only a cache of what Postgres holds: keep an hour or the last thousand. */
const COMPLETED_RETENTION = { age: 3_600, count: 1_000 };

/**
 * Default BullMQ options per kind. Transient failures retry with exponential backoff and jitter
 * (so a burst of failures does not retry in lockstep); failed jobs are kept: they are the
 * dead-letter list, and `POST /v1/jobs/:id/retry` re-runs them.
 */
export const JOB_OPTIONS: Record<JobKind, JobsOptions> = {
  scan: { attempts: 3, backoff: { type: 'exponential', delay: 2_000, jitter: 0.5 } },
  detect: { attempts: 3, backoff: { type: 'exponential', delay: 2_000, jitter: 0.5 } },
  mentions: { attempts: 3, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 } },
  fetch: { attempts: 4, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 } },
  interpret: { attempts: 2, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 } },
  symbols: { attempts: 2, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 } },
  map: { attempts: 2, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 } },
  pack: { attempts: 2, backoff: { type: 'exponential', delay: 2_000, jitter: 0.5 } },
  context: { attempts: 2, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 } },
};

/** The one place a job's BullMQ options are derived: its id is the Postgres row id. */
export function jobOptionsFor(kind: JobKind, jobId: string, overrides: JobsOptions = {}): JobsOptions {
  return {
    ...JOB_OPTIONS[kind],
    removeOnComplete: COMPLETED_RETENTION,
    removeOnFail: false,
    ...overrides,
    jobId,
  };
}

/** What a BullMQ job carries: only the row id. The worker reloads everything else from Postgres. */
export interface QueuedJobData {
  jobId: string;
}
