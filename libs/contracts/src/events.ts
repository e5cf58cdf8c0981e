import type { QuarryErrorBody } from './errors';
import type { JobView, JobEventView } from './job';
import type { JobProgress } from './progress';
import type { JobStatus } from './job-status';

/** The socket.io namespace clients connect to. */
export const EVENTS_NAMESPACE = '/events';

export function jobRoom(jobId: string): string {
  return `job:${jobId}`;
}

/** What the server sends. Every payload names its job, so one socket can watch many. */
export interface ServerToClientEvents {
  /**
   * Sent once per subscribe, before any live event: the job as Postgres has it, plus its history.
   * A finished job's snapshot is the subscriber's outcome: no terminal event follows it, and an
   * unfinished one is followed by exactly one (another only when the job is retried).
   */
  'job.snapshot': (payload: { job: JobView; history: JobEventView[] }) => void;
  'job.progress': (payload: { jobId: string; progress: JobProgress }) => void;
  'job.status': (payload: { jobId: string; status: JobStatus; attempts?: number; error?: QuarryErrorBody }) => void;
  'job.completed': (payload: { jobId: string; result: unknown }) => void;
  'job.failed': (payload: { jobId: string; error: QuarryErrorBody }) => void;
  'job.cancelled': (payload: { jobId: string }) => void;
}

export type SubscribeAck = { ok: true; job: JobView } | { ok: false; error: QuarryErrorBody };

/** What clients send; each takes an acknowledgement callback. */
export interface ClientToServerEvents {
  subscribe: (payload: { jobId: string }, ack?: (answer: SubscribeAck) => void) => void;
  unsubscribe: (payload: { jobId: string }, ack?: (answer: { ok: boolean }) => void) => void;
}

export type ServerEventName = keyof ServerToClientEvents;
