import net from 'node:net';
import { TestStack } from '../support/stack';

/*
 * A stopping gateway lets open connections finish, but not forever: a client that never sends the
 * rest of its request, or a WebSocket peer that never answers the close frame, is cut after the
 * shutdown grace period (QUARRY_SHUTDOWN_TIMEOUT_MS). Before, such a client held `close()` for
 * Node's own timeouts (60 s for headers), which hung a test's teardown on a loaded CI machine.
 */

const GRACE_MS = 1_000;

function connect(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function firstBytes(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => socket.once('data', (data) => resolve(data.toString('latin1'))));
}

describe('gateway shutdown', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await TestStack.start({ shutdownTimeoutMs: GRACE_MS }, { worker: false });
  });
  afterAll(() => stack.close());

  it('cuts a half-sent request and a silent WebSocket peer after the grace period', async () => {
    // Headers that never end.
    const halfSent = await connect(stack.url);
    halfSent.write('POST /v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n');

    // A socket.io WebSocket that is upgraded, then never answers anything (what it receives is dropped).
    const silent = await connect(stack.url);
    silent.write(
      'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    expect(await firstBytes(silent)).toMatch(/^HTTP\/1\.1 101/);

    const cut = [halfSent, silent].map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())));
    const started = Date.now();
    await stack.gateway.close();
    const elapsed = Date.now() - started;
    await Promise.all(cut);

    expect(elapsed).toBeGreaterThanOrEqual(GRACE_MS - 50);
    expect(elapsed).toBeLessThan(GRACE_MS + 10_000);
  });

  it('a second close resolves with the first', async () => {
    await expect(stack.gateway.close()).resolves.toBeUndefined();
  });
});
