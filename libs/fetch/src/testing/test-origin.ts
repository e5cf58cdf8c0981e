import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface TestOrigin {
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 (port 0: the kernel picks a free one) that records its requests. */
export async function startOrigin(handler: (req: http.IncomingMessage, res: http.ServerResponse, seen: SeenRequest[]) => void): Promise<TestOrigin> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res, requests);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RawOrigin {
  port: number;
  /** Number of requests (connections that sent a request head). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A TCP server on 127.0.0.1 that answers with whatever bytes the test writes: for responses a
 * well-behaved HTTP server refuses to produce (a Content-Length that lies, a body that drips).
 */
export async function startRawOrigin(onRequest: (socket: import('node:net').Socket, head: string) => void): Promise<RawOrigin> {
  const net = await import('node:net');
  const requests: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffered.slice(0, end);
      buffered = buffered.slice(end + 4);
      requests.push(head);
      onRequest(socket, head);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
