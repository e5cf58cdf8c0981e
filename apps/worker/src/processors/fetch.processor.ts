import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import IORedis from 'ioredis';
import type { JobInput, JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { FetchedDocumentRepository } from '@quarry/db';
import { RedisDomainLimiter, SafeFetcher } from '@quarry/fetch';
import { redisOptions } from '@quarry/queue';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';

/**
 * Fetches a URL through the SSRF-guarded fetcher. One fetcher per worker process keeps its
 * connection pool; the cache is Postgres and the per-domain limits live in Redis, so every worker
 * on every machine shares them.
 */
@Injectable()
@HandlesJob('fetch')
export class FetchProcessor implements JobHandler<'fetch'>, OnApplicationShutdown {
  private readonly redis: IORedis;
  private readonly fetcher: SafeFetcher;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig, documents: FetchedDocumentRepository) {
    this.redis = new IORedis(redisOptions(config.redisUrl));
    this.fetcher = new SafeFetcher({
      allow: config.fetch.allow,
      maxBytes: config.fetch.maxBytes,
      timeoutMs: config.fetch.timeoutMs,
      cacheTtlMs: config.fetch.cacheTtlMs,
      cache: documents,
      limiter: new RedisDomainLimiter(this.redis, config.queuePrefix, {
        ratePerSecond: config.fetch.ratePerSecond,
        concurrency: config.fetch.domainConcurrency,
      }),
    });
  }

  async run(input: JobInput<'fetch'>, context: JobContext): Promise<JobResult<'fetch'>> {
    context.progress({ stage: 'fetching', done: 0, total: 1, message: input.url });
    const result = await this.fetcher.fetch(input.url, { force: input.force, signal: context.signal });
    context.progress({ stage: 'fetched', done: 1, total: 1, message: result.fromCache ? 'from cache' : `${result.bytes} bytes` });
    return result;
  }

  /** After the worker drained its jobs (beforeApplicationShutdown), not before. */
  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
