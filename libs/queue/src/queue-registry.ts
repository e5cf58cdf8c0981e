import type { Job, Queue } from 'bullmq';
import type { JobKind } from '@quarry/contracts';
import { jobOptionsFor, QueuedJobData } from './job-options';

/** Looks up the BullMQ queue of a kind. */
export interface QueueLookup {
  queueFor(kind: JobKind): Queue<QueuedJobData>;
}

/** Adds the queue copy of a job whose row is committed. Adding twice is harmless: same jobId. */
export async function enqueue(queues: QueueLookup, kind: JobKind, jobId: string): Promise<Job<QueuedJobData>> {
  return queues.queueFor(kind).add(kind, { jobId }, jobOptionsFor(kind, jobId));
}

/** The queue copies of many committed rows: one `addBulk` (one Redis round trip) per kind. */
export async function enqueueMany(queues: QueueLookup, jobs: ReadonlyArray<{ kind: JobKind; id: string }>): Promise<void> {
  const byKind = new Map<JobKind, string[]>();
  for (const job of jobs) {
    const ids = byKind.get(job.kind) ?? [];
    ids.push(job.id);
    byKind.set(job.kind, ids);
  }
  await Promise.all(
    [...byKind].map(([kind, ids]) => queues.queueFor(kind).addBulk(ids.map((jobId) => ({ name: kind, data: { jobId }, opts: jobOptionsFor(kind, jobId) })))),
  );
}

/** Resolves with the promise's value, or rejects after `ms` (the promise itself goes on). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
