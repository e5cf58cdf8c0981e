import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { JOB_KINDS, JobKind } from '@quarry/contracts';
import { JobRepository } from '@quarry/db';
import { QueueRegistry } from '../queues/queues.module';

/** Prometheus metrics. Job counts and queue depths are read at scrape time, so every gateway agrees. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly submitted: Counter<'kind'>;
  private readonly duration: Histogram<'kind'>;

  constructor(jobs: JobRepository, queues: QueueRegistry) {
    collectDefaultMetrics({ register: this.registry, prefix: 'quarry_gateway_' });
    this.submitted = new Counter({ name: 'quarry_jobs_submitted_total', help: 'Jobs accepted by this gateway', labelNames: ['kind'], registers: [this.registry] });
    this.duration = new Histogram({
      name: 'quarry_job_duration_seconds',
      help: 'Handler run time of completed jobs, as seen by this gateway',
      labelNames: ['kind'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
      registers: [this.registry],
    });
    new Gauge({
      name: 'quarry_jobs',
      help: 'Jobs in Postgres by kind and status',
      labelNames: ['kind', 'status'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await jobs.countByKindAndStatus()) this.set({ kind: row.kind, status: row.status }, row.count);
      },
    });
    new Gauge({
      name: 'quarry_queue_jobs',
      help: 'Jobs in each BullMQ queue by state',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const kind of JOB_KINDS) {
          const counts = await queues.queueFor(kind).getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
          for (const [state, count] of Object.entries(counts)) this.set({ queue: kind, state }, count);
        }
      },
    });
  }

  countSubmitted(kind: JobKind): void {
    this.submitted.inc({ kind });
  }

  observeDuration(kind: JobKind, seconds: number): void {
    this.duration.observe({ kind }, seconds);
  }
}
