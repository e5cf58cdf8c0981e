import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JobKind, JobView } from '@quarry/contracts';
import type { QuarryBackend } from './backend';
import { BackendEndpoint } from './backend-endpoint';
import { answerTokens } from './paged-answer';
import { ToolTable } from './tool-table';
import { TOOLSET_NAMES } from './toolsets';

/*
 * Every job-backed tool within its budget, whatever its job returns: the paged ones cut and
 * continued by cursor (every line or item once), the others shortened and saying so. The jobs are
 * stand-ins returning large results of the real shapes (checked against the output schemas).
 */
const prose = (lines: number) => Array.from({ length: lines }, (_, n) => `line ${n + 1}: ${'the agent reads this text '.repeat(1 + (n % 4))}`).join('\n');
const index = { commit: 'c', dirty: 0, coverage: 1, building: false, read: 'index' as const };
const totals = { total: 1, encoding: 'o200k_base' as const, byLanguage: [], byDirectory: [], largestFiles: [] };
const service = (n: number) => ({
  version: '1',
  metadata: { project_name: `service-${n}`, path: `services/s${n}`, language: 'typescript', build_system: 'npm', confidence: 1, detected_by: 'static' as const, warnings: [] },
  workspace: { root: '.', members: [] },
  build: { commands: ['npm ci', 'npm run build'], cache: ['node_modules'], env: {} },
  runtime: { name: 'node', version: { source: 'package.json' }, ports: [3000] },
});

const RESULTS: Partial<Record<JobKind, unknown>> = {
  fetch: { url: 'https://example.org/', finalUrl: 'https://example.org/', status: 200, contentType: 'text/plain', text: prose(3_000), bytes: 1, truncated: false, fetchedAt: 'now', fromCache: false, redirects: [] },
  mentions: {
    augmentedPrompt: prose(2_500),
    mentions: [],
    errors: [],
    coverage: { files: 1, lines: 1, searches: 0, matches: 0, urls: 0, bytes: 1, estimatedTokens: 1, cut: [] },
  },
  context: {
    files: [],
    spans: [],
    context: prose(2_000),
    tokens: 1,
    budget: 8_000,
    encoding: 'o200k_base',
    task: { frames: [], paths: [], asksFor: [] },
    stats: { files: 1, chunks: 1, terms: 1, durationMs: 1 },
    warnings: [],
  },
  map: { text: prose(1_500), tokens: 1, encoding: 'o200k_base', files: [], totalFiles: 1, totalDefinitions: 1, focus: { paths: [], symbols: [] }, repository: totals },
  symbols: {
    definitions: Array.from({ length: 1_000 }, (_, n) => ({ path: `src/f${n}.ts`, name: `handler${n}`, kind: 'function', line: n + 1, startLine: n + 1, endLine: n + 3, signature: `function handler${n}(request: Request): Response` })),
    total: 1_000,
    truncated: false,
    files: 1_000,
  },
  detect: Array.from({ length: 150 }, (_, n) => service(n)),
  interpret: {
    plan: { needs_tools: true, tools: [{ name: 'read_file', args: {}, confidence: 1 }], rationale: 'read it' },
    source: 'rules',
    dropped: [],
    results: [{ tool: 'read_file', ok: true, output: { lines: prose(3_000).split('\n') } }],
  },
};

const job: JobView = { id: '5d1c0a8e-1111-4222-8333-444455556666', kind: 'fetch', status: 'succeeded', input: {}, result: null, error: null, progress: null, attempts: 1, parentId: null, createdAt: 'now', startedAt: null, finishedAt: null };
const backend: QuarryBackend = {
  defaultRepository: '/repo',
  runJob: async (kind) => ({ jobId: job.id, result: RESULTS[kind] as never }),
  runWorkspaceTool: async () => {
    throw new Error('not used');
  },
  indexState: async () => index,
  getJob: async () => {
    throw new Error('gone');
  },
  listJobs: async () => [],
  navigate: async () => {
    throw new Error('not used');
  },
};
const endpoint = new BackendEndpoint(backend, { tools: new ToolTable().withToolsets(TOOLSET_NAMES) });
const signal = new AbortController().signal;

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = await endpoint.callTool(name, args, { signal });
  if (result.isError) throw new Error(`${name}: ${(result.content[0] as { text: string }).text}`);
  return result;
}

/** Every page of a call; each within `maxTokens`. */
async function pages(name: string, args: Record<string, unknown>, maxTokens: number): Promise<CallToolResult[]> {
  const all: CallToolResult[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(name, { ...args, maxTokens, ...(cursor ? { cursor } : {}) });
    expect({ name, tokens: answerTokens(page) <= maxTokens }).toEqual({ name, tokens: true });
    all.push(page);
    cursor = (page.structuredContent as { nextCursor?: string }).nextCursor;
  } while (cursor && all.length < 400);
  expect(cursor).toBeUndefined();
  return all;
}

describe('job-backed tools within their budgets', () => {
  it.each([
    ['fetch_url', { url: 'https://example.org/' }, 'text', RESULTS.fetch],
    ['expand_mentions', { prompt: '@a.ts' }, 'augmentedPrompt', RESULTS.mentions],
    ['find_relevant_code', { task: 'why does it fail' }, 'context', RESULTS.context],
    ['repo_map', {}, 'text', RESULTS.map],
  ] as const)('%s: the document in pages, every line once', async (name, args, field, result) => {
    for (const maxTokens of [1_500, 8_000]) {
      const all = await pages(name, args, maxTokens);
      expect(all.length).toBeGreaterThan(1);
      const document = all.map((page) => (page.structuredContent as Record<string, string>)[field]).join('\n');
      expect(document).toBe((result as Record<string, string>)[field]);
    }
  });

  it.each([
    ['find_symbol', { name: 'handler' }, 'definitions', (RESULTS.symbols as { definitions: unknown[] }).definitions],
    ['detect_stack', {}, 'services', RESULTS.detect as unknown[]],
  ] as const)('%s: the list in pages, every item once', async (name, args, field, items) => {
    const all = await pages(name, args, 2_000);
    expect(all.flatMap((page) => (page.structuredContent as Record<string, unknown[]>)[field])).toEqual(items);
    expect(all[0].structuredContent).toMatchObject({ index, page: { first: 1, total: items.length } });
  });

  it('ask: a whole answer over the default budget is shortened and says so', async () => {
    const answer = await call('ask', { query: 'show it' });
    expect(answerTokens(answer)).toBeLessThanOrEqual(8_000);
    expect((answer.content[0] as { text: string }).text).toMatch(/cut to fit maxTokens 8000: .*quarry:\/\/jobs\//);
  });

  it('refuses maxTokens below 1,000 and caps it at 24,000', async () => {
    const refused = await endpoint.callTool('fetch_url', { url: 'https://example.org/', maxTokens: 999 }, { signal });
    expect(JSON.parse((refused.content[0] as { text: string }).text)).toMatchObject({ kind: 'input_invalid', message: expect.stringContaining('maxTokens') });
    const capped = await call('fetch_url', { url: 'https://example.org/', maxTokens: 50_000 });
    expect(answerTokens(capped)).toBeLessThanOrEqual(24_000);
    expect(capped.structuredContent).toMatchObject({ page: { maxTokens: 24_000 } });
  });
});
