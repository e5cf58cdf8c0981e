import { Global, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { BullModule, getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { JOB_KINDS, JobKind } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { QueueLookup, QueuedJobData, redisOptions } from '@quarry/queue';

/** The gateway's producers: one BullMQ queue per job kind, looked up by kind. */
@Injectable()
export class QueueRegistry implements QueueLookup, OnModuleInit {
  private readonly queues = new Map<JobKind, Queue<QueuedJobData>>();

  constructor(private readonly moduleRef: ModuleRef) {}

  /** Resolved after construction: the queue providers are async factories. */
  onModuleInit(): void {
    for (const kind of JOB_KINDS) this.queues.set(kind, this.moduleRef.get(getQueueToken(kind), { strict: false }));
  }

  queueFor(kind: JobKind): Queue<QueuedJobData> {
    const queue = this.queues.get(kind);
    if (!queue) throw new Error(`no queue for ${kind}`);
    return queue;
  }

  all(): Array<Queue<QueuedJobData>> {
    return [...this.queues.values()];
  }
}

@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [QUARRY_CONFIG],
      useFactory: (config: QuarryConfig) => ({
        // Producers must not hang a request while Redis is away: fail fast, the reconciler re-adds.
        connection: { ...redisOptions(config.redisUrl), enableOfflineQueue: false },
        prefix: config.queuePrefix,
      }),
    }),
    BullModule.registerQueue(...JOB_KINDS.map((name) => ({ name }))),
  ],
  providers: [QueueRegistry],
  exports: [QueueRegistry],
})
export class QueuesModule {}
