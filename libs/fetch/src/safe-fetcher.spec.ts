import type http from 'node:http';
import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { fetchResultSchema, QuarryError } from '@quarry/contracts';
import { MemoryDocumentCache } from './document-cache';
import { LocalDomainLimiter } from './domain-limiter';
import { SafeFetcher, SafeFetcherOptions } from './safe-fetcher';
import { RawOrigin, startOrigin, startRawOrigin, TestOrigin } from './testing/test-origin';
import { VirtualNetwork } from './testing/virtual-network';

/*
 * SafeFetcher end to end over undici's real connect path. Names resolve through a VirtualNetwork
 * to public-looking addresses whose connections the test dialer routes to servers on 127.0.0.1;
 * nothing is sent anywhere else. Handlers are picked by Host header and path.
 */

const DOCS = '93.184.216.34';
const OTHER = '151.101.1.69';
const RAW = '140.82.112.3';
const MiB = 1024 * 1024;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
const handlers = new Map<string, Handler>();
let origin: TestOrigin;
let net: VirtualNetwork;
const fetchers: SafeFetcher[] = [];

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    const handler = handlers.get(`${req.headers.host}${req.url}`);
    if (handler) handler(req, res);
    else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
});
afterAll(() => origin.close());
beforeEach(() => {
  handlers.clear();
  origin.requests.length = 0;
  net = new VirtualNetwork().host('docs.test', [DOCS]).host('other.test', [OTHER]).route(DOCS, origin.port).route(OTHER, origin.port);
});
afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((fetcher) => fetcher.close()));
});

function fetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const created = new SafeFetcher({
    resolver: net.resolver,
    dialer: net.dialer,
    limiter: new LocalDomainLimiter({ ratePerSecond: 10_000, concurrency: 100 }),
    timeoutMs: 3_000,
    backoffBaseMs: 20,
    retryBudgetMs: 5_000,
    ...options,
  });
  fetchers.push(created);
  return created;
}

function serve(hostPath: string, status: number, headers: http.OutgoingHttpHeaders, body: string | Buffer = ''): void {
  handlers.set(hostPath, (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  });
}

async function failure(promise: Promise<unknown>): Promise<QuarryError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

