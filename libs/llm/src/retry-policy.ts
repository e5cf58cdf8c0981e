/**
 * When to ask the LLM server again, and how long to wait first. Transient failures only: an
 * unreachable server, 408, 429 and 5xx. A 400/401/404 is a configuration problem (wrong model
 * name, bad key, a server without JSON-schema support) that asking again will not fix.
 *
 * (libs/fetch has the same Retry-After arithmetic; it is repeated here rather than imported so
 * that this library does not pull in the fetcher's agent, Redis limiter and extractors.)
 */

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Milliseconds the server asked for: OpenAI's `retry-after-ms` first (it is more precise), then
 * `Retry-After` as seconds or an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, nowMs: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The wait before retry number `attempt` (0 for the first): base·2^attempt with ±20% jitter, so
 * workers refused together do not return together, raised to what the server asked for.
 */
export function backoffMs(serverAskedMs: number | undefined, attempt: number, baseMs: number, random: () => number = Math.random): number {
  const backoff = baseMs * 2 ** attempt * (0.8 + 0.4 * random());
  return Math.round(Math.max(serverAskedMs ?? 0, backoff));
}
