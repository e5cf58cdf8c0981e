import { interpretResultSchema, type JobProgress } from '../../libs/contracts/src';
import { FakeChatServer } from '../../libs/llm/src/testing';
import { FakeOrigin } from '../support/origin';
import { TestStack, waitFor, type EventsSocket } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * The interpret job through the real gateway, queues, worker and Postgres: the AI planner against
 * a chat-completions server on 127.0.0.1 (scripted answers, including broken ones), the rule
 * fallback, and the tools run on a real workspace — fetch_url as a child fetch job.
 */

const SLOTS = ['directory', 'recursive', 'pattern', 'hidden', 'max_results', 'path', 'start_line', 'end_line', 'query', 'glob', 'task', 'url'];
const step = (name: string, args: Record<string, unknown>, confidence = 0.9) => ({ name, args: { ...Object.fromEntries(SLOTS.map((slot) => [slot, null])), ...args }, confidence });
const plan = (...tools: ReturnType<typeof step>[]) => ({ needs_tools: tools.length > 0, rationale: 'scripted', tools });

describe('the interpret job', () => {
  let llm: FakeChatServer;
  let origin: FakeOrigin;
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    llm = await FakeChatServer.start();
    origin = await FakeOrigin.start({ '/changelog': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('v2: faster scans') });
    root = makeTree({
      'package.json': JSON.stringify({ name: 'shop', dependencies: { express: '4' } }),
      'src/app.ts': 'import { fetchUser } from "./api/users";\nexport const app = 1;\nexport const three = 3;\n',
      'src/api/users.ts': 'export async function fetchUser(id: string) {\n  return id;\n}\n',
      'README.md': '# shop\n',
    });
    stack = await TestStack.start({
      workspaceRoots: [root],
      llm: { baseUrl: llm.baseUrl, model: 'planner-model', timeoutMs: 2_000, maxRetries: 1, temperature: 0, retryBaseMs: 10 },
      fetch: { ...TestStack.defaults().fetch, allow: ['127.0.0.1/32'] },
    });
  });
  afterEach(() => llm.reset());
  afterAll(async () => {
    await stack.close();
    await llm.close();
    await origin.close();
  });

  async function ask(input: Record<string, unknown>) {
    const { status, body } = await stack.submit('interpret', { root, ...input });
    expect(status).toBe(202);
    const job = await stack.waitForStatus(body.id, ['succeeded', 'failed']);
    expect(job.error).toBeNull();
    return { id: body.id as string, result: interpretResultSchema.parse(job.result) };
  }

  it('runs the AI plan: two independent steps, both through the workspace libraries', async () => {
    llm.reply(plan(step('search', { query: 'fetchUser', directory: 'src' }), step('read_file', { path: 'src/app.ts', start_line: 2, end_line: 3 })));
    const { result } = await ask({ query: 'where is fetchUser used, and show lines 2-3 of src/app.ts' });
    expect(result.source).toBe('ai');
    expect(result.results.map((entry) => [entry.tool, entry.ok])).toEqual([['search', true], ['read_file', true]]);
    expect(result.results[0].output).toMatchObject({ totalMatches: 2 });
    expect(result.results[1].output).toMatchObject({ text: 'export const app = 1;\nexport const three = 3;\n', range: { start: 2, end: 3 } });
    expect(llm.requests[0].body.response_format.json_schema.name).toBe('tool_plan');
  });

  it('a malformed AI answer falls back to the rules, and the result says why', async () => {
    llm.malformed();
    const { result } = await ask({ query: 'cat README.md' });
    expect(result.source).toBe('rules');
    expect(result.plan.notes).toMatch(/AI planner not used/);
    expect(result.results).toEqual([expect.objectContaining({ tool: 'read_file', ok: true, output: expect.objectContaining({ text: '# shop\n' }) })]);
  });

  it('a hallucinated path is repaired or dropped, never read outside the root', async () => {
    llm.reply(plan(step('read_file', { path: '../../etc/passwd' }), step('list_files', { directory: 'src/apis' })));
    const { result } = await ask({ query: 'show me the api folder' });
    expect(result.dropped).toEqual([expect.objectContaining({ tool: 'read_file', reason: expect.stringMatching(/out of the workspace root/) })]);
    expect(result.plan.tools).toEqual([expect.objectContaining({ name: 'list_files', args: expect.objectContaining({ directory: 'src/api' }) })]);
    expect(result.results[0]).toMatchObject({ ok: true, output: { entries: [expect.objectContaining({ path: 'src/api/users.ts' })] } });
  });

  it('rules only (ai: off): "what framework is this?" runs detect_stack, with live progress', async () => {
    await stack.stopWorker();
    const { body } = await stack.submit('interpret', { root, query: 'what framework is this?', ai: 'off' });
    const socket = await stack.connect();
    const seen: Array<{ event: string; payload: any }> = [];
    (socket as EventsSocket).onAny((event, payload) => seen.push({ event, payload }));
    await new Promise((resolve) => socket.emit('subscribe', { jobId: body.id }, resolve));
    await stack.startWorker();
    await waitFor(() => seen.some((entry) => entry.event === 'job.completed' || entry.event === 'job.failed'), 30_000, 'job end');
    const result = interpretResultSchema.parse(seen.find((entry) => entry.event === 'job.completed')?.payload.result);
    expect(result.source).toBe('rules');
    expect(llm.requests).toHaveLength(0);
    expect(result.results).toEqual([expect.objectContaining({ tool: 'detect_stack', ok: true })]);
    expect(result.results[0].output).toMatchObject([{ metadata: { framework: 'express' } }]);
    const progress = seen.filter((entry) => entry.event === 'job.progress').map((entry) => entry.payload.progress as JobProgress);
    expect(progress.length).toBeGreaterThan(0);
  });

  it('fetch_url runs as a child fetch job of the interpret job', async () => {
    llm.reply(plan(step('fetch_url', { url: origin.url('/changelog') })));
    const { id, result } = await ask({ query: `what does ${origin.url('/changelog')} say?` });
    expect(result.results[0]).toMatchObject({ tool: 'fetch_url', ok: true, output: { text: 'v2: faster scans' } });
    expect(await stack.prisma.job.findMany({ where: { parentId: id } })).toEqual([expect.objectContaining({ kind: 'fetch', status: 'succeeded' })]);
  });

  it('execute: false returns the plan without running it; a how-to question needs no tool', async () => {
    llm.reply(plan(step('list_files', { directory: 'src' })));
    const planned = await ask({ query: 'list src', execute: false });
    expect(planned.result.plan.tools).toHaveLength(1);
    expect(planned.result.results).toEqual([]);
    const howTo = await ask({ query: 'how do I list files in bash?', ai: 'off' });
    expect(howTo.result.plan.needs_tools).toBe(false);
    expect(howTo.result.results).toEqual([]);
  });

  it('ai: only with a model that is down fails the job with llm_unavailable', async () => {
    llm.fail(503).fail(503).fail(503).fail(503);
    const { body } = await stack.submit('interpret', { root, query: 'list src', ai: 'only' });
    const job = await stack.waitForStatus(body.id, ['succeeded', 'failed'], 30_000);
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ kind: 'llm_unavailable' });
  });

  it.each([
    ['an empty query', { query: '' }, 400, 'input_invalid'],
    ['a blank query', { query: '  \n ' }, 400, 'input_invalid'],
    ['a 10 kB query', { query: 'where is fetchUser defined? '.repeat(380) }, 400, 'input_invalid'],
    ['an unknown ai mode', { query: 'list src', ai: 'sometimes' }, 400, 'input_invalid'],
    ['a root outside the allowed roots', { query: 'list', root: '/etc' }, 403, 'path_outside_root'],
  ])('refuses %s with a typed 4xx', async (_name, input, status, kind) => {
    const response = await stack.submit('interpret', { root, ...input });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ kind });
  });
});