describe('SafeFetcher: a plain fetch', () => {
  it('returns readable text and the result contract', async () => {
    serve('docs.test/guide', 200, { 'content-type': 'text/html; charset=utf-8', etag: '"v1"' }, html('Guide', '<nav>menu</nav><h1>Install</h1><p>Run <a href="/next">next</a>.</p><script>evil()</script>'));
    const before = Date.now();
    const result = await fetcher().fetch('http://DOCS.test./guide#section');
    expect(fetchResultSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({
      url: 'http://docs.test/guide',
      finalUrl: 'http://docs.test/guide',
      status: 200,
      contentType: 'text/html',
      title: 'Guide',
      truncated: false,
      fromCache: false,
      redirects: [],
    });
    expect(result.text).toBe('# Install\n\nRun next [http://docs.test/next].');
    expect(result.bytes).toBeGreaterThan(0);
    expect(Date.parse(result.fetchedAt)).toBeGreaterThanOrEqual(before - 1);
    expect(origin.requests[0].headers).toMatchObject({ host: 'docs.test', 'accept-encoding': 'gzip, deflate, br' });
    expect(origin.requests[0].headers['user-agent']).toMatch(/^Quarry\//);
  });

  it('pretty-prints JSON and keeps plain text, Markdown and XML as they are', async () => {
    serve('docs.test/api', 200, { 'content-type': 'application/json' }, '{"a":1,"b":[true,null]}');
    serve('docs.test/ld', 200, { 'content-type': 'application/ld+json' }, '{"x":"y"}');
    serve('docs.test/readme', 200, { 'content-type': 'text/markdown' }, '# Title\n\n* item\n');
    serve('docs.test/feed', 200, { 'content-type': 'application/atom+xml' }, '<feed><title>t</title></feed>');
    serve('docs.test/plain', 200, { 'content-type': 'text/plain' }, 'line 1\n  line 2\n');
    const f = fetcher();
    expect((await f.fetch('http://docs.test/api')).text).toBe('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}');
    expect((await f.fetch('http://docs.test/ld')).text).toBe('{\n  "x": "y"\n}');
    expect((await f.fetch('http://docs.test/readme')).text).toBe('# Title\n\n* item\n');
    expect((await f.fetch('http://docs.test/feed')).text).toBe('<feed><title>t</title></feed>');
    expect((await f.fetch('http://docs.test/plain')).text).toBe('line 1\n  line 2\n');
  });

  it('refuses invalid and internal URLs before any I/O', async () => {
    const f = fetcher();
    expect(await failure(f.fetch('ftp://docs.test/'))).toMatchObject({ kind: 'url_invalid' });
    expect(await failure(f.fetch('http://a.com@127.0.0.1/'))).toMatchObject({ kind: 'url_invalid' });
    expect(await failure(f.fetch('http://0x7f.1/'))).toMatchObject({ kind: 'url_blocked' });
    expect(await failure(f.fetch('http://localhost:8080/'))).toMatchObject({ kind: 'url_blocked' });
    expect(net.lookups).toEqual([]);
    expect(net.dialed).toEqual([]);
  });

  it('validates its options', () => {
    expect(() => new SafeFetcher({ timeoutMs: 120_000 })).toThrow(/timeoutMs/);
    expect(() => new SafeFetcher({ maxRedirects: 6 })).toThrow(/maxRedirects/);
    expect(() => new SafeFetcher({ allow: '10.0.0.0/99' })).toThrow(/is not a CIDR/);
    expect(() => new SafeFetcher({ userAgent: 'a\r\nX-Evil: 1' })).toThrow(/userAgent/);
    expect(() => new SafeFetcher({ cache: {} as never })).toThrow(/cache/);
  });

  it('refuses request headers it owns', async () => {
    expect(await failure(fetcher().fetch('http://docs.test/', { headers: { Host: 'evil.test' } }))).toMatchObject({ kind: 'input_invalid' });
    expect(await failure(fetcher().fetch('http://docs.test/', { headers: { 'x-a': 'b\r\nc: d' } }))).toMatchObject({ kind: 'input_invalid' });
  });
});

describe('SafeFetcher: addresses (rules 2 and 3)', () => {
  it('refuses a name that resolves to a private address; nothing is dialed', async () => {
    net.host('intranet.test', ['10.0.0.5']);
    const error = await failure(fetcher().fetch('http://intranet.test/wiki'));
    expect(error).toMatchObject({ kind: 'url_blocked', permanent: true, message: 'intranet.test resolves to 10.0.0.5, a private address.' });
    expect(net.dialed).toEqual([]);
  });

  it('refuses a dual-stack name with one loopback answer', async () => {
    net.host('dual.test', [DOCS, '::1']);
    expect(await failure(fetcher().fetch('http://dual.test/'))).toMatchObject({ kind: 'url_blocked', message: 'dual.test resolves to ::1, a loopback address.' });
    expect(net.dialed).toEqual([]);
  });

  it('never dials loopback when a name rebinds between two hops of one fetch', async () => {
    net.host('rebind.test', [DOCS], ['127.0.0.1']).route('127.0.0.1', origin.port);
    serve('rebind.test/a', 302, { location: '/b' });
    serve('rebind.test/b', 200, { 'content-type': 'text/plain' }, 'internal secret');
    const error = await failure(fetcher().fetch('http://rebind.test/a'));
    expect(error).toMatchObject({ kind: 'url_blocked', message: 'rebind.test resolves to 127.0.0.1, a loopback address.' });
    expect(net.lookups).toEqual(['rebind.test', 'rebind.test']);
    expect(net.dialedAddresses()).toEqual([DOCS]);
  });

  it('never dials loopback when a name rebinds between two fetches', async () => {
    net.host('rebind.test', [DOCS], ['127.0.0.1']).route('127.0.0.1', origin.port);
    handlers.set('rebind.test/', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
      res.end('public page');
    });
    const f = fetcher();
    await expect(f.fetch('http://rebind.test/')).resolves.toMatchObject({ text: 'public page' });
    expect(await failure(f.fetch('http://rebind.test/', { force: true }))).toMatchObject({ kind: 'url_blocked' });
    expect(net.dialedAddresses()).toEqual([DOCS]);
  });

  it.each([
    ['http://10.0.0.1/admin', 'url_blocked', /points at 10\.0\.0\.1, a private address/],
    ['http://[::ffff:169.254.169.254]/latest/meta-data/', 'url_blocked', /a cloud metadata address/],
    ['http://localhost/', 'url_blocked', /a loopback name/],
    ['http://intranet.test/', 'url_blocked', /intranet\.test resolves to 10\.0\.0\.5/],
    ['file:///etc/passwd', 'url_invalid', /file: scheme/],
    ['http://user:pw@other.test/', 'url_invalid', /credentials/],
    ['http://other.test:22/', 'url_invalid', /port 22/],
  ])('refuses a redirect to %s', async (location, kind, message) => {
    net.host('intranet.test', ['10.0.0.5']);
    serve('docs.test/go', 302, { location });
    const error = await failure(fetcher().fetch('http://docs.test/go'));
    expect(error.kind).toBe(kind);
    expect(error.message).toMatch(message);
    expect(net.dialedAddresses().every((address) => address === DOCS)).toBe(true);
  });
});

describe('SafeFetcher: redirects (rule 4)', () => {
  beforeEach(() => {
    for (let n = 1; n <= 6; n++) serve(`docs.test/chain/${n}`, [301, 302, 303, 307, 308][n % 5], { location: n % 2 ? `/chain/${n - 1}` : `http://docs.test/chain/${n - 1}` });
    serve('docs.test/chain/0', 200, { 'content-type': 'text/plain' }, 'the end');
  });

  it('follows up to 5 redirects, relative and absolute, and reports them', async () => {
    const result = await fetcher().fetch('http://docs.test/chain/5');
    expect(result).toMatchObject({ url: 'http://docs.test/chain/5', finalUrl: 'http://docs.test/chain/0', text: 'the end', redirects: ['http://docs.test/chain/4', 'http://docs.test/chain/3', 'http://docs.test/chain/2', 'http://docs.test/chain/1', 'http://docs.test/chain/0'] });
  });

  it('refuses a sixth redirect', async () => {
    const error = await failure(fetcher().fetch('http://docs.test/chain/6'));
    expect(error).toMatchObject({ kind: 'too_many_redirects', permanent: true });
    expect(error.message).toMatch(/more than 5 times/);
    expect(origin.requests).toHaveLength(6);
  });

  it('honours a lower maxRedirects', async () => {
    expect(await failure(fetcher({ maxRedirects: 1 }).fetch('http://docs.test/chain/2'))).toMatchObject({ kind: 'too_many_redirects' });
  });

  it('refuses a loop', async () => {
    serve('docs.test/loop/a', 302, { location: '/loop/b' });
    serve('docs.test/loop/b', 302, { location: 'http://docs.test/loop/a#again' });
    const error = await failure(fetcher().fetch('http://docs.test/loop/a'));
    expect(error).toMatchObject({ kind: 'too_many_redirects', message: 'Redirect loop: http://docs.test/loop/b redirects back to http://docs.test/loop/a.' });
  });

  it('refuses a redirect without a Location', async () => {
    serve('docs.test/nowhere', 302, {});
    expect(await failure(fetcher().fetch('http://docs.test/nowhere'))).toMatchObject({ kind: 'url_http_error', permanent: true });
  });

  it('keeps credentials on same-origin hops and strips them on the first cross-origin hop', async () => {
    serve('docs.test/private', 302, { location: '/private2' });
    serve('docs.test/private2', 302, { location: 'http://other.test/landing' });
    serve('other.test/landing', 302, { location: 'http://docs.test/back' });
    serve('docs.test/back', 200, { 'content-type': 'text/plain' }, 'ok');
    await fetcher().fetch('http://docs.test/private', { headers: { Authorization: 'Bearer s3cret', Cookie: 'session=1', 'X-Trace': 't' } });
    const seen = origin.requests.map((request) => [request.headers.host + request.url, request.headers.authorization, request.headers.cookie, request.headers['x-trace']]);
    expect(seen).toEqual([
      ['docs.test/private', 'Bearer s3cret', 'session=1', 't'],
      ['docs.test/private2', 'Bearer s3cret', 'session=1', 't'],
      ['other.test/landing', undefined, undefined, 't'],
      ['docs.test/back', undefined, undefined, 't'],
    ]);
  });
});

describe('SafeFetcher: responses (rule 5)', () => {
  it.each([
    [404, true],
    [403, true],
    [410, true],
    [408, false],
    [500, false],
    [502, false],
  ])('HTTP %i is url_http_error (permanent: %s)', async (status, permanent) => {
    serve('docs.test/status', status, { 'content-type': 'text/html' }, 'error page');
    const error = await failure(fetcher().fetch('http://docs.test/status'));
    expect(error).toMatchObject({ kind: 'url_http_error', permanent });
    expect(error.message).toContain(`HTTP ${status}`);
  });

  it.each([['image/png'], ['application/pdf'], ['application/octet-stream'], ['image/svg+xml'], [undefined]])('refuses content type %p', async (type) => {
    serve('docs.test/file', 200, type ? { 'content-type': type } : {}, 'binary');
    const error = await failure(fetcher().fetch('http://docs.test/file'));
    expect(error).toMatchObject({ kind: 'content_type_refused', permanent: true });
  });

  it('refuses a content encoding it cannot decode', async () => {
    serve('docs.test/zstd', 200, { 'content-type': 'text/plain', 'content-encoding': 'zstd' }, 'xx');
    expect(await failure(fetcher().fetch('http://docs.test/zstd'))).toMatchObject({ kind: 'content_type_refused' });
  });

  it.each([
    ['gzip', (data: Buffer) => zlib.gzipSync(data)],
    ['deflate', (data: Buffer) => zlib.deflateSync(data)],
    ['br', (data: Buffer) => zlib.brotliCompressSync(data)],
  ])('decodes %s', async (coding, encode) => {
    serve('docs.test/enc', 200, { 'content-type': 'text/plain', 'content-encoding': coding }, encode(Buffer.from('compressed text '.repeat(100))));
    const result = await fetcher().fetch('http://docs.test/enc');
    expect(result).toMatchObject({ text: 'compressed text '.repeat(100), bytes: 1600, truncated: false });
  });

  it('reports a corrupt compressed body as url_http_error', async () => {
    serve('docs.test/corrupt', 200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, Buffer.from('this is not gzip at all'));
    expect(await failure(fetcher().fetch('http://docs.test/corrupt'))).toMatchObject({ kind: 'url_http_error', permanent: true });
  });

  it('cuts a long body at the cap and marks it truncated', async () => {
    serve('docs.test/long', 200, { 'content-type': 'text/plain' }, 'x'.repeat(3 * MiB));
    const result = await fetcher().fetch('http://docs.test/long');
    expect(result).toMatchObject({ bytes: MiB, truncated: true });
    expect(result.text).toHaveLength(MiB);
    const small = await fetcher({ maxBytes: 2048 }).fetch('http://docs.test/long');
    expect(small).toMatchObject({ bytes: 2048, truncated: true });
  });

  it('a body of exactly the cap is not truncated', async () => {
    serve('docs.test/exact', 200, { 'content-type': 'text/plain' }, 'y'.repeat(4096));
    expect(await fetcher({ maxBytes: 4096 }).fetch('http://docs.test/exact')).toMatchObject({ bytes: 4096, truncated: false });
  });

  it('does not drop a multi-byte character in half at the cut (no replacement character)', async () => {
    serve('docs.test/utf8', 200, { 'content-type': 'text/plain; charset=utf-8' }, 'é'.repeat(2000));
    const result = await fetcher({ maxBytes: 1025 }).fetch('http://docs.test/utf8');
    expect(result.text).toBe('é'.repeat(512));
  });

  describe('a gzip bomb', () => {
    // 200 gzip members of 1 MiB of zeros each: 200 MiB decoded from ~200 KB on the wire. Built
    // from members so the test itself never holds 200 MiB.
    const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 200 }, () => member));

    it('is cut at the cap without inflating the rest', async () => {
      serve('docs.test/bomb', 200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, bomb);
      const rssBefore = process.memoryUsage().rss;
      const result = await fetcher().fetch('http://docs.test/bomb');
      const grownMiB = (process.memoryUsage().rss - rssBefore) / MiB;
      expect(bomb.length).toBeLessThan(MiB);
      expect(result).toMatchObject({ bytes: MiB, truncated: true });
      // Inflating it all would take 200 MiB; the cap plus buffers is a few MiB.
      expect(grownMiB).toBeLessThan(48);
    });

    it('with a small cap, stops after the first KiB', async () => {
      serve('docs.test/bomb', 200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, bomb);
      expect(await fetcher({ maxBytes: 1024 }).fetch('http://docs.test/bomb')).toMatchObject({ bytes: 1024, truncated: true });
    });

    it('in brotli, likewise', async () => {
      serve('docs.test/brbomb', 200, { 'content-type': 'text/plain', 'content-encoding': 'br' }, zlib.brotliCompressSync(Buffer.alloc(64 * MiB), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }));
      expect(await fetcher().fetch('http://docs.test/brbomb')).toMatchObject({ bytes: MiB, truncated: true });
    });
  });

  describe('Content-Length', () => {
    let raw: RawOrigin;
    let respond: (socket: import('node:net').Socket) => void;
    beforeAll(async () => {
      raw = await startRawOrigin((socket) => respond(socket));
    });
    afterAll(() => raw.close());
    beforeEach(() => {
      net.host('raw.test', [RAW]).route(RAW, raw.port);
    });

    it('cuts a declared length over the cap at the cap, marked truncated — as it does a chunked body', async () => {
      respond = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5000000\r\n\r\n' + 'z'.repeat(MiB + 1_000));
      const started = Date.now();
      const declared = await fetcher().fetch('http://raw.test/big');
      expect(declared).toMatchObject({ bytes: MiB, truncated: true });
      expect(Date.now() - started).toBeLessThan(5_000); // the rest is never waited for
      respond = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n' + `${(MiB + 1_000).toString(16)}\r\n${'z'.repeat(MiB + 1_000)}\r\n`);
      const chunked = await fetcher().fetch('http://raw.test/big-chunked');
      expect(chunked).toMatchObject({ bytes: declared.bytes, truncated: true, text: declared.text });
    });

    it('reads only the declared length when the server sends more', async () => {
      respond = (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n0123456789' + 'EXTRA'.repeat(10_000));
      const result = await fetcher().fetch('http://raw.test/lie');
      expect(result).toMatchObject({ text: '0123456789', bytes: 10, truncated: false });
    });

    it('fails (transient) when the server sends less than declared and closes', async () => {
      respond = (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nshort');
      expect(await failure(fetcher().fetch('http://raw.test/short'))).toMatchObject({ kind: 'url_http_error', permanent: false });
    });

    it('caps a gzip body whose Content-Length is small', async () => {
      const gz = zlib.gzipSync(Buffer.alloc(8 * MiB, 'a'));
      respond = (socket) => socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: ${gz.length}\r\n\r\n`), gz]));
      expect(await fetcher().fetch('http://raw.test/gz')).toMatchObject({ bytes: MiB, truncated: true });
    });

    it('times out a slow drip at the deadline, however steadily it drips', async () => {
      const timers: NodeJS.Timeout[] = [];
      respond = (socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n');
        const timer = setInterval(() => socket.writable && socket.write('1\r\nx\r\n'), 50);
        timers.push(timer);
        socket.on('close', () => clearInterval(timer));
      };
      const started = Date.now();
      const error = await failure(fetcher({ timeoutMs: 600 }).fetch('http://raw.test/drip'));
      const elapsed = Date.now() - started;
      timers.forEach(clearInterval);
      expect(error).toMatchObject({ kind: 'url_timeout', permanent: false });
      expect(error.message).toMatch(/600 ms deadline/);
      expect(elapsed).toBeGreaterThanOrEqual(590);
      expect(elapsed).toBeLessThan(600 + 400);
    });

    it('times out a server that never answers', async () => {
      respond = () => undefined;
      const started = Date.now();
      expect(await failure(fetcher({ timeoutMs: 300 }).fetch('http://raw.test/silent'))).toMatchObject({ kind: 'url_timeout' });
      expect(Date.now() - started).toBeLessThan(300 + 400);
    });

    it('a caller abort rejects with the caller\'s reason, not a timeout', async () => {
      respond = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n');
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('job cancelled')), 100);
      await expect(fetcher().fetch('http://raw.test/abort', { signal: controller.signal })).rejects.toThrow('job cancelled');
    });
  });
});

describe('SafeFetcher: charsets', () => {
  it.each([
    ['latin1 from the header', { 'content-type': 'text/plain; charset=ISO-8859-1' }, Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'café'],
    ['windows-1252 smart quotes under an ISO-8859-1 label', { 'content-type': 'text/plain; charset=iso-8859-1' }, Buffer.from([0x93, 0x68, 0x69, 0x94]), '“hi”'],
    ['Shift_JIS from the header', { 'content-type': 'text/plain; charset=Shift_JIS' }, iconv.encode('日本語のテキスト', 'shift_jis'), '日本語のテキスト'],
    ['UTF-8 by default', { 'content-type': 'text/plain' }, Buffer.from('naïve ☃'), 'naïve ☃'],
    ['a BOM over the header', { 'content-type': 'text/plain; charset=iso-8859-1' }, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('ünïcode')]), 'ünïcode'],
    ['an unknown label as UTF-8', { 'content-type': 'text/plain; charset=x-unheard-of' }, Buffer.from('plain ✓'), 'plain ✓'],
  ])('%s', async (_name, headers, body, text) => {
    serve('docs.test/cs', 200, headers, body);
    expect((await fetcher().fetch('http://docs.test/cs')).text).toBe(text);
  });

  it.each([
    ['<meta charset>', '<meta charset="windows-1252">', 'windows-1252'],
    ['<meta http-equiv>', '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">', 'shift_jis'],
  ])('HTML declaring its charset with %s', async (_name, meta, charset) => {
    const page = `<html><head>${meta}<title>Caf\u00e9 \u65e5\u672c</title></head><body><p>Caf\u00e9 \u65e5\u672c</p></body></html>`;
    const encodable = charset === 'shift_jis' ? page.replace(/\u00e9/g, 'e') : page.replace(/[\u65e5\u672c]/g, '');
    serve('docs.test/meta', 200, { 'content-type': 'text/html' }, iconv.encode(encodable, charset));
    const result = await fetcher().fetch('http://docs.test/meta');
    const expected = charset === 'shift_jis' ? 'Cafe \u65e5\u672c' : 'Caf\u00e9';
    expect(result.title?.trim()).toBe(expected);
    expect(result.text.trim()).toBe(expected);
  });
});

describe('SafeFetcher: 429 and 503 (rule 6)', () => {
  function sequence(path: string, responses: Array<[number, http.OutgoingHttpHeaders, string]>): void {
    let call = 0;
    handlers.set(path, (_req, res) => {
      const [status, headers, body] = responses[Math.min(call++, responses.length - 1)];
      res.writeHead(status, headers);
      res.end(body);
    });
  }

  it('waits the Retry-After seconds, then succeeds', async () => {
    sequence('docs.test/busy', [
      [429, { 'retry-after': '1', 'content-type': 'text/plain' }, 'slow down'],
      [200, { 'content-type': 'text/plain' }, 'finally'],
    ]);
    const started = Date.now();
    const result = await fetcher().fetch('http://docs.test/busy');
    expect(result.text).toBe('finally');
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(origin.requests).toHaveLength(2);
  });

  it('waits until a Retry-After date, then succeeds', async () => {
    sequence('docs.test/busy', [
      [503, { 'retry-after': new Date(Date.now() + 2_000).toUTCString(), 'content-type': 'text/plain' }, 'maintenance'],
      [200, { 'content-type': 'text/plain' }, 'back'],
    ]);
    const started = Date.now();
    expect((await fetcher().fetch('http://docs.test/busy')).text).toBe('back');
    // The date has one-second resolution: between 1 and 2 s from now.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('gives up with url_rate_limited when 503s outlast the budget', async () => {
    sequence('docs.test/down', [[503, { 'content-type': 'text/plain' }, 'down']]);
    const started = Date.now();
    const error = await failure(fetcher({ retryBudgetMs: 500, backoffBaseMs: 50 }).fetch('http://docs.test/down'));
    expect(error).toMatchObject({ kind: 'url_rate_limited', permanent: false });
    expect(origin.requests.length).toBeGreaterThanOrEqual(3);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('does not sleep on a Retry-After longer than the budget', async () => {
    sequence('docs.test/later', [[429, { 'retry-after': '3600', 'content-type': 'text/plain' }, 'come back tomorrow']]);
    const started = Date.now();
    const error = await failure(fetcher().fetch('http://docs.test/later'));
    expect(error).toMatchObject({ kind: 'url_rate_limited' });
    expect(error.message).toMatch(/asked for 3600 s/);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('takes a domain slot per request and waits its turn', async () => {
    serve('docs.test/a', 200, { 'content-type': 'text/plain' }, 'a');
    const f = fetcher({ limiter: new LocalDomainLimiter({ ratePerSecond: 10, burst: 1, concurrency: 1 }) });
    const started = Date.now();
    await Promise.all([f.fetch('http://docs.test/a', { force: true }), f.fetch('http://docs.test/a', { force: true }), f.fetch('http://docs.test/a', { force: true })]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('gives up with url_rate_limited when the domain queue outlasts the budget', async () => {
    const limiter = new LocalDomainLimiter({ ratePerSecond: 1, burst: 1, concurrency: 1 });
    const hold = await limiter.acquire('docs.test');
    try {
      const error = await failure(fetcher({ limiter, retryBudgetMs: 200 }).fetch('http://docs.test/a'));
      expect(error).toMatchObject({ kind: 'url_rate_limited', permanent: false });
    } finally {
      hold();
    }
  });
});

describe('SafeFetcher: cache (rule 7)', () => {
  let now: Date;
  const clock = () => now;
  beforeEach(() => {
    now = new Date('2026-01-01T00:00:00Z');
  });

  it('serves a fresh hit without a request, a lookup or a limiter slot', async () => {
    serve('docs.test/doc', 200, { 'content-type': 'text/html', etag: '"v1"' }, html('Doc', '<p>version 1</p>'));
    const cache = new MemoryDocumentCache();
    const limiter = new LocalDomainLimiter({ ratePerSecond: 10_000, concurrency: 100 });
    const acquire = jest.spyOn(limiter, 'acquire');
    const f = fetcher({ cache, limiter, now: clock });
    const first = await f.fetch('http://docs.test/doc');
    now = new Date(now.getTime() + 23 * 3_600_000);
    const second = await f.fetch('http://docs.test/doc#frag');
    expect(first.fromCache).toBe(false);
    expect(second).toEqual({ ...first, fromCache: true });
    expect(origin.requests).toHaveLength(1);
    expect(net.lookups).toHaveLength(1);
    expect(acquire).toHaveBeenCalledTimes(1);
    const stored = await cache.get('http://docs.test/doc');
    expect(stored).toMatchObject({ etag: '"v1"', expiresAt: new Date('2026-01-02T00:00:00Z'), text: 'version 1' });
    expect(stored?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('after expiry, refreshes with a conditional GET; a 304 keeps the cached text', async () => {
    let version = 1;
    handlers.set('docs.test/doc', (req, res) => {
      if (req.headers['if-none-match'] === `"v${version}"`) {
        res.writeHead(304, { etag: `"v${version}"` });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', etag: `"v${version}"`, 'last-modified': 'Wed, 31 Dec 2025 00:00:00 GMT' });
      res.end(`version ${version}`);
    });
    const cache = new MemoryDocumentCache();
    const f = fetcher({ cache, now: clock, cacheTtlMs: 60_000 });
    await f.fetch('http://docs.test/doc');

    now = new Date(now.getTime() + 61_000);
    const refreshed = await f.fetch('http://docs.test/doc');
    expect(refreshed).toMatchObject({ text: 'version 1', fromCache: true, fetchedAt: now.toISOString() });
    expect(origin.requests[1].headers).toMatchObject({ 'if-none-match': '"v1"', 'if-modified-since': 'Wed, 31 Dec 2025 00:00:00 GMT' });
    expect((await cache.get('http://docs.test/doc'))?.expiresAt).toEqual(new Date(now.getTime() + 60_000));

    version = 2;
    now = new Date(now.getTime() + 61_000);
    const changed = await f.fetch('http://docs.test/doc');
    expect(changed).toMatchObject({ text: 'version 2', fromCache: false });
    expect(origin.requests).toHaveLength(3);
  });

  it('force bypasses a fresh entry, without conditional headers, and stores the new result', async () => {
    let version = 1;
    handlers.set('docs.test/doc', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', etag: '"same"' });
      res.end(`version ${version}`);
    });
    const cache = new MemoryDocumentCache();
    const f = fetcher({ cache, now: clock });
    await f.fetch('http://docs.test/doc');
    version = 2;
    const forced = await f.fetch('http://docs.test/doc', { force: true });
    expect(forced).toMatchObject({ text: 'version 2', fromCache: false });
    expect(origin.requests[1].headers['if-none-match']).toBeUndefined();
    expect(await f.fetch('http://docs.test/doc')).toMatchObject({ text: 'version 2', fromCache: true });
  });

  it('sends conditional headers only to the URL the cached text came from', async () => {
    serve('docs.test/old', 301, { location: '/new' });
    handlers.set('docs.test/new', (req, res) => {
      if (req.headers['if-none-match'] === '"n1"') {
        res.writeHead(304, {});
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', etag: '"n1"' });
      res.end('moved content');
    });
    const cache = new MemoryDocumentCache();
    const f = fetcher({ cache, now: clock, cacheTtlMs: 1_000 });
    await f.fetch('http://docs.test/old');
    now = new Date(now.getTime() + 2_000);
    const result = await f.fetch('http://docs.test/old');
    expect(result).toMatchObject({ text: 'moved content', fromCache: true, finalUrl: 'http://docs.test/new', redirects: ['http://docs.test/new'] });
    expect(origin.requests.map((request) => [request.url, request.headers['if-none-match']])).toEqual([
      ['/old', undefined],
      ['/new', undefined],
      ['/old', undefined],
      ['/new', '"n1"'],
    ]);
  });
});
