import { getDomain } from 'tldts';

/**
 * Per-domain politeness (rule 6): a request rate and a concurrency cap per registrable domain,
 * so a prompt full of links to one site, or a thousand fetch jobs for one site, does not hammer
 * it. The fetcher holds a slot from before the request until the body is read.
 *
 * Two implementations: `LocalDomainLimiter` (one process: the CLI, tests) and `RedisDomainLimiter`
 * (all worker processes share the same buckets).
 */

/** Gives the slot back. Idempotent. */
export type Release = () => void;

export interface DomainLimiter {
  /**
   * Resolves once a request to `domain` may start (a rate token taken and a concurrency slot held);
   * rejects with `signal.reason` if the signal aborts first.
   */
  acquire(domain: string, signal?: AbortSignal): Promise<Release>;
}

export interface DomainLimits {
  /** Sustained requests per second per domain. */
  ratePerSecond: number;
  /** Requests that may start back-to-back after a quiet period (token bucket size). */
  burst: number;
  /** Requests in flight per domain. */
  concurrency: number;
}

export const DEFAULT_DOMAIN_LIMITS: DomainLimits = { ratePerSecond: 5, burst: 5, concurrency: 2 };

export function resolveLimits(limits: Partial<DomainLimits> = {}): DomainLimits {
  const ratePerSecond = limits.ratePerSecond ?? DEFAULT_DOMAIN_LIMITS.ratePerSecond;
  const resolved = {
    ratePerSecond,
    burst: limits.burst ?? Math.max(1, Math.ceil(ratePerSecond)),
    concurrency: limits.concurrency ?? DEFAULT_DOMAIN_LIMITS.concurrency,
  };
  if (!(resolved.ratePerSecond > 0) || !(resolved.burst >= 1) || !Number.isInteger(resolved.concurrency) || resolved.concurrency < 1) {
    throw new Error(`Invalid domain limits ${JSON.stringify(limits)}: ratePerSecond > 0, burst ≥ 1 and an integer concurrency ≥ 1 are required.`);
  }
  return resolved;
}

/**
 * The key politeness is counted under: the registrable domain (eTLD+1, private suffixes
 * included, so `docs.example.com` and `api.example.com` share one budget while two
 * `*.github.io` sites do not); the host itself for IP addresses and names with no public suffix.
 */
export function registrableDomain(hostname: string): string {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface LocalState {
  tokens: number;
  refilledAt: number;
  active: number;
  waiters: Array<() => void>;
}

/** In-memory token bucket + semaphore per domain, for one process. */
export class LocalDomainLimiter implements DomainLimiter {
  private readonly limits: DomainLimits;
  private readonly domains = new Map<string, LocalState>();

  constructor(
    limits: Partial<DomainLimits> = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.limits = resolveLimits(limits);
  }

  async acquire(domain: string, signal?: AbortSignal): Promise<Release> {
    const state = this.state(domain);
    for (;;) {
      signal?.throwIfAborted();
      if (state.active >= this.limits.concurrency) {
        await this.waitForSlot(state, signal);
        continue;
      }
      const now = this.now();
      state.tokens = Math.min(this.limits.burst, state.tokens + ((now - state.refilledAt) * this.limits.ratePerSecond) / 1000);
      state.refilledAt = now;
      if (state.tokens >= 1) {
        state.tokens -= 1;
        state.active += 1;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          state.active -= 1;
          state.waiters.shift()?.();
        };
      }
      await abortableSleep(((1 - state.tokens) * 1000) / this.limits.ratePerSecond, signal);
    }
  }

  private state(domain: string): LocalState {
    let state = this.domains.get(domain);
    if (!state) {
      if (this.domains.size >= 10_000) this.prune();
      state = { tokens: this.limits.burst, refilledAt: this.now(), active: 0, waiters: [] };
      this.domains.set(domain, state);
    }
    return state;
  }

  /** Idle domains whose bucket has refilled carry no information; forget them. */
  private prune(): void {
    const full = (this.limits.burst * 1000) / this.limits.ratePerSecond;
    for (const [domain, state] of this.domains) {
      if (state.active === 0 && state.waiters.length === 0 && this.now() - state.refilledAt > full) this.domains.delete(domain);
    }
  }

  private waitForSlot(state: LocalState, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = state.waiters.indexOf(wake);
        if (index !== -1) state.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      state.waiters.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
