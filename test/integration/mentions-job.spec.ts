import { mentionsResultSchema, type JobProgress } from '../../libs/contracts/src';
import { FakeOrigin } from '../support/origin';
import { TestStack, waitFor, type EventsSocket } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * The mentions job through the real gateway, queues, worker and Postgres: files and a grep from a
 * workspace, and a URL served by a local origin (allowed by the operator's allowlist) fetched as a
 * child fetch job; progress watched live on the socket.
 */

function record(socket: EventsSocket) {
  const seen: Array<{ event: string; payload: any }> = [];
  socket.onAny((event, payload) => seen.push({ event, payload }));
  return seen;
}

describe('the mentions job', () => {
  let origin: FakeOrigin;
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    origin = await FakeOrigin.start({
      '/guide': (_request, response) =>
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<title>Guide</title><h1>Retries</h1><p>Use exponential backoff.</p>'),
    });
    root = makeTree({
      'src/app.ts': Array.from({ length: 50 }, (_, index) => `export const v${index + 1} = ${index + 1}; // TODO(jo)`).join('\n') + '\n',
      'src/utils.ts': 'export const id = <T>(x: T) => x;\n',
      'src/use.ts': "import { id } from './utils';\nexport function one() {\n  return id(1);\n}\n",
      'docs/api.md': '# API\nGET /v1/jobs\n',
    });
    stack = await TestStack.start({ workspaceRoots: [root], fetch: { ...TestStack.defaults().fetch, allow: ['127.0.0.1/32'] } });
  });
  afterAll(async () => {
    await stack.close();
    await origin.close();
  });

  it('expands files, a grep and a URL (as a child fetch job), with live progress', async () => {
    const prompt = `Review @src/app.ts#L10-12 against @docs/api.md, @grep:"TODO\\(\\w+\\)" and @url:${origin.url('/guide')}`;
    await stack.stopWorker(); // subscribed before it runs, so every progress event is seen
    const { status, body } = await stack.submit('mentions', { root, prompt });
    expect(status).toBe(202);
    const socket = await stack.connect();
    const seen = record(socket);
    await new Promise((resolve) => socket.emit('subscribe', { jobId: body.id }, resolve));
    await stack.startWorker();
    await waitFor(() => seen.some((entry) => entry.event === 'job.completed' || entry.event === 'job.failed'), 30_000, 'job end');

    const completed = seen.find((entry) => entry.event === 'job.completed');
    const result = mentionsResultSchema.parse(completed?.payload.result);
    expect(result.mentions.map((mention) => [mention.kind, mention.status])).toEqual([
      ['file', 'loaded'],
      ['file', 'loaded'],
      ['grep', 'loaded'],
      ['url', 'loaded'],
    ]);
    expect(result.augmentedPrompt).toContain('File: src/app.ts (lines 10-12)');
    expect(result.augmentedPrompt).toContain('Use exponential backoff.');
    expect(result.coverage).toMatchObject({ files: 2, searches: 1, matches: 50, urls: 1 });

    const progress = seen.filter((entry) => entry.event === 'job.progress').map((entry) => entry.payload.progress as JobProgress);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((entry) => entry.stage === 'loading' && entry.total === 4)).toBe(true);

    // The URL went through the fetch queue as a child of this job, owned like it.
    const children = await stack.prisma.job.findMany({ where: { parentId: body.id } });
    expect(children).toEqual([expect.objectContaining({ kind: 'fetch', status: 'succeeded' })]);
    expect(origin.hits.get('/guide')).toBe(1);
  });

  it('a failed mention does not fail the job: missing files get suggestions, blocked URLs say why', async () => {
    const prompt = 'Fix @src/util.ts and read @url:http://10.1.2.3/admin and @docs/api.md';
    const { body } = await stack.submit('mentions', { root, prompt });
    const job = await stack.waitForStatus(body.id, ['succeeded', 'failed']);
    expect(job.status).toBe('succeeded');
    const result = mentionsResultSchema.parse(job.result);
    expect(result.errors.map((error) => [error.source, error.kind])).toEqual([
      ['@src/util.ts', 'file_not_found'],
      ['@url:http://10.1.2.3/admin', 'url_blocked'],
    ]);
    expect(result.errors[0].suggestion).toContain('src/utils.ts');
    expect(result.mentions[2]).toMatchObject({ status: 'loaded' });
    // Refused before any child job was made of it.
    expect(await stack.prisma.job.count({ where: { parentId: body.id } })).toBe(0);
  });

  it('expands @refs: into the uses of a definition, grouped by file; an unknown name fails with the closest', async () => {
    const { body } = await stack.submit('mentions', { root, prompt: 'Who uses @refs:id? Not @refs:idd.' });
    const job = await stack.waitForStatus(body.id, ['succeeded', 'failed']);
    expect(job.status).toBe('succeeded');
    const result = mentionsResultSchema.parse(job.result);
    expect(result.mentions.map((mention) => [mention.kind, mention.status, mention.references])).toEqual([
      ['refs', 'loaded', 2],
      ['refs', 'failed', undefined],
    ]);
    expect(result.augmentedPrompt).toContain('References: id (function) at src/utils.ts:1 (2 uses in 1 file)');
    expect(result.augmentedPrompt).toContain('src/use.ts\n  1:10  import { id } from \'./utils\';\n  3:10  return id(1);  [in one]');
    expect(result.errors).toEqual([expect.objectContaining({ source: '@refs:idd', kind: 'symbol_not_found', suggestion: expect.stringContaining('@refs:id') })]);
    expect(result.coverage.references).toBe(1);
  });

  it('POST /v1/mentions/parse answers the typed parse synchronously', async () => {
    const response = await stack.request('POST', '/v1/mentions/parse', { text: 'see @src/app.ts#L1-2 and @serach:"x" and me@example.com' });
    expect(response.status).toBe(200);
    expect(response.body.mentions).toEqual([expect.objectContaining({ kind: 'path', path: 'src/app.ts', range: { start: 1, end: 2 }, span: [4, 20] })]);
    expect(response.body.errors).toEqual([expect.objectContaining({ kind: 'mention_invalid', suggestion: expect.stringContaining('@search:') })]);
  });

  it.each([
    ['a parse request without text', () => stack.request('POST', '/v1/mentions/parse', { prompt: 'x' }), 400, 'input_invalid'],
    ['a mentions job without a prompt', () => stack.submit('mentions', { root }), 400, 'input_invalid'],
    ['a mentions job outside the allowed roots', () => stack.submit('mentions', { root: '/etc', prompt: '@passwd' }), 403, 'path_outside_root'],
    ['a budget that is not a positive number', () => stack.submit('mentions', { root, prompt: 'x', budget: { maxBytes: -1 } }), 400, 'input_invalid'],
  ])('refuses %s with a typed 4xx', async (_name, call, status, kind) => {
    const response = await call();
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ kind, message: expect.any(String) });
  });
});
