import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { QUARRY_CONFIG, QuarryConfig, Logger } from '@quarry/config';
import { JobRepository } from '@quarry/db';
import { QueueReconciler, ReconcileReport } from '@quarry/queue';
import { GATEWAY_LOGGER } from '../gateway.tokens';
import { QueueRegistry } from './queues.module';

/** Runs the reconciler at start and then every QUARRY_RECONCILE_INTERVAL_MS. */
@Injectable()
export class ReconcilerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly reconciler: QueueReconciler;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    jobs: JobRepository,
    queues: QueueRegistry,
  ) {
    this.reconciler = new QueueReconciler(jobs, queues, config.queuePrefix);
  }

  onApplicationBootstrap(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.config.reconcileIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass; exposed for tests and the CLI. */
  async reconcileNow(graceMs = this.config.reconcileGraceMs): Promise<ReconcileReport> {
    const report = await this.reconciler.reconcile(graceMs);
    if (report.requeued.length || report.failed.length) {
      this.logger.info({ requeued: report.requeued.length, failed: report.failed.length }, 'reconciled jobs Redis had lost');
    }
    return report;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.reconcileNow()
      .catch((error) => this.logger.warn({ err: error }, 'reconcile pass failed; next pass will retry'))
      .finally(() => (this.running = undefined));
  }
}
