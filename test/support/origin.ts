import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A fake web origin on 127.0.0.1 that counts the requests each path receives. */
export class FakeOrigin {
  readonly hits = new Map<string, number>();
  readonly requests: http.IncomingMessage[] = [];
  private server!: http.Server;
  private readonly routes = new Map<string, Route>();

  static async start(routes: Record<string, Route> = {}): Promise<FakeOrigin> {
    const origin = new FakeOrigin();
    for (const [path, route] of Object.entries(routes)) origin.routes.set(path, route);
    origin.server = http.createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://origin').pathname;
      origin.hits.set(path, (origin.hits.get(path) ?? 0) + 1);
      origin.requests.push(request);
      const route = origin.routes.get(path);
      if (route) route(request, response);
      else response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    });
    await new Promise<void>((resolve) => origin.server.listen(0, '127.0.0.1', resolve));
    return origin;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
