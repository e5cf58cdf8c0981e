import { createHash, randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { abortableSleep, DomainLimiter, DomainLimits, Release, resolveLimits } from './domain-limiter';

/**
 * The per-domain limiter shared by every worker process, in Redis. One Lua script takes a rate
 * token AND a concurrency slot atomically (or neither), so two processes can never both see "one
 * left" and both go. Time comes from the Redis server (`TIME`), not from the workers, so clock skew
 * between machines cannot inflate the rate.
 *
 * - Rate: a token bucket (hash `tokens`, `ts`), refilled at `ratePerSecond`, capped at `burst`.
 * - Concurrency: a sorted set of lease ids scored by their expiry. A holder renews its lease
 *   while it works; a crashed process stops renewing and its slot frees itself after `leaseMs`.
 *
 * Keys: `<prefix>:fetch:{<domain>}:rate` and `…:slots` (the braces keep a domain's keys in one
 * Redis Cluster slot). Both expire on their own when the domain goes quiet.
 */

export const ACQUIRE_SCRIPT = `
local slots, bucket = KEYS[1], KEYS[2]
local rate, burst, limit, lease_ms, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
if redis.call('ZCARD', slots) >= limit then
  return {0, -1}
end
local state = redis.call('HMGET', bucket, 'tokens', 'ts')
local tokens = tonumber(state[1]) or burst
local ts = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
if tokens < 1 then
  return {0, math.ceil((1 - tokens) * 1000 / rate)}
end
redis.call('HSET', bucket, 'tokens', tostring(tokens - 1), 'ts', tostring(now))
redis.call('PEXPIRE', bucket, math.ceil(burst * 1000 / rate) + 1000)
redis.call('ZADD', slots, now + lease_ms, id)
redis.call('PEXPIRE', slots, lease_ms + 1000)
return {1, 0}
`;

export const RENEW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) + 1000)
  return 1
end
return 0
`;

export interface RedisDomainLimiterOptions extends Partial<DomainLimits> {
  /** How long a slot outlives a process that stopped renewing it. */
  leaseMs?: number;
  /** How often a waiter asks again while every slot is taken. */
  pollMs?: number;
}

export class RedisDomainLimiter implements DomainLimiter {
  private readonly limits: DomainLimits;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    options: RedisDomainLimiterOptions = {},
  ) {
    this.limits = resolveLimits(options);
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 25;
  }

  keys(domain: string): { slots: string; rate: string } {
    return { slots: `${this.prefix}:fetch:{${domain}}:slots`, rate: `${this.prefix}:fetch:{${domain}}:rate` };
  }

  async acquire(domain: string, signal?: AbortSignal): Promise<Release> {
    const keys = this.keys(domain);
    const id = randomUUID();
    for (;;) {
      signal?.throwIfAborted();
      const [ok, waitMs] = (await this.run(ACQUIRE_SCRIPT, [keys.slots, keys.rate], [
        this.limits.ratePerSecond,
        this.limits.burst,
        this.limits.concurrency,
        this.leaseMs,
        id,
      ])) as [number, number];
      if (ok === 1) return this.holdLease(keys.slots, id);
      // -1: every slot is taken; slots free up at unknown times, so poll. Otherwise the script said
      // when a token is due. Both waits get jitter: waiters told the same time would ask in lockstep,
      // and the process with the shortest round trip would win every token.
      const wait = waitMs < 0 ? this.pollMs * (0.5 + Math.random()) : waitMs + Math.random() * this.pollMs;
      await abortableSleep(wait, signal);
    }
  }

  /** Keeps the lease alive while the caller works; the returned release ends it. */
  private holdLease(slotsKey: string, id: string): Release {
    const renew = setInterval(() => {
      this.run(RENEW_SCRIPT, [slotsKey], [this.leaseMs, id]).catch(() => undefined);
    }, Math.max(100, Math.floor(this.leaseMs / 3)));
    renew.unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(renew);
      // Best effort: if Redis is away, the lease expires by itself.
      this.redis.zrem(slotsKey, id).catch(() => undefined);
    };
  }

  /** EVALSHA, falling back to EVAL once when Redis does not have the script cached yet. */
  private async run(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    const sha = scriptSha(script);
    try {
      return await this.redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return this.redis.eval(script, keys.length, ...keys, ...args);
    }
  }
}

const shas = new Map<string, string>();
function scriptSha(script: string): string {
  let sha = shas.get(script);
  if (!sha) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  return sha;
}
