import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Agent } from 'undici';
import { QuarryError } from '@quarry/contracts';
import { parseAllowList } from './address-policy';
import { createGuardedAgent, GuardedAgentOptions } from './guarded-agent';
import { createNetDialer, DialTarget, Dialer } from './guarded-connect';
import { startOrigin, TestOrigin } from './testing/test-origin';
import { VirtualNetwork } from './testing/virtual-network';

/*
 * The connector under test is undici's real connect path (no MockAgent): requests go through
 * `Agent.request`, the guarded connector resolves with an injected resolver and dials with an
 * injected dialer that only ever connects to 127.0.0.1.
 */

const PUBLIC = '93.184.216.34';

let origin: TestOrigin;
let agents: Agent[] = [];

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    // Every response closes its connection, so every request needs a new (checked) connection.
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.end(`hello from ${req.headers.host}`);
  });
});
afterAll(() => origin.close());
afterEach(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
  agents = [];
});

function agentFor(net: VirtualNetwork, options: GuardedAgentOptions = {}): Agent {
  const agent = createGuardedAgent({ resolver: net.resolver, dialer: net.dialer, connectTimeoutMs: 2_000, ...options });
  agents.push(agent);
  return agent;
}

async function get(agent: Agent, origin: string): Promise<string> {
  const response = await agent.request({ origin, path: '/', method: 'GET' });
  return response.body.text();
}

async function refusal(promise: Promise<unknown>): Promise<QuarryError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

