import { promises as dns } from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import { QuarryError } from '@quarry/contracts/errors';
import { AllowList, checkAddress, EMPTY_ALLOW_LIST, sameAddress } from './address-policy';
import { blocked } from './url-gate';

/**
 * The guarded connect: the only way Quarry opens a connection to a user-supplied host (rule 3;
 * the undici agent of guarded-agent.ts and the git proxy both go through it). For every connection it
 *
 *   1. resolves the name itself (IP literals are not resolved: undici never calls a `lookup` hook
 *      for them, which is why the check lives here and not in a lookup hook),
 *   2. refuses the connection if ANY answer is refused by the address policy (a name that
 *      answers one public and one loopback address is an attack, not a misconfiguration),
 *   3. dials the address it just checked, not the name (DNS pinning: a second, rebound answer is
 *      never asked for), with TLS `servername` set to the host name so certificates still verify,
 *   4. re-checks `socket.remoteAddress` before the caller sees the socket.
 *
 * No undici here: a shard thread that only reads a directory loads this module's importers
 * without paying ~100 ms for undici.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → all addresses, in resolver order. Injected in tests; the default asks the system resolver. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface DialTarget {
  /** The checked IP address to connect to. Never a name. */
  address: string;
  family: 4 | 6;
  port: number;
  protocol: 'http:' | 'https:';
  /** The URL's host (a name, or the IP literal). */
  hostname: string;
  /** TLS SNI and certificate name: the host name; undefined for IP literals. */
  servername?: string;
}

/** Opens a connected socket (TLS handshake done for https) to exactly `target.address`. */
export type Dialer = (target: DialTarget) => Promise<net.Socket>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface NetDialerOptions {
  /** Extra TLS options (e.g. `ca` for a private CA in tests). `host`/`servername` are always ours. */
  tls?: Omit<tls.ConnectionOptions, 'host' | 'port' | 'servername' | 'socket' | 'path'>;
}

/**
 * The production dialer: `net.connect` / `tls.connect` to the checked IP. It refuses anything that
 * is not an IP address, so a name can never slip through to a DNS lookup inside `net.connect`.
 */
export function createNetDialer(options: NetDialerOptions = {}): Dialer {
  return (target) =>
    new Promise<net.Socket>((resolve, reject) => {
      if (net.isIP(target.address) === 0) {
        reject(new Error(`refusing to dial "${target.address}": not an IP address`));
        return;
      }
      const socket =
        target.protocol === 'https:'
          ? tls.connect({
              ...options.tls,
              host: target.address,
              port: target.port,
              servername: target.servername,
              ALPNProtocols: ['http/1.1'],
            })
          : net.connect({ host: target.address, port: target.port });
      const ready = target.protocol === 'https:' ? 'secureConnect' : 'connect';
      const onError = (error: Error) => {
        socket.destroy();
        reject(error);
      };
      socket.once('error', onError);
      socket.once(ready, () => {
        socket.off('error', onError);
        socket.setNoDelay(true);
        socket.setKeepAlive(true, 60_000);
        resolve(socket);
      });
    });
}

export interface GuardOptions {
  allow?: AllowList;
  resolver?: Resolver;
  dialer?: Dialer;
  /** Bound on resolve + dial + TLS handshake of one connection. */
  connectTimeoutMs?: number;
}

/** Resolves, checks, dials and re-checks: the connect step of rule 3, as a promise. */
export async function guardedConnect(hostname: string, port: number, protocol: 'http:' | 'https:', options: GuardOptions = {}): Promise<net.Socket> {
  const allow = options.allow ?? EMPTY_ALLOW_LIST;
  const host = hostname.toLowerCase();
  const literal = net.isIP(host) !== 0;
  const answers: ResolvedAddress[] = literal ? [{ address: host, family: net.isIPv6(host) ? 6 : 4 }] : await resolve(host, options.resolver ?? systemResolver);

  // Check every answer before dialing any: one refused answer refuses the name.
  for (const answer of answers) {
    const verdict = checkAddress(answer.address, allow);
    if (!verdict.allowed) {
      throw blocked(literal ? `${host} is ${verdict.reason}.` : `${host} resolves to ${verdict.address}, ${verdict.reason}.`);
    }
  }

  const dialer = options.dialer ?? defaultDialer;
  let lastError: unknown;
  for (const answer of answers) {
    let socket: net.Socket;
    try {
      socket = await dialer({
        address: answer.address,
        family: answer.family,
        port,
        protocol,
        hostname: host,
        servername: literal ? undefined : host,
      });
    } catch (error) {
      lastError = error;
      continue; // the next checked address, as a browser would
    }
    // What the kernel actually connected to is what counts.
    const remote = socket.remoteAddress;
    const verdict = remote === undefined ? undefined : checkAddress(remote, allow);
    if (remote === undefined || !verdict?.allowed || !sameAddress(remote, answer.address)) {
      socket.destroy();
      const why = remote === undefined ? 'no remote address' : verdict && !verdict.allowed ? `${remote}, ${verdict.reason}` : `${remote} instead of ${answer.address}`;
      throw blocked(`The connection to ${host} ended up at ${why}.`);
    }
    return socket;
  }
  throw lastError;
}

const defaultDialer = createNetDialer();

/**
 * Resolution failures are `dns_failed`. A name that does not exist (NXDOMAIN: ENOTFOUND) or has no
 * address records (ENODATA) is permanent: retrying in a few seconds will not create it. SERVFAIL,
 * resolver timeouts and refused resolvers (EAI_AGAIN, ETIMEOUT, ESERVFAIL, ECONNREFUSED…) say
 * nothing about the name, so they are transient and the queue retries them.
 */
async function resolve(host: string, resolver: Resolver): Promise<ResolvedAddress[]> {
  let answers: ResolvedAddress[];
  try {
    answers = await resolver(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const permanent = code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_NONAME';
    throw new QuarryError('dns_failed', `${host} ${permanent ? 'does not resolve' : 'could not be resolved'}${typeof code === 'string' ? ` (${code})` : ''}.`, {
      permanent,
      suggestion: permanent ? 'Check the host name for typos.' : 'The DNS lookup failed for now; it is retried automatically.',
      cause: error,
    });
  }
  if (answers.length === 0) {
    throw new QuarryError('dns_failed', `${host} has no addresses.`, { permanent: true, suggestion: 'Check the host name for typos.' });
  }
  return answers;
}

