/**
 * How long to wait before asking a server that answered 429 or 503 again (rule 6). The server's
 * `Retry-After` (seconds, or an HTTP date) is honoured; exponential backoff is the floor, so a
 * server that says "retry after 0" is not hammered. The fetcher stops once the total wait would
 * exceed its budget (60 s by default) and reports `url_rate_limited`.
 */

/** Milliseconds a `Retry-After` value asks for, or undefined when absent or unparseable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // IMF-fixdate ("Wed, 21 Oct 2015 07:28:00 GMT") and the obsolete forms Date.parse also reads.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The wait before retry number `attempt` (0 for the first retry): base·2^attempt with ±20%
 * jitter (so workers that were refused together do not come back together), raised to what the
 * server asked for.
 */
export function retryDelayMs(retryAfterMs: number | undefined, attempt: number, baseMs: number, random: () => number = Math.random): number {
  const backoff = baseMs * 2 ** attempt * (0.8 + 0.4 * random());
  return Math.round(Math.max(retryAfterMs ?? 0, backoff));
}
