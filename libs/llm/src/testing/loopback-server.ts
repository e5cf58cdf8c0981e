import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The HTTP part the protocol fakes share: a real server on 127.0.0.1 on a port the kernel picks,
 * timers for delayed answers and hangs, and a close that cuts open connections (a hung request
 * included) so a test's teardown never waits on one.
 */
export class LoopbackServer {
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  static async start(handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>): Promise<LoopbackServer> {
    let self: LoopbackServer | undefined;
    const server = http.createServer((req, res) => void handle(req, res));
    server.on('connection', (socket) => {
      self?.sockets.add(socket);
      socket.on('close', () => self?.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    self = new LoopbackServer(server, (server.address() as AddressInfo).port);
    return self;
  }

  /** `http://127.0.0.1:<port>/v1`: the base URL an OpenAI-compatible client is given. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Runs `action` after `ms`, unless the server closes first. */
  later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A JSON answer (a string body is sent as is), unless the client is gone. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
