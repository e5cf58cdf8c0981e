import { QuarryError } from '@quarry/contracts/errors';

/**
 * Typed errors for failures that reach the fetcher as plain Node or undici errors (the guarded
 * connector and the fetcher throw QuarryErrors themselves). Permanent or transient follows one
 * question: could the same request succeed in a minute?
 */

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Connections refused, reset or closed early: the server or the path to it may recover. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** A certificate that does not verify will not verify in a minute either. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_OSSL_)/;

export function networkError(error: unknown, url: URL): QuarryError {
  if (error instanceof QuarryError) return error;
  const code = typeof (error as { code?: unknown })?.code === 'string' ? ((error as { code: string }).code) : undefined;
  const detail = error instanceof Error ? error.message : String(error);
  const host = url.host;
  if (code && TIMEOUT_CODES.has(code)) {
    return new QuarryError('url_timeout', `${host} did not answer in time (${code}).`, { permanent: false, cause: error });
  }
  if (code && CONNECTION_CODES.has(code)) {
    return new QuarryError('url_http_error', `The connection to ${host} failed: ${detail} (${code}).`, {
      permanent: false,
      suggestion: 'The server may be down; the fetch is retried automatically.',
      cause: error,
    });
  }
  if (code && TLS_CODE.test(code)) {
    return new QuarryError('url_http_error', `The TLS connection to ${host} failed: ${detail} (${code}).`, {
      permanent: true,
      suggestion: 'The site\'s certificate does not verify for this host name; Quarry does not skip verification.',
      cause: error,
    });
  }
  if (code?.startsWith('HPE_') || code === 'UND_ERR_INFO' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'UND_ERR_HEADERS_OVERFLOW') {
    return new QuarryError('url_http_error', `${host} sent a malformed HTTP response: ${detail}.`, { permanent: true, cause: error });
  }
  return new QuarryError('url_http_error', `Fetching from ${host} failed: ${detail}${code ? ` (${code})` : ''}.`, { permanent: false, cause: error });
}
