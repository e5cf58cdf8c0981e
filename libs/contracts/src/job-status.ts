/**
 * The job status machine. `queued` → `running` → one of the terminal states; a transient failure
 * sends a running job back to `queued` (it will run again after its backoff); `retry` sends a
 * failed or cancelled job back to `queued`.
 */
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

const TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  queued: ['running', 'cancelled', 'failed'],
  running: ['queued', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: ['queued'],
  cancelled: ['queued'],
};

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The states a transition into `to` may start from; repositories use it as a guard in SQL. */
export function statusesLeadingTo(to: JobStatus): JobStatus[] {
  return JOB_STATUSES.filter((from) => TRANSITIONS[from].includes(to));
}
