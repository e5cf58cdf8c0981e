import { Agent, buildConnector } from 'undici';
import { QuarryError } from '@quarry/contracts/errors';
import { guardedConnect, type GuardOptions } from './guarded-connect';

/**
 * The guarded agent: an undici `Agent` whose `connect` function is `guardedConnect`, the only way
 * Quarry opens a connection to a user-supplied host (rule 3). A plain `Agent` never reads
 * HTTP(S)_PROXY/NO_PROXY (only EnvHttpProxyAgent does), so proxy variables cannot redirect these
 * requests to an internal proxy.
 */

/**
 * The connector undici calls for every new connection. Connection reuse (keep-alive) reuses a
 * socket already checked; every new socket goes through `guardedConnect`.
 */
export function createGuardedConnector(options: GuardOptions = {}): buildConnector.connector {
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  return ({ hostname, protocol, port }, callback) => {
    const scheme = protocol === 'https:' ? 'https:' : protocol === 'http:' ? 'http:' : undefined;
    if (!scheme) {
      callback(new QuarryError('url_invalid', `Unsupported protocol ${protocol}.`), null);
      return;
    }
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      callback(new QuarryError('url_timeout', `Connecting to ${hostname} took longer than ${timeoutMs} ms.`, { permanent: false }), null);
    }, timeoutMs);
    timer.unref();
    guardedConnect(hostname, Number(port) || (scheme === 'https:' ? 443 : 80), scheme, options).then(
      (socket) => {
        clearTimeout(timer);
        if (settled) socket.destroy();
        else callback(null, socket);
        settled = true;
      },
      (error: Error) => {
        clearTimeout(timer);
        if (!settled) callback(error, null);
        settled = true;
      },
    );
  };
}

export interface GuardedAgentOptions extends GuardOptions {
  /** Idle keep-alive sockets are closed after this long (undici's default is 4 s). */
  keepAliveTimeoutMs?: number;
  /** Max sockets per origin; undefined = unlimited (the domain limiter caps concurrency). */
  connectionsPerOrigin?: number;
}

/** An undici Agent whose every connection is checked. Close it when done (`agent.close()`). */
export function createGuardedAgent(options: GuardedAgentOptions = {}): Agent {
  return new Agent({
    connect: createGuardedConnector(options),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    connections: options.connectionsPerOrigin ?? null,
  });
}
