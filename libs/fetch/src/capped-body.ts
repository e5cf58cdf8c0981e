import { Readable, Transform, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { QuarryError } from '@quarry/contracts/errors';

/**
 * Reads a response body, undoing its Content-Encoding, and keeps at most `maxBytes` DECODED bytes
 * (rule 5). undici's `maxResponseSize` counts the compressed bytes, so a 10 KB gzip of 10 MB of
 * zeros would pass it; here the cap is on what the decoder produces.
 *
 * A gzip bomb cannot allocate past the cap: decoded chunks (16 KiB each) are counted as zlib
 * produces them, and the moment the cap is reached the decoder is destroyed, which stops it in the
 * middle of its input; the rest of the bomb is never inflated and nothing past the cap is kept.
 */

export interface CappedBody {
  body: Buffer;
  /** Decoded bytes kept (≤ maxBytes). */
  bytes: number;
  /** True when the decoded body was longer than the cap and was cut. */
  truncated: boolean;
}

/** Content codings Quarry decodes (and advertises in Accept-Encoding). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * The codings listed in a Content-Encoding header, in the order they were applied. Throws
 * `content_type_refused` for one Quarry cannot decode (zstd, compress…).
 */
export function parseContentEncoding(header: string | undefined): string[] {
  if (!header) return [];
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > 3) {
    throw new QuarryError('content_type_refused', `The response is encoded ${codings.length} times (${header}); Quarry decodes at most 3 layers.`, { permanent: true });
  }
  for (const coding of codings) {
    if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(coding)) {
      throw new QuarryError('content_type_refused', `The response uses the content encoding "${coding}", which Quarry does not decode (gzip, deflate and br are supported).`, {
        permanent: true,
        suggestion: 'Ask the server for an uncompressed or gzip-compressed response.',
      });
    }
  }
  return codings;
}

// A body cut short (the connection ended early, or a Content-Length that lied) still yields what
// was decodable instead of an "unexpected end of file" error, as browsers do.
function decoderFor(coding: string): Transform {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'deflate':
      return zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    default:
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  }
}

/**
 * Reads `source` through the decoders for `codings` (applied in reverse), keeping ≤ `maxBytes`.
 * Errors from the source (abort, socket closed) propagate as they are; decoding errors become
 * `url_http_error` (a corrupt body is not going to improve on retry).
 *
 * 'data' events rather than `for await`: the async iterator costs ~10 µs per body, a few percent
 * of a local request. Flowing mode keeps the bomb guarantee: each decoded chunk is handled as it
 * is produced, and reaching the cap destroys the decoder, which stops inflating at once.
 */
export function readCappedBody(source: Readable, codings: readonly string[], maxBytes: number): Promise<CappedBody> {
  const decoders = [...codings].reverse().map(decoderFor);
  // A decoder failing on its own is a corrupt body; a decoder destroyed because the source failed
  // (abort, deadline, socket closed) is not, and the source's error is reported instead.
  let decodeError: Error | undefined;
  for (const decoder of decoders) {
    decoder.once('error', (error) => {
      if (!source.errored) decodeError ??= error;
    });
  }
  const decoded: Readable = decoders.length === 0 ? source : (pipeline([source, ...decoders], () => undefined) as unknown as Readable);

  return new Promise<CappedBody>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const settle = (error: unknown, truncated: boolean) => {
      if (settled) return;
      settled = true;
      decoded.off('data', onData);
      // Cutting off the source makes undici close the connection instead of reading the rest
      // of an oversized body; the error listeners swallow the "aborted" that destroying emits.
      for (const decoder of decoders) decoder.on('error', () => undefined).destroy();
      if (!source.destroyed) source.on('error', () => undefined).destroy();
      if (error === undefined) {
        resolve({ body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes), bytes, truncated });
      } else if (decodeError) {
        reject(new QuarryError('url_http_error', `The response body could not be decoded (${codings.join(', ')}): ${decodeError.message}.`, { permanent: true, cause: decodeError }));
      } else {
        reject(error);
      }
    };
    const onData = (chunk: Buffer) => {
      if (bytes + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - bytes));
        bytes = maxBytes;
        settle(undefined, true);
        return;
      }
      chunks.push(chunk);
      bytes += chunk.length;
    };
    decoded.on('data', onData);
    decoded.once('end', () => settle(undefined, false));
    decoded.once('error', (error) => settle(error, false));
    // After 'end' this is a no-op; the error is only built when it is needed (stack traces cost).
    decoded.once('close', () => settled || settle(new Error('The response body ended before it was complete.'), false));
  });
}
