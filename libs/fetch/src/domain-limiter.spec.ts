import { MemoryDocumentCache, CachedDocument } from './document-cache';
import { abortableSleep, LocalDomainLimiter, registrableDomain, resolveLimits } from './domain-limiter';
import { parseRetryAfter, retryDelayMs } from './retry-after';
import { Grant, runLimiterWorkload } from './testing/limiter-workload';

describe('registrableDomain', () => {
  it.each([
    ['docs.example.com', 'example.com'],
    ['API.Example.COM', 'example.com'],
    ['example.com', 'example.com'],
    ['www.bbc.co.uk', 'bbc.co.uk'],
    ['user.github.io', 'user.github.io'],
    ['a.b.user.github.io', 'user.github.io'],
    ['8.8.8.8', '8.8.8.8'],
    ['[2606:4700::1111]', '2606:4700::1111'],
    ['origin.test', 'origin.test'],
    ['intranet', 'intranet'],
  ])('%s → %s', (host, domain) => {
    expect(registrableDomain(host)).toBe(domain);
  });
});

describe('LocalDomainLimiter', () => {
  it('lets a burst through at once, then paces at the rate', async () => {
    const limiter = new LocalDomainLimiter({ ratePerSecond: 20, burst: 3, concurrency: 10 });
    const started = Date.now();
    const grants = await runLimiterWorkload(limiter, { domain: 'a.test', tasks: 1, perTask: 7, holdMs: 0 });
    const offsets = grants.map(([granted]) => granted - started);
    expect(offsets.slice(0, 3).every((offset) => offset < 30)).toBe(true);
    // The 4 after the burst come one every 50 ms.
    expect(offsets[6]).toBeGreaterThanOrEqual(190);
  });

  it('caps concurrency per domain, not across domains', async () => {
    const limiter = new LocalDomainLimiter({ ratePerSecond: 1_000, concurrency: 2 });
    const [a, b] = await Promise.all([
      runLimiterWorkload(limiter, { domain: 'a.test', tasks: 5, perTask: 2, holdMs: 20 }),
      runLimiterWorkload(limiter, { domain: 'b.test', tasks: 5, perTask: 2, holdMs: 20 }),
    ]);
    const overlap = (grants: Grant[]) => {
      let max = 0;
      for (const [start] of grants) max = Math.max(max, grants.filter(([s, e]) => s <= start && start < e).length);
      return max;
    };
    expect(overlap(a)).toBe(2);
    expect(overlap(b)).toBe(2);
    expect(overlap([...a, ...b])).toBeGreaterThan(2);
  });

  it('releases are idempotent', async () => {
    const limiter = new LocalDomainLimiter({ ratePerSecond: 1_000, concurrency: 1 });
    const release = await limiter.acquire('a.test');
    release();
    release();
    const one = await limiter.acquire('a.test');
    const second = limiter.acquire('a.test', AbortSignal.timeout(100));
    await expect(second).rejects.toMatchObject({ name: 'TimeoutError' });
    one();
  });

  it('a waiter that gives up does not take a slot later', async () => {
    const limiter = new LocalDomainLimiter({ ratePerSecond: 1_000, concurrency: 1 });
    const held = await limiter.acquire('a.test');
    const controller = new AbortController();
    const waiting = limiter.acquire('a.test', controller.signal);
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    held();
    const next = await limiter.acquire('a.test', AbortSignal.timeout(100));
    next();
  });

  it('validates its limits', () => {
    expect(() => resolveLimits({ ratePerSecond: 0 })).toThrow(/Invalid domain limits/);
    expect(() => resolveLimits({ concurrency: 1.5 })).toThrow(/Invalid domain limits/);
    expect(resolveLimits({ ratePerSecond: 0.5 })).toEqual({ ratePerSecond: 0.5, burst: 1, concurrency: 2 });
    expect(resolveLimits()).toEqual({ ratePerSecond: 5, burst: 5, concurrency: 2 });
  });
});

describe('abortableSleep', () => {
  it('rejects at once when already aborted, and on abort', async () => {
    await expect(abortableSleep(1_000, AbortSignal.abort(new Error('before')))).rejects.toThrow('before');
    const controller = new AbortController();
    const sleeping = abortableSleep(10_000, controller.signal);
    controller.abort(new Error('during'));
    await expect(sleeping).rejects.toThrow('during');
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['0', 0],
    ['1', 1_000],
    [' 120 ', 120_000],
    ['Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['Thursday, 01-Jan-26 00:00:30 GMT', 30_000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    [undefined, undefined],
    ['', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
  ])('%p → %p ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it('backs off exponentially, and never less than the server asked', () => {
    const half = () => 0.5;
    expect([0, 1, 2, 3].map((attempt) => retryDelayMs(undefined, attempt, 1_000, half))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(5_000, 0, 1_000, half)).toBe(5_000);
    expect(retryDelayMs(0, 2, 1_000, half)).toBe(4_000);
    expect(retryDelayMs(undefined, 0, 1_000, () => 0)).toBe(800);
    expect(retryDelayMs(undefined, 0, 1_000, () => 1)).toBe(1_200);
  });
});

describe('MemoryDocumentCache', () => {
  const doc = (url: string): CachedDocument => ({
    url,
    finalUrl: url,
    status: 200,
    contentType: 'text/plain',
    text: `text of ${url}`,
    bytes: 10,
    truncated: false,
    fetchedAt: new Date(0),
    expiresAt: new Date(1),
    sha256: 'x',
    redirects: [],
  });

  it('stores, replaces and returns copies', async () => {
    const cache = new MemoryDocumentCache();
    expect(await cache.get('http://a.test/')).toBeNull();
    await cache.put(doc('http://a.test/'));
    const got = await cache.get('http://a.test/');
    got!.redirects.push('mutated');
    expect((await cache.get('http://a.test/'))!.redirects).toEqual([]);
    await cache.put({ ...doc('http://a.test/'), text: 'new' });
    expect((await cache.get('http://a.test/'))!.text).toBe('new');
    expect(cache.size).toBe(1);
  });

  it('forgets the least recently written entries beyond its size', async () => {
    const cache = new MemoryDocumentCache(2);
    await cache.put(doc('http://1.test/'));
    await cache.put(doc('http://2.test/'));
    await cache.put(doc('http://1.test/'));
    await cache.put(doc('http://3.test/'));
    expect(await cache.get('http://2.test/')).toBeNull();
    expect(await cache.get('http://1.test/')).not.toBeNull();
    expect(await cache.get('http://3.test/')).not.toBeNull();
  });
});
