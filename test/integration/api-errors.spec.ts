import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

describe('bad requests get typed 4xx errors and never a 500', () => {
  let stack: TestStack;
  let root: string;
  beforeAll(async () => {
    root = makeTree({ 'a.ts': 'x\n' });
    stack = await TestStack.start({ workspaceRoots: [root], maxBodyBytes: 10_000 }, { worker: false });
  });
  afterAll(() => stack.close());

  const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
    ['missing root', () => stack.submit('scan', {}), 400, 'input_invalid'],
    ['root of the wrong type', () => stack.submit('scan', { root: 42 }), 400, 'input_invalid'],
    ['relative root', () => stack.submit('scan', { root: 'some/repo' }), 400, 'path_not_absolute'],
    ['root outside the allowed roots', () => stack.submit('scan', { root: os.tmpdir() }), 403, 'path_outside_root'],
    ['root that does not exist', () => stack.submit('scan', { root: path.join(root, 'nope') }), 404, 'root_not_found'],
    ['root that is a file', () => stack.submit('scan', { root: path.join(root, 'a.ts') }), 422, 'root_not_directory'],
    ['unknown kind', () => stack.submit('scna', { root }), 400, 'kind_unknown'],
    ['detect with an unknown mode', () => stack.submit('detect', { root, mode: 'guess' }), 400, 'input_invalid'],
    ['detect of a root outside the allowed roots', () => stack.submit('detect', { root: os.tmpdir() }), 403, 'path_outside_root'],
    ['missing kind', () => stack.request('POST', '/v1/jobs', { input: { root } }), 400, 'input_invalid'],
    ['body that is not JSON', () => stack.request('POST', '/v1/jobs', '{"kind": "scan",', { 'content-type': 'application/json' }), 400, 'input_invalid'],
    ['huge body', () => stack.submit('scan', { root, padding: 'x'.repeat(20_000) }), 413, 'body_too_large'],
    ['unknown job id', () => stack.request('GET', '/v1/jobs/00000000-0000-4000-8000-000000000000'), 404, 'job_not_found'],
    ['malformed job id', () => stack.request('GET', '/v1/jobs/not-a-uuid'), 404, 'job_not_found'],
    ['cancel of an unknown job', () => stack.request('POST', '/v1/jobs/00000000-0000-4000-8000-000000000000/cancel'), 404, 'job_not_found'],
    ['bad list filter', () => stack.request('GET', '/v1/jobs?status=exploded'), 400, 'input_invalid'],
    ['bad list limit', () => stack.request('GET', '/v1/jobs?limit=100000'), 400, 'input_invalid'],
    ['forged cursor', () => stack.request('GET', '/v1/jobs?cursor=bm9wZQ'), 400, 'cursor_invalid'],
    ['unknown route', () => stack.request('GET', '/v2/nothing'), 404, 'not_found'],
  ];

  it.each(cases)('%s', async (_name, send, status, kind) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ kind });
    expect(typeof response.body.message).toBe('string');
  });

  it('suggests the closest kind for a typo', async () => {
    const response = await stack.submit('scna', { root });
    expect(response.body.suggestion).toContain('"scan"');
  });

  it('says which roots are allowed', async () => {
    const response = await stack.submit('scan', { root: os.tmpdir() });
    expect(response.body.message).toContain(root);
    expect(response.body.suggestion).toContain('QUARRY_WORKSPACE_ROOTS');
  });

  it('refuses a symlink inside an allowed root that points outside it', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-outside-'));
    fs.symlinkSync(outside, path.join(root, 'escape'));
    const response = await stack.submit('scan', { root: path.join(root, 'escape') });
    expect(response.status).toBe(403);
    expect(response.body.kind).toBe('path_outside_root');
  });

  it('stores no row for a refused request', async () => {
    const before = await stack.prisma.job.count();
    await stack.submit('scan', { root: 'relative' });
    await stack.submit('scna', { root });
    expect(await stack.prisma.job.count()).toBe(before);
  });

  it('pages through jobs newest first with a stable cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await stack.submit('scan', { root })).body.id);
    const first = await stack.request('GET', '/v1/jobs?limit=2&kind=scan');
    expect(first.status).toBe(200);
    expect(first.body.items.map((job: { id: string }) => job.id)).toEqual([ids[4], ids[3]]);
    const second = await stack.request('GET', `/v1/jobs?limit=2&kind=scan&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((job: { id: string }) => job.id)).toEqual([ids[2], ids[1]]);
    const byStatus = await stack.request('GET', '/v1/jobs?status=succeeded&limit=200');
    expect(byStatus.body.items.every((job: { status: string }) => job.status === 'succeeded')).toBe(true);
  });
});

/** Raw bytes on a TCP connection: what fetch cannot send (a broken Content-Length, a bad chunk, an Expect). */
function rawHttp(url: string, text: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    let answer = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      try {
        resolve({ status, body: JSON.parse(text) });
      } catch {
        resolve({ status, body: text });
      }
    });
  });
}

describe('every header, query parameter, date and body encoding the gateway decodes: a typed 4xx, never a 500', () => {
  let stack: TestStack;
  let root: string;
  const id = '00000000-0000-4000-8000-000000000000';
  const cursor = (text: string) => Buffer.from(text).toString('base64url');
  beforeAll(async () => {
    root = makeTree({ 'a.ts': 'x\n' });
    stack = await TestStack.start({ workspaceRoots: [root], maxBodyBytes: 10_000 }, { worker: false });
  });
  afterAll(() => stack.close());

  const json = { 'content-type': 'application/json' };
  const scan = () => JSON.stringify({ kind: 'scan', input: { root } });
  const post = (headers: Record<string, string>, body: string | Buffer, where = '/v1/jobs') =>
    fetch(stack.url + where, { method: 'POST', headers, body }).then(async (response) => ({ status: response.status, body: await response.json() }));

  const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
    // Content-Encoding: data that is not what the header says, encodings body-parser does not know.
    ['gzip that is not gzip', () => post({ ...json, 'content-encoding': 'gzip' }, scan()), 400, 'body_encoding_invalid'],
    ['br that is not brotli', () => post({ ...json, 'content-encoding': 'br' }, scan()), 400, 'body_encoding_invalid'],
    ['deflate that is not deflate', () => post({ ...json, 'content-encoding': 'deflate' }, scan()), 400, 'body_encoding_invalid'],
    ['gzip cut short', () => post({ ...json, 'content-encoding': 'gzip' }, zlib.gzipSync(scan()).subarray(0, 20)), 400, 'body_encoding_invalid'],
    ['gzip that is not gzip, to /v1/search', () => post({ ...json, 'content-encoding': 'gzip' }, '{}', '/v1/search'), 400, 'body_encoding_invalid'],
    ['gzip that is not gzip, to /mcp', () => post({ ...json, 'content-encoding': 'gzip' }, '{}', '/mcp'), 400, 'body_encoding_invalid'],
    ['a gzip bomb', () => post({ ...json, 'content-encoding': 'gzip' }, zlib.gzipSync(`{"x":"${'x'.repeat(200_000)}"}`)), 413, 'body_too_large'],
    ['an unknown encoding', () => post({ ...json, 'content-encoding': 'zstd' }, scan()), 415, 'body_encoding_unsupported'],
    ['two encodings', () => post({ ...json, 'content-encoding': 'gzip, gzip' }, zlib.gzipSync(zlib.gzipSync(scan()))), 415, 'body_encoding_unsupported'],
    // Content-Type's charset.
    ['a charset iconv does not know', () => post({ 'content-type': 'application/json; charset=bogus' }, scan()), 415, 'body_encoding_unsupported'],
    ['a charset JSON is never sent in', () => post({ 'content-type': 'application/json; charset=latin1' }, scan()), 415, 'body_encoding_unsupported'],
    // Text Postgres cannot store, in every kind's input and in a batch.
    ['a NUL in an interpret query', () => stack.submit('interpret', { root, query: 'find a\u0000b' }), 400, 'input_invalid'],
    ['half a surrogate pair in a mentions prompt', () => post(json, `{"kind":"mentions","input":{"root":${JSON.stringify(root)},"prompt":"see \\ud800 @a.ts"}}`), 400, 'input_invalid'],
    ['a NUL in a root', () => stack.submit('scan', { root: `${root}/\u0000` }), 400, 'input_invalid'],
    ['a NUL in a batch item', () => stack.request('POST', '/v1/jobs/batch', { jobs: [{ kind: 'interpret', input: { root, query: 'a\u0000' } }] }), 400, 'batch_rejected'],
    // The cursor's date: JavaScript parses these, Postgres cannot hold them.
    ['a cursor dated year 0', () => stack.request('GET', `/v1/jobs?cursor=${cursor(`0000-01-01T00:00:00.000Z|${id}`)}`), 400, 'cursor_invalid'],
    ['a cursor dated −271821', () => stack.request('GET', `/v1/jobs?cursor=${cursor(`-271821-04-20T00:00:00.000Z|${id}`)}`), 400, 'cursor_invalid'],
    ['a cursor dated 100 BC', () => stack.request('GET', `/v1/jobs?cursor=${cursor(`-000100-01-01T00:00:00.000Z|${id}`)}`), 400, 'cursor_invalid'],
    ['a cursor dated +275760', () => stack.request('GET', `/v1/jobs?cursor=${cursor(`+275760-09-13T00:00:00.000Z|${id}`)}`), 400, 'cursor_invalid'],
    ['a cursor whose date is a bare number', () => stack.request('GET', `/v1/jobs?cursor=${cursor(`1|${id}`)}`), 400, 'cursor_invalid'],
    ['a cursor given twice', () => stack.request('GET', '/v1/jobs?cursor=a&cursor=b'), 400, 'input_invalid'],
    // The other query parameters.
    ['a limit of Infinity', () => stack.request('GET', '/v1/jobs?limit=1e400'), 400, 'input_invalid'],
    ['an empty limit', () => stack.request('GET', '/v1/jobs?limit='), 400, 'input_invalid'],
    ['a kind that is broken percent-encoding', () => stack.request('GET', '/v1/jobs?kind=%E0%A4%A'), 400, 'input_invalid'],
    ['a status given twice', () => stack.request('GET', '/v1/jobs?status=queued&status=failed'), 400, 'input_invalid'],
    ['a job id that is broken percent-encoding', () => stack.request('GET', '/v1/jobs/%E0%A4%A'), 400, 'input_invalid'],
    // What Node's HTTP parser refuses before Express runs.
    ['a Content-Length that is not a number', () => rawHttp(stack.url, 'POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n'), 400, 'input_invalid'],
    ['both Content-Length and chunked', () => rawHttp(stack.url, 'POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n'), 400, 'input_invalid'],
    ['a chunk size that is not hex', () => rawHttp(stack.url, 'POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n'), 400, 'input_invalid'],
    ['headers over the limit', () => rawHttp(stack.url, `GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'headers_too_large'],
    ['an Expect other than 100-continue', () => rawHttp(stack.url, 'POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: sorcery\r\nContent-Length: 0\r\n\r\n'), 417, 'input_invalid'],
  ];

  it.each(cases)('%s', async (_name, send, status, kind) => {
    const response = await send();
    expect({ status: response.status, kind: response.body?.kind }).toEqual({ status, kind });
    expect(typeof response.body.message).toBe('string');
  });

  it('still takes a body that is really gzip, and names the field holding bad text', async () => {
    expect((await post({ ...json, 'content-encoding': 'gzip' }, zlib.gzipSync(scan()))).status).toBe(202);
    // Other files share this database: what counts is that the refusal added no row.
    const before = await stack.prisma.job.count({ where: { kind: 'interpret' } });
    const refused = await stack.submit('interpret', { root, query: 'find a\u0000b' });
    expect(refused.body.message).toContain('input.query');
    expect(await stack.prisma.job.count({ where: { kind: 'interpret' } })).toBe(before);
  });
});

describe('when Postgres is unreachable', () => {
  let stack: TestStack;
  beforeAll(async () => {
    const root = makeTree({ 'a.ts': 'x\n' });
    stack = await TestStack.start({ workspaceRoots: [root], databaseUrl: 'postgresql://postgres@127.0.0.1:9/quarry_test' }, { worker: false });
  });
  afterAll(() => stack.close());

  it('answers 503 unavailable, not 500, and /ready says which engine is down', async () => {
    const submitted = await stack.submit('scan', { root: stack.config.workspaceRoots[0] });
    expect(submitted.status).toBe(503);
    expect(submitted.body).toMatchObject({ kind: 'unavailable' });
    const ready = await stack.request('GET', '/ready');
    expect(ready).toEqual({ status: 503, body: { status: 'unavailable', redis: 'up', postgres: 'down' } });
  });
});
