import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { QuarryError } from '@quarry/contracts';
import { describeFailure, unavailable, type AttemptFailure, type EndpointNames } from './llm-errors';
import { backoffMs } from './retry-policy';

/** What the policy needs of an endpoint's settings. */
export interface CallPolicySettings {
  baseUrl: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
}

/**
 * The `openai` package's client for one endpoint, doing the HTTP only: retries and timeouts are
 * the policy's (one budget, Retry-After honoured within it), not the SDK's.
 */
export function openAiSdk(settings: { baseUrl: string; apiKey?: string; timeoutMs: number }): OpenAI {
  const { baseUrl, apiKey, timeoutMs } = settings;
  return new OpenAI({
    baseURL: baseUrl,
    // The SDK insists on a credential; without a key, a placeholder satisfies it and the
    // Authorization header is then removed, so local servers see no bogus bearer token.
    apiKey: apiKey ?? 'unused',
    defaultHeaders: apiKey ? undefined : { Authorization: null },
    // Explicit so that OPENAI_* variables in the environment never leak into Quarry's requests.
    organization: null,
    project: null,
    adminAPIKey: null,
    maxRetries: 0,
    timeout: timeoutMs,
  });
}

/** Marks an abort caused by our own deadline, as opposed to the caller's signal. */
class DeadlineReached extends Error {}

/** One HTTP request of a call: aborted through `signal`; `timeout` is a backstop for the SDK, later than the deadline. */
export type PolicedRequest<R> = (options: { signal: AbortSignal; timeout: number }) => Promise<R>;

/**
 * One call to an OpenAI-compatible server under Quarry's policy: one deadline for the whole call
 * (retries and their waits included), retries only for transient failures (unreachable, 408,
 * 429, 5xx, Retry-After honoured within the budget), and every failure a typed QuarryError
 * (`llm_unavailable`), or whatever `read` throws for an answer that came back unusable. A
 * caller's abort rejects with `signal.reason`, untouched.
 */
export async function callWithPolicy<R, T>(
  settings: CallPolicySettings,
  names: EndpointNames,
  request: PolicedRequest<R>,
  read: (response: R, attempts: number) => T,
  signal?: AbortSignal,
): Promise<T> {
  signal?.throwIfAborted();
  const { timeoutMs, maxRetries, retryBaseMs, baseUrl } = settings;
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt += 1) {
    let failure: AttemptFailure;
    try {
      return read(await send(request, deadline, signal), attempt + 1);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof QuarryError) throw error;
      if (error instanceof DeadlineReached) {
        throw unavailable(`The ${names.service} at ${baseUrl} did not answer within ${timeoutMs} ms (${attempt + 1} attempt${attempt ? 's' : ''})`, error, names);
      }
      failure = describeFailure(error, settings.baseUrl, settings.model, names);
    }
    if (failure.error) throw failure.error;
    const tried = `${attempt + 1} attempt${attempt ? 's' : ''}`;
    if (!failure.retryable || attempt >= maxRetries) {
      throw unavailable(`The ${names.service} at ${baseUrl} is unavailable after ${tried}: ${failure.reason}`, failure.cause, names);
    }
    const wait = backoffMs(failure.retryAfterMs, attempt, retryBaseMs);
    // Waiting past the deadline only to give up then would waste the caller's time: give up now.
    if (Date.now() + wait >= deadline) {
      throw unavailable(`The ${names.service} at ${baseUrl} is unavailable after ${tried}: ${failure.reason}; the next retry (in ${wait} ms) would pass the ${timeoutMs} ms budget`, failure.cause, names);
    }
    try {
      await sleep(wait, undefined, { signal });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }
}

/** One HTTP request, aborted by the caller's signal or the call's deadline, whichever comes first. */
async function send<R>(request: PolicedRequest<R>, deadline: number, signal: AbortSignal | undefined): Promise<R> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new DeadlineReached();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineReached()), remaining);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // Our timer is the deadline (it also covers a body that stalls after the headers); the SDK's
    // own timeout is only a backstop, set later so that the two never race.
    return await request({ signal: controller.signal, timeout: remaining + 1_000 });
  } catch (error) {
    if (signal?.aborted) throw error;
    if (controller.signal.reason instanceof DeadlineReached || Date.now() >= deadline) throw new DeadlineReached();
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
