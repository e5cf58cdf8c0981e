import type { RedisOptions } from 'bullmq';

/** ioredis options from a redis:// URL. BullMQ workers need `maxRetriesPerRequest: null`. */
export function redisOptions(url: string, forWorker = false): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname && parsed.pathname !== '/' ? Number(parsed.pathname.slice(1)) : 0;
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 6379,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: Number.isInteger(db) ? db : 0,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: forWorker ? null : 3,
    // Keep reconnecting with a capped delay: Redis restarts must not kill a process.
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  };
}
