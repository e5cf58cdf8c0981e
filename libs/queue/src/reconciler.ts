import type { JobKind, JobStatus, QuarryErrorBody } from '@quarry/contracts';
import { enqueue, QueueLookup } from './queue-registry';

/** The part of the job store the reconciler needs. */
export interface ReconcilerStore {
  findUnfinished(queuePrefix: string, olderThanMs: number, limit?: number): Promise<Array<{ id: string; kind: JobKind; status: JobStatus }>>;
  fail(id: string, error: QuarryErrorBody): Promise<boolean>;
  touch(id: string): Promise<void>;
}

export interface ReconcileReport {
  checked: number;
  requeued: string[];
  failed: string[];
}

/**
 * Postgres says which jobs should exist; Redis (which keeps nothing on disk here) may have lost
 * them. For each job still queued or running but untouched for a while, look at its queue copy:
 * missing → add it again (same id, so a copy that reappears is not doubled); failed for good in
 * the queue while the row never heard → mark the row failed. Jobs updated within `graceMs` are
 * left alone: their submitter or worker is still acting on them.
 */
export class QueueReconciler {
  constructor(
    private readonly store: ReconcilerStore,
    private readonly queues: QueueLookup,
    private readonly queuePrefix: string,
  ) {}

  async reconcile(graceMs: number): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, requeued: [], failed: [] };
    const rows = await this.store.findUnfinished(this.queuePrefix, graceMs);
    for (const row of rows) {
      report.checked++;
      const queue = this.queues.queueFor(row.kind);
      const state = await queue.getJobState(row.id);
      if (state === 'unknown') {
        await enqueue(this.queues, row.kind, row.id);
        await this.store.touch(row.id);
        report.requeued.push(row.id);
      } else if (state === 'failed') {
        const job = await queue.getJob(row.id);
        const failed = await this.store.fail(row.id, {
          kind: 'job_lost',
          message: `The job failed in the queue without reaching the database: ${job?.failedReason ?? 'no reason recorded'}`,
          suggestion: 'Retry it with POST /v1/jobs/:id/retry.',
        });
        if (failed) report.failed.push(row.id);
      } else {
        // Waiting, delayed, active or completed-and-about-to-write: alive. Mark it seen.
        await this.store.touch(row.id);
      }
    }
    return report;
  }
}
