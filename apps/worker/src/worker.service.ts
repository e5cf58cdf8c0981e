import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { Worker } from 'bullmq';
import IORedis from 'ioredis';
import { QUARRY_CONFIG, QuarryConfig, Logger } from '@quarry/config';
import { JobRepository, PrismaService } from '@quarry/db';
import { cancelChannel, QueuedJobData, redisOptions } from '@quarry/queue';
import { HandlerRegistry } from './handler-registry';
import { JobRunner } from './job-runner';
import { WORKER_LOGGER } from './worker-logger';

/**
 * One BullMQ Worker per queue this process serves. Workers are created paused and start taking
 * jobs only once Redis and Postgres answer; on shutdown they stop taking jobs and let the active
 * ones finish, up to a timeout, before the connections close.
 */
@Injectable()
export class WorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private workers: Worker<QueuedJobData>[] = [];
  private subscriber: IORedis | undefined;

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    @Inject(WORKER_LOGGER) private readonly logger: Logger,
    private readonly prisma: PrismaService,
    private readonly jobs: JobRepository,
    private readonly handlers: HandlerRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const runner = new JobRunner(this.jobs, this.handlers.all(), this.logger);
    const connection = redisOptions(this.config.redisUrl, true);
    this.workers = this.config.workerQueues.map(
      (kind) =>
        new Worker<QueuedJobData>(kind, (job, _token, signal) => runner.run(job, signal ?? new AbortController().signal), {
          connection,
          prefix: this.config.queuePrefix,
          concurrency: this.config.workerConcurrency,
          autorun: false,
          lockDuration: this.config.jobLockMs,
          stalledInterval: this.config.stalledIntervalMs,
          maxStalledCount: this.config.maxStalledCount,
        }),
    );
    for (const worker of this.workers) {
      worker.on('error', (error) => this.logger.error({ err: error, queue: worker.name }, 'worker error'));
    }
    await this.waitUntilReady();
    await this.listenForCancels();
    for (const worker of this.workers) void worker.run();
    this.logger.info(
      { queues: this.config.workerQueues, concurrency: this.config.workerConcurrency },
      `worker taking jobs from ${this.config.workerQueues.join(', ')}`,
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.logger.info('worker stopping: finishing active jobs');
    const graceful = Promise.all(this.workers.map((worker) => worker.close()));
    const timedOut = await Promise.race([
      graceful.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), this.config.shutdownTimeoutMs).unref()),
    ]);
    if (timedOut) {
      this.logger.warn('active jobs did not finish in time; they will be picked up again as stalled jobs');
      await Promise.all(this.workers.map((worker) => worker.close(true)));
    }
    await this.subscriber?.quit().catch(() => undefined);
  }

  /** Polls Redis and Postgres with backoff; logs once per failure streak. */
  private async waitUntilReady(): Promise<void> {
    const redis = new IORedis(redisOptions(this.config.redisUrl));
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await redis.ping();
          await this.prisma.ping();
          return;
        } catch (error) {
          if (attempt === 1) this.logger.warn({ err: error }, 'waiting for Redis and Postgres');
          await new Promise((resolve) => setTimeout(resolve, Math.min(attempt * 250, 2_000)));
        }
      }
    } finally {
      redis.disconnect();
    }
  }

  private async listenForCancels(): Promise<void> {
    this.subscriber = new IORedis(redisOptions(this.config.redisUrl, true));
    this.subscriber.on('message', (_channel, jobId: string) => {
      for (const worker of this.workers) {
        if (worker.cancelJob(jobId, 'cancelled')) this.logger.info({ jobId }, 'cancelling job');
      }
    });
    await this.subscriber.subscribe(cancelChannel(this.config.queuePrefix));
  }
}
