import iconv from 'iconv-lite';
import type { DocumentFormat } from './content-types';

/**
 * Which character encoding a body is in, and its decoding to a string. The order is the HTML
 * standard's: a byte-order mark wins, then the Content-Type charset, then (for markup) a
 * `<meta charset>` / `<?xml encoding?>` in the first bytes, then UTF-8 (JSON's only encoding, RFC 8259).
 */

/**
 * Labels the WHATWG Encoding standard maps to another encoding. Browsers decode pages labelled
 * ISO-8859-1 or ASCII as windows-1252 (the 0x80-0x9F range holds “smart quotes” on the real web),
 * so Quarry does the same rather than produce C1 control characters.
 */
const WHATWG_ALIASES = new Map<string, string>([
  ['iso-8859-1', 'windows-1252'],
  ['iso8859-1', 'windows-1252'],
  ['iso_8859-1', 'windows-1252'],
  ['latin1', 'windows-1252'],
  ['l1', 'windows-1252'],
  ['cp819', 'windows-1252'],
  ['ascii', 'windows-1252'],
  ['us-ascii', 'windows-1252'],
  ['iso-8859-9', 'windows-1254'],
  ['latin5', 'windows-1254'],
  ['x-sjis', 'shift_jis'],
  ['gb2312', 'gbk'],
  ['x-gbk', 'gbk'],
  ['unicode-1-1-utf-8', 'utf-8'],
  ['utf8', 'utf-8'],
]);

const SNIFF_BYTES = 4096;

/** A supported encoding name for a label, or undefined when iconv-lite does not know it. */
export function canonicalCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const lower = label.trim().toLowerCase();
  const mapped = WHATWG_ALIASES.get(lower) ?? lower;
  return iconv.encodingExists(mapped) ? mapped : undefined;
}

export function bomCharset(body: Buffer): string | undefined {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** The charset a document declares about itself in its first bytes (HTML meta, XML declaration). */
export function declaredCharset(body: Buffer, format: DocumentFormat): string | undefined {
  if (format !== 'html' && format !== 'xml') return undefined;
  // The declaration is ASCII in every ASCII-compatible encoding, so latin1 reads it faithfully.
  const head = body.subarray(0, SNIFF_BYTES).toString('latin1');
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head);
  const meta = format === 'html' ? /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i.exec(head) : undefined;
  const label = (meta ?? xml)?.[1];
  const charset = canonicalCharset(label);
  // A page we could read as ASCII is not UTF-16, whatever its meta says (HTML standard).
  return charset?.startsWith('utf-16') ? 'utf-8' : charset;
}

export function detectCharset(body: Buffer, headerCharset: string | undefined, format: DocumentFormat): string {
  return bomCharset(body) ?? canonicalCharset(headerCharset) ?? declaredCharset(body, format) ?? 'utf-8';
}

/**
 * Decodes `body` (BOM stripped). A body cut at the size cap can end inside a multi-byte character;
 * the replacement character that produces is dropped rather than shown.
 */
export function decodeBody(body: Buffer, charset: string, truncated: boolean): string {
  // UTF-8, the common case, through Node's own decoder (a few times faster than iconv-lite's).
  const text = charset === 'utf-8' ? body.toString('utf8', bomCharset(body) === 'utf-8' ? 3 : 0) : iconv.decode(body, charset);
  return truncated ? text.replace(/\uFFFD+$/, '') : text;
}
