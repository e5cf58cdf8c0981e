import net from 'node:net';
import type { DialTarget, Dialer, ResolvedAddress, Resolver } from '../guarded-connect';

/**
 * A pretend internet for tests, so that no packet ever leaves the machine.
 *
 * - `resolver` answers from a table (`name → answers`, or a sequence of answer lists to model DNS
 *   rebinding: each lookup takes the next list, the last one repeats).
 * - `dialer` records every target it is asked to dial and connects ONLY to 127.0.0.1: a route
 *   maps a pretend address (e.g. 93.184.216.34) to a local port. The socket reports the pretend
 *   address as `remoteAddress`, as a real connection to it would. Unrouted addresses fail with
 *   ECONNREFUSED; nothing is ever dialed anywhere else.
 */
export class VirtualNetwork {
  readonly lookups: string[] = [];
  readonly dialed: DialTarget[] = [];
  private readonly names = new Map<string, ResolvedAddress[][]>();
  private readonly failures = new Map<string, string>();
  private readonly routes = new Map<string, number>();

  /** `name` answers `addresses`; pass several arrays for successive lookups (rebinding). */
  host(name: string, ...answers: string[][]): this {
    this.names.set(name, answers.map((list) => list.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }))));
    return this;
  }

  /** Lookups of `name` fail with this error code (ENOTFOUND, EAI_AGAIN…). */
  failLookup(name: string, code: string): this {
    this.failures.set(name, code);
    return this;
  }

  /** Connections to `address` (any port) reach the test server on 127.0.0.1:`localPort`. */
  route(address: string, localPort: number): this {
    this.routes.set(address, localPort);
    return this;
  }

  dialedAddresses(): string[] {
    return this.dialed.map((target) => target.address);
  }

  readonly resolver: Resolver = async (hostname) => {
    this.lookups.push(hostname);
    const code = this.failures.get(hostname);
    if (code) throw Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code });
    const sequence = this.names.get(hostname);
    if (!sequence) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return sequence.length > 1 ? (sequence.shift() as ResolvedAddress[]) : sequence[0];
  };

  readonly dialer: Dialer = (target) => {
    this.dialed.push(target);
    const port = this.routes.get(target.address);
    if (port === undefined) {
      return Promise.reject(Object.assign(new Error(`connect ECONNREFUSED ${target.address}:${target.port} (no virtual route)`), { code: 'ECONNREFUSED' }));
    }
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        Object.defineProperty(socket, 'remoteAddress', { value: target.address, configurable: true });
        resolve(socket);
      });
    });
  };
}

/** A dialer that must never be called: for tests where the request has to be refused first. */
export const forbiddenDialer: Dialer & { calls: DialTarget[] } = Object.assign(
  (target: DialTarget) => {
    forbiddenDialer.calls.push(target);
    return Promise.reject(new Error(`forbiddenDialer was asked to dial ${target.address}`));
  },
  { calls: [] as DialTarget[] },
);

/**
 * A dialer for tests against real servers on loopback: it connects to 127.0.0.1 or ::1 only and
 * refuses every other address without a packet, so a policy bug under test cannot reach the
 * outside (or a private range) however the request was steered.
 */
export const loopbackOnlyDialer: Dialer & { refused: DialTarget[] } = Object.assign(
  (target: DialTarget) => {
    if (target.address !== '127.0.0.1' && target.address !== '::1') {
      loopbackOnlyDialer.refused.push(target);
      return Promise.reject(Object.assign(new Error(`loopbackOnlyDialer refused ${target.address}`), { code: 'ECONNREFUSED' }));
    }
    return new Promise<net.Socket>((resolve, reject) => {
      const socket = net.connect({ host: target.address, port: target.port });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
    });
  },
  { refused: [] as DialTarget[] },
);
