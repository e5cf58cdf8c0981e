import type { Request } from 'express';
import type { QuarryErrorBody } from '@quarry/contracts';

type Described = { status: number; body: QuarryErrorBody };

/** zlib's and brotli's own codes, as body-parser passes their errors on (with status 400 and no `type`). */
const DECOMPRESSION_CODE = /^(Z_[A-Z_]+|ERR__ERROR_FORMAT_[A-Z0-9_]+|ERR_PADDING_[0-9]+|ERR_BROTLI_[A-Z_]+)$/;

/**
 * Errors Express's body parser raises before any controller runs: the body's framing (length,
 * abort), its Content-Encoding (unsupported, or not the data it claims), its charset, its JSON.
 * Each is the client's doing, so each is a typed 4xx; an http-errors error the parser marks
 * `expose` (a client error) that is not listed here still leaves as a 4xx, never a 500.
 */
export function describeBodyError(error: unknown, request: Request | undefined): Described | undefined {
  const candidate = error as { type?: unknown; status?: unknown; expose?: unknown; code?: unknown; message?: unknown } | null;
  if (!candidate || typeof candidate !== 'object') return undefined;
  const encoding = String(request?.headers['content-encoding'] ?? 'identity');
  const charset = /charset=([^;]+)/i.exec(String(request?.headers['content-type'] ?? ''))?.[1]?.trim();
  if (typeof candidate.code === 'string' && DECOMPRESSION_CODE.test(candidate.code)) {
    return {
      status: 400,
      body: {
        kind: 'body_encoding_invalid',
        message: `The body is sent with Content-Encoding: ${encoding} but is not valid ${encoding} data.`,
        suggestion: 'Compress the body with the encoding the header names, or send it uncompressed without Content-Encoding.',
      },
    };
  }
  switch (candidate.type) {
    case 'entity.too.large':
      return { status: 413, body: { kind: 'body_too_large', message: 'The request body is larger than this server accepts.', suggestion: 'Send a smaller body, or raise QUARRY_MAX_BODY_BYTES.' } };
    case 'entity.parse.failed':
      return { status: 400, body: { kind: 'input_invalid', message: 'The request body is not valid JSON.', suggestion: 'Send a JSON object with content-type application/json.' } };
    case 'encoding.unsupported':
      return {
        status: 415,
        body: { kind: 'body_encoding_unsupported', message: `Content-Encoding "${encoding}" is not supported.`, suggestion: 'Send the body uncompressed, or compressed once with gzip, deflate or br.' },
      };
    case 'charset.unsupported':
      return {
        status: 415,
        body: { kind: 'body_encoding_unsupported', message: `The body's charset "${charset ?? '?'}" is not supported.`, suggestion: 'Send UTF-8 JSON (content-type: application/json; charset=utf-8).' },
      };
    case 'request.size.invalid':
    case 'request.aborted':
      return { status: 400, body: { kind: 'input_invalid', message: 'The request body ended before the length its headers announced.', suggestion: 'Send a Content-Length that matches the body.' } };
  }
  if (candidate.expose === true && typeof candidate.status === 'number' && candidate.status >= 400 && candidate.status < 500) {
    return { status: candidate.status, body: { kind: 'input_invalid', message: `The request body could not be read: ${String(candidate.message)}.` } };
  }
  return undefined;
}
