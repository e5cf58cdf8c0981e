import { formatBytes } from '@quarry/contracts/format';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { QuarryError } from '@quarry/contracts/errors';
import { checkAddress, guardedConnect, type AllowList, type GuardOptions } from '@quarry/fetch/policy';

/**
 * The only way a git process reaches the network: git's `http.proxy` points here (a loopback port
 * of this process), and every connection git asks for — the first request, each redirect hop,
 * each later fetch — is resolved, checked against the fetch address policy and dialed to the
 * checked address by `guardedConnect` (DNS pinned: git never resolves a name itself).
 *
 * - https: git sends CONNECT host:port and does TLS inside the tunnel, so certificates are
 *   verified by git against the real host name.
 * - http: git sends the request in absolute form; it is only forwarded when the address is on the
 *   operator's allow-list (plain http is for internal mirrors the operator named, not the internet).
 *
 * A session per git operation carries a byte budget (QUARRY_GIT_MAX_BYTES) and remembers the first
 * refusal, so a failed git command can be reported with the policy's typed error rather than
 * curl's text. Sessions authenticate with a random token: the port is no open proxy.
 */
export interface GuardedGitProxyOptions extends GuardOptions {
  allow: AllowList;
}

export class ProxySession {
  /** Bytes received from remote hosts during this session. */
  bytes = 0;
  /** The first refusal or failure the proxy saw (url_blocked, dns_failed, repo_too_large…). */
  error: QuarryError | undefined;
  readonly connections: string[] = [];
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly url: string,
    readonly maxBytes: number,
    private readonly onClose: () => void,
  ) {}

  /** @internal */ track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  /** @internal */ received(count: number): boolean {
    this.bytes += count;
    if (this.bytes <= this.maxBytes) return true;
    this.fail(new QuarryError('repo_too_large', `The repository sent more than ${formatBytes(this.maxBytes)}, the limit (QUARRY_GIT_MAX_BYTES).`, {
      suggestion: 'Pick a smaller repository, or ask the operator to raise QUARRY_GIT_MAX_BYTES.',
    }));
    for (const socket of this.sockets) socket.destroy();
    return false;
  }

  /** @internal */ fail(error: QuarryError): void {
    this.error ??= error;
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.onClose();
  }
}

export class GuardedGitProxy {
  private readonly sessions = new Map<string, ProxySession>();
  private constructor(
    private readonly server: http.Server,
    private readonly options: GuardedGitProxyOptions,
  ) {}

  static async start(options: GuardedGitProxyOptions): Promise<GuardedGitProxy> {
    const server = http.createServer();
    const proxy = new GuardedGitProxy(server, options);
    server.on('connect', (request: http.IncomingMessage, client: Socket, head: Buffer) => void proxy.tunnel(request, client, head));
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => void proxy.forward(request, response));
    server.on('clientError', (_error, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A fresh session: pass `session.url` as git's http.proxy; close it when the command ended. */
  session(maxBytes: number): ProxySession {
    const name = `s${randomBytes(6).toString('hex')}`;
    const token = randomBytes(18).toString('hex');
    const key = Buffer.from(`${name}:${token}`).toString('base64');
    const session = new ProxySession(`http://${name}:${token}@127.0.0.1:${this.port}`, maxBytes, () => this.sessions.delete(key));
    this.sessions.set(key, session);
    return session;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private sessionOf(request: http.IncomingMessage): ProxySession | undefined {
    const header = request.headers['proxy-authorization'];
    if (typeof header !== 'string' || !header.startsWith('Basic ')) return undefined;
    return this.sessions.get(header.slice(6).trim());
  }

  private async tunnel(request: http.IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on('error', () => undefined);
    const session = this.sessionOf(request);
    if (!session) return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="quarry"\r\n\r\n');
    const target = /^\[?([^\]]+?)\]?:(\d+)$/.exec(request.url ?? '');
    const port = Number(target?.[2]);
    if (!target || !validPort(port)) {
      session.fail(new QuarryError('url_invalid', `Git asked for a connection to "${request.url}"; only ports 80, 443 and 1024-65535 are allowed.`, { suggestion: 'Use the repository\'s https:// URL on a standard port.' }));
      return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    }
    session.track(client);
    let upstream: Socket;
    try {
      upstream = await this.connect(session, target[1], port, false);
    } catch {
      return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    }
    session.track(upstream);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    this.splice(session, client, upstream);
  }

  private async forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const session = this.sessionOf(request);
    if (!session) return void response.writeHead(407, { 'proxy-authenticate': 'Basic realm="quarry"' }).end();
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      return void response.writeHead(400).end();
    }
    const port = Number(url.port || 80);
    if (url.protocol !== 'http:' || !validPort(port)) {
      session.fail(new QuarryError('url_invalid', `Git asked the proxy for ${url.protocol}//${url.host}; only http and https are allowed.`));
      return void response.writeHead(403).end();
    }
    let upstream: Socket;
    try {
      upstream = await this.connect(session, url.hostname.replace(/^\[|\]$/g, ''), port, true);
    } catch {
      return void response.writeHead(403).end();
    }
    session.track(upstream);
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const outgoing = http.request({ method: request.method, path: `${url.pathname}${url.search}`, headers, createConnection: () => upstream });
    outgoing.on('error', () => response.destroy());
    outgoing.on('response', (incoming) => {
      response.writeHead(incoming.statusCode ?? 502, incoming.headers);
      incoming.on('data', (chunk: Buffer) => {
        if (session.received(chunk.length)) response.write(chunk);
      });
      incoming.on('end', () => response.end());
      incoming.on('error', () => response.destroy());
    });
    request.pipe(outgoing);
  }

  /** Resolve, check, dial, re-check (guardedConnect); plain http additionally needs the allow-list. */
  private async connect(session: ProxySession, host: string, port: number, plainHttp: boolean): Promise<Socket> {
    try {
      const socket = await guardedConnect(host, port, 'http:', this.options);
      session.connections.push(`${host}:${port}`);
      if (plainHttp) {
        const remote = socket.remoteAddress ?? '';
        const verdict = checkAddress(remote, this.options.allow);
        if (!verdict.allowed || !verdict.allowListed) {
          socket.destroy();
          throw new QuarryError('url_blocked', `http://${host}:${port} is plain http to ${remote}, which is not on the allow-list; only https:// is cloned from other hosts.`, {
            suggestion: 'Use the https:// URL of the repository. Operators can allow plain http to an internal mirror with QUARRY_FETCH_ALLOW.',
          });
        }
      }
      return socket;
    } catch (error) {
      session.fail(
        error instanceof QuarryError
          ? error
          : new QuarryError('repo_unavailable', `Could not connect to ${host}:${port}: ${(error as Error).message}.`, {
              permanent: false,
              suggestion: 'The host did not answer; the job is retried automatically.',
            }),
      );
      throw error;
    }
  }

  private splice(session: ProxySession, client: Socket, upstream: Socket): void {
    upstream.on('data', (chunk: Buffer) => {
      if (session.received(chunk.length) && !client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
    client.pipe(upstream);
    upstream.on('end', () => client.end());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}

function validPort(port: number): boolean {
  return Number.isInteger(port) && (port === 80 || port === 443 || (port >= 1024 && port <= 65535));
}

