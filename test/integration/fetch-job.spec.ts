import dns from 'node:dns/promises';
import os from 'node:os';
import { TestStack } from '../support/stack';
import { FakeOrigin } from '../support/origin';

const page = '<html><head><title>Guide</title><style>.x{}</style></head><body><nav>menu</nav><h1>Install</h1><p>Run <b>npm ci</b>.</p><script>evil()</script></body></html>';

describe('the fetch job', () => {
  let origin: FakeOrigin;
  let stack: TestStack;

  beforeAll(async () => {
    origin = await FakeOrigin.start({
      '/guide': (_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"v1"' }).end(page),
      '/image': (_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(10)),
      '/moved': (_request, response) => response.writeHead(302, { location: '/guide' }).end(),
    });
    stack = await TestStack.start({ fetch: { ...TestStack.defaults().fetch, allow: ['127.0.0.1/32'] } });
  });
  afterAll(async () => {
    await stack.close();
    await origin.close();
  });

  it('fetches a page as readable text, then serves it from the shared cache', async () => {
    const url = origin.url('/guide');
    const first = await stack.submit('fetch', { url });
    expect(first.status).toBe(202);
    const done = await stack.waitForStatus(first.body.id, ['succeeded', 'failed']);
    expect(done.error).toBeNull();
    expect(done.result).toMatchObject({ url, finalUrl: url, status: 200, title: 'Guide', fromCache: false, truncated: false });
    const text = (done.result as { text: string }).text;
    expect(text).toContain('Install');
    expect(text).toContain('npm ci');
    expect(text).not.toContain('evil()');
    expect(text).not.toContain('menu');
    expect(origin.hits.get('/guide')).toBe(1);

    const again = await stack.submit('fetch', { url });
    const cached = await stack.waitForStatus(again.body.id, ['succeeded', 'failed']);
    expect(cached.result).toMatchObject({ fromCache: true, title: 'Guide', text });
    expect(origin.hits.get('/guide')).toBe(1);
    const row = await stack.prisma.fetchedDocument.findUnique({ where: { url } });
    expect(row).toMatchObject({ status: 200, etag: '"v1"', title: 'Guide' });

    const forced = await stack.submit('fetch', { url, force: true });
    expect((await stack.waitForStatus(forced.body.id, ['succeeded'])).result).toMatchObject({ fromCache: false });
    expect(origin.hits.get('/guide')).toBe(2);
  });

  it('follows redirects and reports them', async () => {
    const { body } = await stack.submit('fetch', { url: origin.url('/moved') });
    const job = await stack.waitForStatus(body.id, ['succeeded', 'failed']);
    expect(job.result).toMatchObject({ finalUrl: origin.url('/guide'), redirects: [origin.url('/guide')] });
  });

  it.each([
    ['a scheme other than http(s)', 'ftp://example.org/file', 'url_invalid'],
    ['credentials in the URL', 'https://user:pw@example.org/', 'url_invalid'],
    ['a private literal address', 'http://10.1.2.3/', 'url_blocked'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/', 'url_blocked'],
    ['localhost', 'http://localhost:8080/', 'url_blocked'],
    ['a port below 1024 other than 80 and 443', 'http://example.org:22/', 'url_invalid'],
  ])('refuses %s at submission, before any I/O', async (_name, url, kind) => {
    const before = await stack.prisma.job.count();
    const response = await stack.submit('fetch', { url });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ kind });
    expect(await stack.prisma.job.count()).toBe(before);
  });

  it('fails permanently, without retrying, on an unsupported content type and on a 404', async () => {
    const image = await stack.submit('fetch', { url: origin.url('/image') });
    const refused = await stack.waitForStatus(image.body.id, ['failed', 'succeeded']);
    expect(refused).toMatchObject({ status: 'failed', attempts: 1, error: { kind: 'content_type_refused' } });

    const missing = await stack.submit('fetch', { url: origin.url('/nothing-here') });
    const failed = await stack.waitForStatus(missing.body.id, ['failed', 'succeeded']);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, error: { kind: 'url_http_error' } });
    expect(failed.error?.message).toContain('404');
  });
});

describe('the fetch job without an allow list', () => {
  let origin: FakeOrigin;
  let stack: TestStack;
  beforeAll(async () => {
    origin = await FakeOrigin.start({ '/': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('secret') });
    stack = await TestStack.start();
  });
  afterAll(async () => {
    await stack.close();
    await origin.close();
  });

  it('refuses a loopback literal at submission', async () => {
    const response = await stack.submit('fetch', { url: origin.url('/') });
    expect(response.status).toBe(400);
    expect(response.body.kind).toBe('url_blocked');
  });

  it('refuses, at connect time, a name that resolves to loopback, and never reaches the origin', async () => {
    // This machine's own name resolves to a loopback address through /etc/hosts.
    const name = os.hostname();
    const answers = await dns.lookup(name, { all: true }).catch(() => []);
    if (!answers.some((answer) => answer.address.startsWith('127.') || answer.address === '::1')) {
      throw new Error(`expected ${name} to resolve to loopback on this machine; got ${JSON.stringify(answers)}`);
    }
    const { status, body } = await stack.submit('fetch', { url: origin.url('/', name) });
    expect(status).toBe(202);
    const job = await stack.waitForStatus(body.id, ['failed', 'succeeded']);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error: { kind: 'url_blocked' } });
    expect(job.error?.message).toMatch(/127\.0\.0\.1|::1/);
    expect(origin.hits.size).toBe(0);
  });
});
