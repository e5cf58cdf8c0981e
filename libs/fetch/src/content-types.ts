/**
 * The content-type allowlist (rule 5): Quarry turns documents into text for a model, so it only
 * accepts types it can turn into readable text. Everything else (images, PDFs, archives,
 * executables, octet streams, a missing type) is refused before the body is read.
 */

export type DocumentFormat = 'html' | 'json' | 'xml' | 'text' | 'markdown';

export interface ContentType {
  /** `type/subtype`, lower-cased, parameters dropped. */
  mediaType: string;
  /** The `charset` parameter, lower-cased, if any. */
  charset?: string;
}

const FORMATS = new Map<string, DocumentFormat>([
  ['text/html', 'html'],
  ['application/xhtml+xml', 'html'],
  ['application/json', 'json'],
  ['text/json', 'json'],
  ['application/xml', 'xml'],
  ['text/xml', 'xml'],
  ['text/plain', 'text'],
  ['text/markdown', 'markdown'],
  ['text/x-markdown', 'markdown'],
]);

/** Parses a Content-Type header value; undefined when there is none or it has no `type/subtype`. */
export function parseContentType(value: string | undefined): ContentType | undefined {
  if (!value) return undefined;
  const [type, ...params] = value.split(';');
  const mediaType = type.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mediaType)) return undefined;
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1) continue;
    if (param.slice(0, eq).trim().toLowerCase() === 'charset') {
      charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase() || undefined;
    }
  }
  return { mediaType, charset };
}

/**
 * The format of an accepted type, or undefined when it is refused. Structured-syntax suffixes
 * count (`application/ld+json`, `application/atom+xml`), except under `image/` (`image/svg+xml`
 * is a picture, not a document).
 */
export function documentFormat(mediaType: string): DocumentFormat | undefined {
  const known = FORMATS.get(mediaType);
  if (known) return known;
  if (mediaType.startsWith('application/') || mediaType.startsWith('text/')) {
    if (mediaType.endsWith('+json')) return 'json';
    if (mediaType.endsWith('+xml')) return 'xml';
  }
  return undefined;
}

export const ACCEPT_HEADER = 'text/html, application/xhtml+xml, application/json, text/markdown, text/plain, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1';
