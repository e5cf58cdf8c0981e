import { isIPv4 } from 'node:net';
import { QuarryError } from '@quarry/contracts/errors';
import { AllowList, checkAddress, EMPTY_ALLOW_LIST } from './address-policy';

/**
 * The URL gate: everything that can be decided about a URL before any I/O (rule 1). Every hop of a
 * redirect chain goes through it again. Parsing is WHATWG URL parsing (Node's `URL`), which is what
 * undici uses too, so the host checked here is the host undici will connect to — and it already
 * turns `2130706433`, `0x7f.1`, `0177.0.0.1` and `127.1` into `127.0.0.1`.
 */

export const MAX_URL_LENGTH = 8192;
const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

/** Host names that are internal by definition, whatever they resolve to. */
const BLOCKED_HOSTS = new Map<string, string>([
  ['localhost', 'a loopback name'],
  ['metadata.google.internal', 'a cloud metadata name'],
]);

export interface GateOptions {
  allow?: AllowList;
  /** Prefix for messages, e.g. "Redirect target": says which hop failed. */
  what?: string;
  /**
   * The URL as it was written, when `input` is already resolved (a redirect's Location against
   * its base): an ambiguous numeric host is judged on its original spelling.
   */
  raw?: string;
}

/**
 * Validates `input` and returns a normalized copy: fragment dropped (it is never sent), host
 * lower-cased with one trailing dot removed. Throws `url_invalid` (or `url_blocked` for internal
 * hosts and refused IP literals), naming the rule that failed.
 */
export function gateUrl(input: string, options: GateOptions = {}): URL {
  const what = options.what ?? 'URL';
  // Messages quote the URL; they must not quote a password with it.
  const shown = clip(input.replace(/^([a-z][a-z0-9+.-]*:\/*)[^/?#@]*@/i, '$1***@'));
  if (input.length > MAX_URL_LENGTH) {
    throw invalid(`${what} is ${input.length.toLocaleString('en-US')} characters long; the limit is ${MAX_URL_LENGTH.toLocaleString('en-US')}.`, 'Shorten the URL (drop tracking parameters).');
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalid(`${what} "${shown}" is not a valid absolute URL.`, 'Give a full http:// or https:// URL with a valid host and a port between 1 and 65535.');
  }
  if (!ALLOWED_SCHEMES.has(url.protocol)) {
    throw invalid(`${what} "${shown}" uses the ${url.protocol} scheme; only http: and https: are fetched.`, 'Use an http:// or https:// URL.');
  }
  if (url.username !== '' || url.password !== '') {
    // `http://a.com@127.0.0.1/` lands here too: its host is 127.0.0.1, and "a.com" is a user name.
    throw invalid(`${what} "${clip(redactCredentials(url))}" (host ${url.hostname}) carries credentials (user:password@); Quarry never sends credentials in URLs.`, 'Remove the user name and password from the URL.');
  }
  if (url.href.length > MAX_URL_LENGTH) {
    throw invalid(`${what} is ${url.href.length.toLocaleString('en-US')} characters long once normalized; the limit is ${MAX_URL_LENGTH.toLocaleString('en-US')}.`, 'Shorten the URL.');
  }
  if (url.port !== '') {
    // An empty port is the scheme's default (80 or 443). Below 1024 live SSH, SMTP and friends.
    const port = Number(url.port);
    if (port !== 80 && port !== 443 && port < 1024) {
      throw invalid(`${what} "${shown}" uses port ${port}; only ports 80, 443 and 1024-65535 are fetched.`, 'Use the standard web port or a port at or above 1024.');
    }
  }

  const host = normalizeHost(url.hostname);
  if (host === '' || host.endsWith('.') || host.includes('..')) {
    throw invalid(`${what} "${shown}" has an empty label in its host name "${url.hostname}".`, 'Check the host name for stray dots.');
  }
  const blockedName = BLOCKED_HOSTS.get(host) ?? (host.endsWith('.localhost') ? 'a loopback name' : undefined);
  if (blockedName) {
    throw new QuarryError('url_blocked', `${what} "${shown}" points at ${host}, ${blockedName}; Quarry does not fetch internal hosts.`, {
      suggestion: 'Fetch a public URL. Operators can allow an internal address range with QUARRY_FETCH_ALLOW (e.g. 127.0.0.1/32) and use the IP address.',
    });
  }
  const literal = ipLiteral(host);
  if (literal !== undefined) {
    const verdict = checkAddress(literal, options.allow ?? EMPTY_ALLOW_LIST);
    if (!verdict.allowed) {
      throw blocked(`${what} "${shown}" points at ${verdict.address}, ${verdict.reason}.`);
    }
    // A public address, but spelled so that parsers disagree on it (OWASP): `0127.0.0.1` is
    // 87.0.0.1 to a WHATWG parser and 127.0.0.1 to inet_aton-style ones. Only plain dotted decimal.
    const written = writtenHost(options.raw ?? input);
    if (IPV4_DOTTED.test(host) && written !== undefined && normalizeHost(written) !== host) {
      throw new QuarryError('url_blocked', `${what} "${shown}" writes its numeric host as "${clip(written)}", which parsers read differently (here: ${host}); only plain dotted-decimal addresses are fetched.`, {
        permanent: true,
        suggestion: `Write the address as ${host} if that is the one you mean, or use the host name.`,
      });
    }
  }

  // `url` is ours (parsed above), so it is normalized in place.
  url.hash = '';
  if (url.hostname !== host) url.hostname = host;
  return url;
}

const IPV4_DOTTED = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** The host of an absolute (or scheme-relative) URL as written, before any parser normalised it. */
function writtenHost(written: string): string | undefined {
  const match = /^(?:[a-z][a-z0-9+.-]*:)?[\\/]{2}([^/?#\\]*)/i.exec(written.trim().replace(/[\t\n\r]/g, ''));
  if (!match) return undefined;
  const authority = match[1].slice(match[1].lastIndexOf('@') + 1);
  if (authority.startsWith('[')) return undefined; // IPv6: no octal or short forms
  return authority.replace(/:\d*$/, '');
}

/** Lower-cases and drops ONE trailing dot: `Example.COM.` and `example.com` are the same host. */
export function normalizeHost(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** The address when the host is an IP literal (`[::1]` → `::1`), else undefined. */
export function ipLiteral(hostname: string): string | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return isIPv4(hostname) ? hostname : undefined;
}

/** A URL without its user name and password, for messages. */
function redactCredentials(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function invalid(message: string, suggestion: string): QuarryError {
  return new QuarryError('url_invalid', message, { suggestion, permanent: true });
}

export function blocked(message: string): QuarryError {
  return new QuarryError('url_blocked', message, {
    permanent: true,
    suggestion: 'Quarry only fetches public addresses. Operators can allow an internal range explicitly with QUARRY_FETCH_ALLOW (CIDRs).',
  });
}
