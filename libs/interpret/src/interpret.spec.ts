import { z } from 'zod';
import { LlmClient } from '@quarry/llm';
import { QuarryError } from '@quarry/contracts';
import { interpretResultSchema } from '@quarry/contracts';
import { FakeChatServer } from '../../llm/src/testing';
import { makeTempTree, removeTempTree } from '../../workspace/src/testing/temp-tree';
import { interpretQuery, type InterpretOptions } from './interpret';
import type { ToolHost } from './executor';
import { defaultToolRegistry } from './tools';

const SLOTS = ['directory', 'recursive', 'pattern', 'hidden', 'max_results', 'path', 'start_line', 'end_line', 'query', 'glob', 'task', 'url'];
/** A model answer in the strict shape: every argument slot present, unused ones null. */
function aiStep(name: string, args: Record<string, unknown>, confidence = 0.9) {
  return { name, args: { ...Object.fromEntries(SLOTS.map((slot) => [slot, null])), ...args }, confidence };
}
const aiPlan = (...tools: ReturnType<typeof aiStep>[]) => ({ needs_tools: tools.length > 0, rationale: 'scripted', tools });

describe('interpretQuery', () => {
  let server: FakeChatServer;
  let llm: LlmClient;
  let root: string;
  const calls: Array<[string, Record<string, unknown>]> = [];
  const host: ToolHost = Object.fromEntries(
    defaultToolRegistry()
      .names()
      .map((name) => [name, async (args: Record<string, unknown>) => (calls.push([name, args]), { ran: name })]),
  );

  beforeAll(async () => {
    server = await FakeChatServer.start();
    llm = new LlmClient({ baseUrl: server.baseUrl, model: 'test-model', timeoutMs: 2_000, maxRetries: 2, retryBaseMs: 5 });
    root = await makeTempTree({
      'README.md': '# hi\n',
      'src/app.ts': 'export {};\n',
      'src/a.ts': '',
      'lib/a.ts': '',
      'src/api/users.ts': 'export function fetchUser() {}\n',
      'docs/guide.md': 'guide\n',
    });
  });
  afterAll(async () => {
    await server.close();
    await removeTempTree(root);
  });
  beforeEach(() => {
    server.reset();
    calls.length = 0;
  });

  const ask = (query: string, options: Partial<InterpretOptions> = {}) =>
    interpretQuery({ query, root, llm, ai: 'auto', execute: true, host, aiTimeoutMs: 1_000, ...options });

  it('runs a valid AI plan, asking once at temperature 0 with a strict schema and the workspace in the prompt', async () => {
    server.reply(aiPlan(aiStep('search', { query: 'fetchUser', directory: 'src/api' })));
    const result = await ask('which files mention fetchUser in the api folder?', { context: { activeFile: 'src/app.ts' } });
    expect(interpretResultSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({ source: 'ai', dropped: [], plan: { needs_tools: true, tools: [{ name: 'search', args: { query: 'fetchUser', directory: 'src/api' } }] } });
    expect(result.results).toEqual([{ tool: 'search', ok: true, output: { ran: 'search' } }]);
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0].body;
    expect(body.temperature).toBe(0);
    expect(body.response_format.json_schema).toMatchObject({ name: 'tool_plan', strict: true });
    const schema = body.response_format.json_schema.schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.tools.items.properties.name.enum).toEqual(defaultToolRegistry().names());
    expect(schema.properties.tools.items.properties.args.required).toEqual(SLOTS);
    const system: string = body.messages[0].content;
    expect(system).toContain('top level: README.md docs/ lib/ src/');
    expect(system).toContain('active file: src/app.ts');
    expect(body.messages[1]).toEqual({ role: 'user', content: 'which files mention fetchUser in the api folder?' });
  });

  it.each([
    ['malformed JSON', (fake: FakeChatServer) => fake.malformed(), /llm_invalid_output: .*not JSON/],
    ['prose instead of JSON', (fake: FakeChatServer) => fake.replyText('Sure, I will list the files.'), /not JSON/],
    ['a schema violation', (fake: FakeChatServer) => fake.reply({ needs_tools: true, tools: [{ name: 'list_files', args: { directory: 'src' }, confidence: 'high' }] }), /does not match tool_plan/],
    ['a refusal', (fake: FakeChatServer) => fake.refuse('no'), /refused/],
  ])('falls back to the rules on %s, saying why', async (_name, script, why) => {
    script(server);
    const result = await ask('list files in src');
    expect(result.source).toBe('rules');
    expect(result.plan.notes).toMatch(why);
    expect(result.plan.tools).toEqual([{ name: 'list_files', args: { directory: 'src' }, confidence: 0.9 }]);
    expect(calls).toEqual([['list_files', { directory: 'src' }]]);
  });

  it('falls back after one retry on 429s', async () => {
    server.fail(429, undefined, { 'retry-after': '0' }).fail(429, undefined, { 'retry-after': '0' }).fail(429);
    const result = await ask('cat README.md');
    expect(result.source).toBe('rules');
    expect(result.plan.notes).toMatch(/llm_unavailable: .*after 2 attempts/);
    expect(server.requests).toHaveLength(2);
    expect(result.plan.tools[0]).toMatchObject({ name: 'read_file', args: { path: 'README.md' } });
  });

  it('falls back when the model does not answer within the planner budget', async () => {
    server.hang(5_000).hang(5_000);
    const started = Date.now();
    const result = await ask('cat README.md', { aiTimeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.source).toBe('rules');
    expect(result.plan.notes).toMatch(/did not answer within 300 ms/);
  });

  it('drops unknown tools; with nothing left it uses the rules and keeps the record', async () => {
    server.reply(aiPlan(aiStep('run_shell', { query: 'rm -rf /' })));
    const result = await ask('rg TODO');
    expect(result.source).toBe('rules');
    expect(result.dropped).toEqual([{ tool: 'run_shell', reason: expect.stringContaining('unknown tool "run_shell"') }]);
    expect(result.plan.tools[0]).toMatchObject({ name: 'grep', args: { pattern: 'TODO' } });

    server.reply(aiPlan(aiStep('glob_files', { pattern: '*.md' }), aiStep('find_files', { pattern: '*.md' })));
    const mixed = await ask("find . -name '*.md'");
    expect(mixed.source).toBe('ai');
    expect(mixed.dropped.map((entry) => entry.tool)).toEqual(['glob_files']);
    expect(mixed.plan.tools.map((step) => step.name)).toEqual(['find_files']);
  });

  it('repairs hallucinated paths and notes the repair', async () => {
    server.reply(aiPlan(aiStep('read_file', { path: 'source/app.ts' }), aiStep('list_files', { directory: 'api' })));
    const result = await ask('show me app.ts and the api folder');
    expect(result.source).toBe('ai');
    expect(result.plan.tools.map((step) => step.args)).toEqual([{ path: 'src/app.ts' }, { directory: 'src/api' }]);
    expect(result.plan.notes).toMatch(/"source\/app.ts" not found; using src\/app.ts/);
  });

  it('never runs a path outside the root, whoever planned it', async () => {
    server.reply(aiPlan(aiStep('read_file', { path: '/etc/passwd' })));
    const result = await ask('cat /etc/passwd');
    expect(result.plan.tools).toEqual([]);
    expect(result.source).toBe('rules');
    expect(result.dropped).toEqual([{ tool: 'read_file', reason: '"/etc/passwd" is outside the workspace root' }]);
    expect(result.results).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('asks one specific question instead of running when unsure', async () => {
    const result = await ask('show me a.ts', { ai: 'off' });
    expect(result.plan.clarification).toBe('Which file do you mean: lib/a.ts or src/a.ts?');
    expect(result.results).toEqual([]);
    expect(calls).toEqual([]);

    const noActiveFile = await ask('show this file', { ai: 'off' });
    expect(noActiveFile.plan.clarification).toMatch(/^Which file do you mean by "this file"\? The editor context does not say/);
  });

  it('resolves context words before planning, from absolute or relative context paths', async () => {
    const result = await ask('what is in this directory?', { ai: 'off', context: { cwd: `${root}/src/api` } });
    expect(result.plan.tools).toEqual([{ name: 'list_files', args: { directory: 'src/api' }, confidence: 0.9 }]);
    const file = await ask('read lines 1-2 of the file above', { ai: 'off', context: { lastFile: 'docs/guide.md' } });
    expect(file.plan.tools[0].args).toEqual({ path: 'docs/guide.md', start_line: 1, end_line: 2 });
  });

  it('makes no LLM call with ai "off", and returns the plan alone when execute is false', async () => {
    const result = await ask('ls src', { ai: 'off', execute: false });
    expect(server.requests).toHaveLength(0);
    expect(result).toMatchObject({ source: 'rules', results: [], plan: { tools: [{ name: 'list_files' }] } });
    expect(calls).toEqual([]);
  });

  it('with ai "only", a missing or failing LLM is a typed llm_unavailable error, not rules', async () => {
    await expect(ask('ls src', { ai: 'only', llm: undefined })).rejects.toMatchObject({ kind: 'llm_unavailable' });
    server.malformed();
    const failure = await ask('ls src', { ai: 'only' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QuarryError);
    expect(failure).toMatchObject({ kind: 'llm_unavailable', message: expect.stringContaining('llm_invalid_output') });
  });

  it.each([
    ['an empty query', ''],
    ['a blank query', ' \n\t '],
    ['a 10 kB query', 'where is fetchUser defined? '.repeat(380)],
  ])('refuses %s with a typed input_invalid before planning or running anything', async (_name, query) => {
    const refused = interpretQuery({ query, root, llm, ai: 'auto', host });
    await expect(refused).rejects.toBeInstanceOf(QuarryError);
    await expect(refused).rejects.toMatchObject({ kind: 'input_invalid', permanent: true, suggestion: expect.any(String) });
    expect(server.requests).toHaveLength(0);
    expect(calls).toEqual([]);
  });

  it('answers a how-to question without tools', async () => {
    server.reply(aiPlan());
    const result = await ask('how do I list files in bash?');
    expect(result).toMatchObject({ source: 'ai', plan: { needs_tools: false, tools: [] }, results: [] });
  });

  it('reports progress while planning and per step', async () => {
    const progress: unknown[] = [];
    server.reply(aiPlan(aiStep('list_files', { directory: 'src' }), aiStep('read_file', { path: 'README.md' })));
    await ask('list src and show the readme', { onProgress: (update) => progress.push(update) });
    expect(progress[0]).toEqual({ done: 0, total: 1, stage: 'planning' });
    expect(progress.slice(1)).toEqual([
      { done: 1, total: 2, stage: expect.any(String) },
      { done: 2, total: 2, stage: expect.any(String) },
    ]);
  });

  it('returns a result that satisfies the contract', async () => {
    const result = await ask('search for fetchUser', { ai: 'off' });
    expect(() => interpretResultSchema.parse(result)).not.toThrow();
    expect(z.array(z.unknown()).parse(result.results)).toHaveLength(1);
  });
});
