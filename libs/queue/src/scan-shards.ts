import type { JobsOptions } from 'bullmq';

/** The queue of scan shards: every worker that serves `scan` also takes shards, from any scan. */
export const SCAN_SHARD_QUEUE = 'scan-shard';

/** A shard job: which commit, which files (one per blob), and the scan it belongs to. */
export interface ScanShardData {
  /** The parent scan's job id (its Postgres row); a cancel of it cancels the shard. */
  parentId: string;
  /** The pinned git source: `{git, ref, commit}`. */
  source: { git: string; ref: string; commit: string };
  files: Array<{ path: string; blob?: string }>;
  index: number;
  count: number;
  /** Index the blobs for the code index too (tokens, symbols); absent means yes. */
  codeIndex?: boolean;
}

/**
 * A shard that fails (a worker killed, a blob fetch that timed out) is retried alone, with
 * backoff; its rows are idempotent, so a repeat only redoes what was not written.
 */
export const SCAN_SHARD_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 24 * 3_600 },
};
