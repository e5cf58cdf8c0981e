/**
 * Every failure a user can cause is data: a stable `kind`, a human message and, when there is
 * one, a suggestion that says how to fix it. The kind is set where the error happens.
 */
export const ERROR_KINDS = [
  // request shape
  'input_invalid',
  'body_too_large',
  'body_encoding_invalid',
  'body_encoding_unsupported',
  'headers_too_large',
  'request_timeout',
  'batch_too_large',
  'batch_rejected',
  'kind_unknown',
  'kind_not_available',
  'not_found',
  'job_not_found',
  'job_not_cancellable',
  'job_not_retryable',
  'cursor_invalid',
  'cursor_stale',
  'toolset_unknown',
  'tool_not_enabled',
  // access
  'unauthorized',
  'forbidden',
  // workspace and files
  'root_not_found',
  'root_not_directory',
  'path_outside_root',
  'path_not_absolute',
  'file_not_found',
  'file_too_large',
  'file_binary',
  'file_secret',
  'file_special',
  'range_invalid',
  // mentions
  'mention_invalid',
  // urls
  'url_invalid',
  'url_blocked',
  'url_rate_limited',
  'url_http_error',
  'url_timeout',
  'content_type_refused',
  'dns_failed',
  'url_too_large',
  'too_many_redirects',
  // git repositories
  'repo_not_found',
  'ref_not_found',
  'repo_too_large',
  'repo_unavailable',
  'scan_shard_failed',
  // search
  'regex_invalid',
  'pattern_invalid',
  'search_timeout',
  // code index
  'symbol_invalid',
  'symbol_not_found',
  'style_unknown',
  'budget_invalid',
  // retrieval
  'task_empty',
  'task_too_large',
  // navigation
  'depth_invalid',
  'location_invalid',
  'diff_invalid',
  'diff_not_applicable',
  // tool plans
  'tool_unknown',
  'approval_required',
  // llm
  'llm_unavailable',
  'llm_invalid_output',
  // job lifecycle
  'job_cancelled',
  'job_stalled',
  'job_lost',
  'unavailable',
  'internal',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export type QuarryErrorBody = { kind: ErrorKind | (string & {}); message: string; suggestion?: string };

/** HTTP status for each kind the gateway can return; anything unlisted is a 400. */
const HTTP_STATUS: Partial<Record<ErrorKind, number>> = {
  unauthorized: 401,
  forbidden: 403,
  path_outside_root: 403,
  not_found: 404,
  job_not_found: 404,
  root_not_found: 404,
  file_not_found: 404,
  symbol_not_found: 404,
  repo_not_found: 404,
  ref_not_found: 404,
  repo_too_large: 413,
  diff_not_applicable: 409,
  cursor_stale: 409,
  repo_unavailable: 503,
  job_not_cancellable: 409,
  job_not_retryable: 409,
  body_too_large: 413,
  task_too_large: 413,
  body_encoding_unsupported: 415,
  headers_too_large: 431,
  request_timeout: 408,
  batch_too_large: 413,
  kind_not_available: 422,
  root_not_directory: 422,
  url_rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

export function httpStatusFor(kind: string): number {
  return HTTP_STATUS[kind as ErrorKind] ?? 400;
}

/**
 * A failure with a typed kind. `permanent` failures are not retried by the queue (bad input,
 * a path outside the root); transient ones are, with backoff.
 */
export class QuarryError extends Error {
  readonly kind: ErrorKind;
  readonly suggestion?: string;
  readonly permanent: boolean;

  constructor(kind: ErrorKind, message: string, options: { suggestion?: string; permanent?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'QuarryError';
    this.kind = kind;
    this.suggestion = options.suggestion;
    this.permanent = options.permanent ?? true;
  }

  toBody(): QuarryErrorBody {
    return this.suggestion === undefined
      ? { kind: this.kind, message: this.message }
      : { kind: this.kind, message: this.message, suggestion: this.suggestion };
  }
}

export function isQuarryError(error: unknown): error is QuarryError {
  return error instanceof QuarryError;
}
