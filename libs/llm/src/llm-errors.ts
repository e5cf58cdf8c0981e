import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { QuarryError } from '@quarry/contracts';
import { isRetryableStatus, retryAfterMs } from './retry-policy';

/**
 * What went wrong with one attempt, in the terms the retry loop needs: may it be retried, and did
 * the server say when. Everything that reaches a caller is a QuarryError: `llm_unavailable` when
 * no usable answer came back (transient unless it is a configuration problem), `llm_invalid_output`
 * when an answer came back but cannot be used.
 */
export interface AttemptFailure {
  retryable: boolean;
  /** What the server asked for with Retry-After / retry-after-ms. */
  retryAfterMs?: number;
  /** One line for the error message: "HTTP 503: overloaded", "connection refused". */
  reason: string;
  /** Set for failures that are final whatever the retry budget (a 401, a 404 model). */
  error?: QuarryError;
  cause: unknown;
}

/** Which endpoint a failure is of, for its messages: the chat model (QUARRY_LLM_*) or the embeddings model (QUARRY_EMBEDDINGS_*). */
export interface EndpointNames {
  /** "LLM", "embeddings endpoint". */
  service: string;
  /** Prefix of its settings' environment variables. */
  env: 'QUARRY_LLM' | 'QUARRY_EMBEDDINGS';
  /** What a 400 most likely means for it. */
  badRequest: string;
}

export const CHAT_ENDPOINT: EndpointNames = {
  service: 'LLM',
  env: 'QUARRY_LLM',
  badRequest: 'The server may not support JSON-schema structured output (response_format: json_schema); check its version and the model.',
};

export function describeFailure(error: unknown, baseUrl: string, model: string, names: EndpointNames = CHAT_ENDPOINT): AttemptFailure {
  if (error instanceof APIConnectionTimeoutError) {
    return { retryable: true, reason: 'the request timed out', cause: error };
  }
  if (error instanceof APIConnectionError) {
    return { retryable: true, reason: connectionReason(error), cause: error };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const detail = serverMessage(error);
    const reason = `HTTP ${status}${detail ? `: ${detail}` : ''}`;
    if (isRetryableStatus(status)) {
      return { retryable: true, retryAfterMs: retryAfterMs(error.headers), reason, cause: error };
    }
    // A configuration problem: permanent, so the queue does not retry a job that cannot succeed.
    return {
      retryable: false,
      reason,
      cause: error,
      error: new QuarryError('llm_unavailable', `The ${names.service} server at ${baseUrl} refused the request (${reason})`, {
        permanent: true,
        suggestion: suggestionFor(status, model, names),
        cause: error,
      }),
    };
  }
  // Anything else came out of the SDK or the runtime; treat it like a network failure.
  return { retryable: true, reason: error instanceof Error ? error.message : String(error), cause: error };
}

/** The transient `llm_unavailable` a caller sees once retries or time ran out. */
export function unavailable(message: string, cause: unknown, names: EndpointNames = CHAT_ENDPOINT): QuarryError {
  return new QuarryError('llm_unavailable', message, {
    permanent: false,
    suggestion: `Check that the ${names.service} server (${names.env}_BASE_URL) is running and reachable, or raise ${names.env}_TIMEOUT_MS.`,
    cause,
  });
}

function connectionReason(error: APIConnectionError): string {
  // The SDK wraps undici's TypeError("fetch failed"), whose own cause carries the socket code.
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${code})`;
    if (typeof code === 'string') return `connection failed (${code})`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return 'connection failed';
}

function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : '';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function suggestionFor(status: number, model: string, names: EndpointNames): string {
  if (status === 401 || status === 403) return `Check ${names.env}_API_KEY.`;
  if (status === 404) return `Check ${names.env}_BASE_URL (it usually ends in /v1) and that the server serves the model "${model}".`;
  return names.badRequest;
}
