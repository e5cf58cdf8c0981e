import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { JOB_KINDS, JobKind } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { QueueLookup, QueuedJobData, redisOptions } from '@quarry/queue';

/**
 * The gateway's producers: one BullMQ queue per job kind, looked up by kind. Plain bullmq rather
 * than @nestjs/bullmq: its release for bullmq 6 is ESM-only, which Nest 11 (CommonJS) and jest
 * on Node 20 cannot load, and a queue per kind is all the gateway needs.
 */
@Injectable()
export class QueueRegistry implements QueueLookup, OnApplicationShutdown {
  private readonly queues = new Map<JobKind, Queue<QueuedJobData>>();

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig) {
    // Producers must not hang a request while Redis is away: fail fast, the reconciler re-adds.
    const connection = { ...redisOptions(config.redisUrl), enableOfflineQueue: false };
    for (const kind of JOB_KINDS) this.queues.set(kind, new Queue<QueuedJobData>(kind, { connection, prefix: config.queuePrefix }));
  }

  queueFor(kind: JobKind): Queue<QueuedJobData> {
    const queue = this.queues.get(kind);
    if (!queue) throw new Error(`no queue for ${kind}`);
    return queue;
  }

  all(): Array<Queue<QueuedJobData>> {
    return [...this.queues.values()];
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.all().map((queue) => queue.close()));
  }
}

@Global()
@Module({ providers: [QueueRegistry], exports: [QueueRegistry] })
export class QueuesModule {}
