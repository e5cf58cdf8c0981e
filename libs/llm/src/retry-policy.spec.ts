import { backoffMs, isRetryableStatus, retryAfterMs } from './retry-policy';

const headers = (values: Record<string, string>) => new Headers(values);

describe('retry policy', () => {
  it('retries only transient statuses', () => {
    expect([408, 429, 500, 502, 503].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
  });

  it('reads retry-after-ms, Retry-After seconds and dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(headers({}), now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('backs off exponentially with jitter, raised to what the server asked', () => {
    expect(backoffMs(undefined, 0, 100, () => 0.5)).toBe(100);
    expect(backoffMs(undefined, 2, 100, () => 0.5)).toBe(400);
    expect(backoffMs(undefined, 1, 100, () => 0)).toBe(160);
    expect(backoffMs(1000, 0, 100, () => 1)).toBe(1000);
  });
});