describe('guarded connector', () => {
  it('connects to the checked address of a public name, and the request goes through undici', async () => {
    const net = new VirtualNetwork().host('origin.test', [PUBLIC]).route(PUBLIC, origin.port);
    await expect(get(agentFor(net), 'http://origin.test')).resolves.toBe('hello from origin.test');
    expect(net.dialed).toEqual([{ address: PUBLIC, family: 4, port: 80, protocol: 'http:', hostname: 'origin.test', servername: 'origin.test' }]);
  });

  it('refuses a name resolving to a private address, before dialing anything', async () => {
    const net = new VirtualNetwork().host('intranet.test', ['10.0.0.5']);
    const error = await refusal(get(agentFor(net), 'http://intranet.test'));
    expect(error.kind).toBe('url_blocked');
    expect(error.permanent).toBe(true);
    expect(error.message).toBe('intranet.test resolves to 10.0.0.5, a private address.');
    expect(net.dialed).toEqual([]);
  });

  it.each([
    [[PUBLIC, '::1']],
    [['::1', PUBLIC]],
    [[PUBLIC, '2606:4700::1111', '127.0.0.1']],
    [[PUBLIC, '::ffff:169.254.169.254']],
  ])('refuses a name when ANY answer is refused: %p', async (answers) => {
    const net = new VirtualNetwork().host('dual.test', answers).route(PUBLIC, origin.port);
    const error = await refusal(get(agentFor(net), 'http://dual.test'));
    expect(error.kind).toBe('url_blocked');
    expect(net.dialed).toEqual([]);
  });

  it.each([
    ['http://10.0.0.1', '10.0.0.1 is a private address.'],
    ['http://127.0.0.1:8080', '127.0.0.1 is a loopback address.'],
    ['http://[::1]', '::1 is a loopback address.'],
    ['http://[::ffff:7f00:1]', '::ffff:7f00:1 is a loopback address (IPv4-mapped 127.0.0.1).'],
    ['http://169.254.169.254', '169.254.169.254 is a cloud metadata address.'],
  ])('checks IP literals itself (no resolver involved): %s', async (url, message) => {
    const net = new VirtualNetwork();
    const error = await refusal(get(agentFor(net), url));
    expect(error.kind).toBe('url_blocked');
    expect(error.message).toBe(message);
    expect(net.lookups).toEqual([]);
    expect(net.dialed).toEqual([]);
  });

  it('never dials a rebound address: first answer public, the next loopback', async () => {
    const net = new VirtualNetwork().host('rebind.test', [PUBLIC], ['127.0.0.1']).route(PUBLIC, origin.port).route('127.0.0.1', origin.port);
    const agent = agentFor(net);
    await expect(get(agent, 'http://rebind.test')).resolves.toBe('hello from rebind.test');
    const error = await refusal(get(agent, 'http://rebind.test'));
    expect(error.message).toBe('rebind.test resolves to 127.0.0.1, a loopback address.');
    expect(net.lookups).toEqual(['rebind.test', 'rebind.test']);
    expect(net.dialedAddresses()).toEqual([PUBLIC]);
  });

  it('re-checks the connected socket: a dialer that lands on loopback is refused', async () => {
    const net = new VirtualNetwork().host('origin.test', [PUBLIC]);
    // A dialer (or a network) that connects somewhere other than where it was asked to.
    const misrouting: Dialer = (target) => createNetDialer()({ ...target, address: '127.0.0.1', port: origin.port });
    const error = await refusal(get(agentFor(net, { dialer: misrouting }), 'http://origin.test'));
    expect(error.kind).toBe('url_blocked');
    expect(error.message).toBe('The connection to origin.test ended up at 127.0.0.1, a loopback address.');
  });

  it('re-checks the connected socket: a public but different address is refused too (pinning)', async () => {
    const net = new VirtualNetwork().host('origin.test', [PUBLIC]).route(PUBLIC, origin.port);
    const elsewhere: Dialer = async (target) => {
      const socket = await net.dialer(target);
      Object.defineProperty(socket, 'remoteAddress', { value: '8.8.4.4' });
      return socket;
    };
    const error = await refusal(get(agentFor(net, { dialer: elsewhere }), 'http://origin.test'));
    expect(error.message).toBe(`The connection to origin.test ended up at 8.8.4.4 instead of ${PUBLIC}.`);
  });

  it('tries the next checked address when one does not connect', async () => {
    const net = new VirtualNetwork().host('multi.test', ['93.184.216.35', PUBLIC]).route(PUBLIC, origin.port);
    await expect(get(agentFor(net), 'http://multi.test')).resolves.toBe('hello from multi.test');
    expect(net.dialedAddresses()).toEqual(['93.184.216.35', PUBLIC]);
  });

  it.each([
    ['ENOTFOUND', true, 'nxdomain.test does not resolve (ENOTFOUND).'],
    ['ENODATA', true, 'nxdomain.test does not resolve (ENODATA).'],
    ['EAI_AGAIN', false, 'nxdomain.test could not be resolved (EAI_AGAIN).'],
    ['ESERVFAIL', false, 'nxdomain.test could not be resolved (ESERVFAIL).'],
    ['ETIMEOUT', false, 'nxdomain.test could not be resolved (ETIMEOUT).'],
  ])('a lookup failing with %s is dns_failed (permanent: %s)', async (code, permanent, message) => {
    const net = new VirtualNetwork().failLookup('nxdomain.test', code);
    const error = await refusal(get(agentFor(net), 'http://nxdomain.test'));
    expect(error).toMatchObject({ kind: 'dns_failed', permanent, message });
    expect(net.dialed).toEqual([]);
  });

  it('a name with no addresses is dns_failed', async () => {
    const net = new VirtualNetwork().host('empty.test', []);
    expect(await refusal(get(agentFor(net), 'http://empty.test'))).toMatchObject({ kind: 'dns_failed', permanent: true });
  });

  it('bounds a connection attempt that never completes', async () => {
    const net = new VirtualNetwork().host('hang.test', [PUBLIC]);
    const hanging: Dialer = () => new Promise(() => undefined);
    const started = Date.now();
    const error = await refusal(get(agentFor(net, { dialer: hanging, connectTimeoutMs: 200 }), 'http://hang.test'));
    expect(error).toMatchObject({ kind: 'url_timeout', permanent: false });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('ignores proxy environment variables', async () => {
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy, HTTPS_PROXY: process.env.HTTPS_PROXY };
    // A proxy on 127.0.0.1:9 (discard; nothing listens): honouring it would fail the request.
    process.env.HTTP_PROXY = process.env.http_proxy = process.env.HTTPS_PROXY = 'http://127.0.0.1:9';
    try {
      const net = new VirtualNetwork().host('origin.test', [PUBLIC]).route(PUBLIC, origin.port);
      await expect(get(agentFor(net), 'http://origin.test')).resolves.toBe('hello from origin.test');
      expect(net.dialedAddresses()).toEqual([PUBLIC]);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('the default net dialer', () => {
  it('refuses to dial anything but an IP address (no DNS inside net.connect)', async () => {
    await expect(createNetDialer()({ address: 'example.com', family: 4, port: 80, protocol: 'http:', hostname: 'example.com' })).rejects.toThrow(/not an IP address/);
  });

  it('connects to the pinned 127.0.0.1 when the operator allows it', async () => {
    const net = new VirtualNetwork().host('origin.test', ['127.0.0.1']);
    const dialed: DialTarget[] = [];
    const real = createNetDialer();
    const recording: Dialer = (target) => {
      dialed.push(target);
      return real(target);
    };
    const agent = agentFor(net, { dialer: recording, allow: parseAllowList('127.0.0.1/32') });
    await expect(get(agent, `http://origin.test:${origin.port}`)).resolves.toBe(`hello from origin.test:${origin.port}`);
    expect(dialed.map((target) => `${target.address}:${target.port}`)).toEqual([`127.0.0.1:${origin.port}`]);
  });

  describe('over TLS', () => {
    let dir: string;
    let server: https.Server;
    let port: number;
    let ca: Buffer;

    beforeAll(async () => {
      // A throwaway self-signed certificate for the name origin.test only.
      dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-fetch-tls-'));
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
        '-subj', '/CN=origin.test', '-addext', 'subjectAltName=DNS:origin.test',
      ], { stdio: 'ignore' });
      ca = readFileSync(path.join(dir, 'cert.pem'));
      server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: ca }, (req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`tls hello from ${req.headers.host}`);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    const tlsAgent = (net: VirtualNetwork) => agentFor(net, { dialer: createNetDialer({ tls: { ca } }), allow: parseAllowList('127.0.0.1/32') });

    it('dials the pinned IP and still verifies the certificate against the host name', async () => {
      const net = new VirtualNetwork().host('origin.test', ['127.0.0.1']);
      await expect(get(tlsAgent(net), `https://origin.test:${port}`)).resolves.toBe(`tls hello from origin.test:${port}`);
    });

    it('refuses a certificate that does not name the host', async () => {
      const net = new VirtualNetwork().host('wrong.test', ['127.0.0.1']);
      await expect(get(tlsAgent(net), `https://wrong.test:${port}`)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    });
  });
});
