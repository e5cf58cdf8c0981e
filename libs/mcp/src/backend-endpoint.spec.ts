import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { QuarryError, type JobView } from '@quarry/contracts';
import type { QuarryBackend } from './backend';
import { BackendEndpoint, RESOURCE_NOT_FOUND } from './backend-endpoint';
import { ToolTable } from './tool-table';
import { TOOLSET_NAMES } from './toolsets';
import type { ProgressNotice } from './progress-relay';

const job: JobView = {
  id: '5d1c0a8e-1111-4222-8333-444455556666',
  kind: 'fetch',
  status: 'succeeded',
  input: {},
  result: null,
  error: null,
  progress: null,
  attempts: 1,
  parentId: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
};
const fetched = {
  url: 'https://example.org/',
  finalUrl: 'https://example.org/',
  status: 200,
  contentType: 'text/plain',
  text: 'hello',
  bytes: 5,
  truncated: false,
  fetchedAt: '2026-01-01T00:00:00.000Z',
  fromCache: false,
  redirects: [],
};

function backend(overrides: Partial<QuarryBackend> = {}): QuarryBackend {
  return {
    runJob: async (_kind, _input, options) => {
      options.onJob?.(job.id);
      options.onProgress({ stage: 'fetching', done: 1, total: 1 });
      return { jobId: job.id, result: fetched as never };
    },
    runWorkspaceTool: async () => {
      throw new QuarryError('file_not_found', 'nope', { suggestion: 'Did you mean a.ts?' });
    },
    getJob: async (id) => {
      if (id !== job.id) throw new QuarryError('job_not_found', `No job ${id}.`);
      return job;
    },
    listJobs: async () => [job],
    navigate: async () => {
      throw new QuarryError('symbol_not_found', 'No definition of "x".');
    },
    ...overrides,
  };
}

/** Every tool offered: these cases call tools of several sets. */
const everyTool = { tools: new ToolTable().withToolsets(TOOLSET_NAMES) };

const call = (sent?: ProgressNotice[]) => ({
  signal: new AbortController().signal,
  ...(sent ? { sendProgress: async (notice: ProgressNotice) => void sent.push(notice) } : {}),
});

describe('BackendEndpoint', () => {
  it('runs a job tool: text, structured content, the job linked, progress relayed', async () => {
    const sent: ProgressNotice[] = [];
    const result = await new BackendEndpoint(backend(), everyTool).callTool('fetch_url', { url: 'https://example.org/' }, call(sent));
    expect(result.isError).toBeUndefined();
    const { page, ...fetchedResult } = result.structuredContent as Record<string, unknown>;
    expect(fetchedResult).toEqual(fetched);
    // A page of one line, measured.
    expect(page).toMatchObject({ unit: 'line', first: 1, last: 1, left: 0, maxTokens: 8000, tokens: expect.any(Number) });
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringContaining('hello') },
      expect.objectContaining({ type: 'resource_link', uri: `quarry://jobs/${job.id}` }),
    ]);
    // The count came within the interval of the announcement; it is still sent, before the result.
    expect(sent).toEqual([
      { progress: 0, message: `queued as job ${job.id}` },
      { progress: 1, total: 1, message: 'fetching 1/1' },
    ]);
  });

  it('turns a typed failure into a tool error carrying it', async () => {
    const result = await new BackendEndpoint(backend(), everyTool).callTool('read_file', { repository: '/r', path: 'a.tss' }, call());
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: JSON.stringify({ kind: 'file_not_found', message: 'nope', suggestion: 'Did you mean a.ts?' }) }] });
  });

  it('reports anything else as internal, without its message, and tells the operator', async () => {
    const seen: unknown[] = [];
    const broken = backend({ runJob: async () => { throw new Error('secret stack detail'); } });
    const result = await new BackendEndpoint(broken, { ...everyTool, onInternalError: (error) => seen.push(error) }).callTool('fetch_url', { url: 'https://example.org/' }, call());
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ kind: 'internal' });
    expect(JSON.stringify(result)).not.toContain('secret stack detail');
    expect(seen).toHaveLength(1);
  });

  it('refuses a result outside the output schema instead of sending it', async () => {
    const wrong = backend({ runJob: async () => ({ jobId: job.id, result: { url: 1 } as never }) });
    const result = await new BackendEndpoint(wrong, everyTool).callTool('fetch_url', { url: 'https://example.org/' }, call());
    expect(result.isError).toBe(true);
  });

  it('needs a repository when the backend has no default', async () => {
    const result = await new BackendEndpoint(backend(), everyTool).callTool('scan_repository', {}, call());
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ kind: 'input_invalid', message: expect.stringContaining('repository') });
  });

  it('reads a job resource, and answers a missing one with resource-not-found and the typed error', async () => {
    const endpoint = new BackendEndpoint(backend(), everyTool);
    const found = await endpoint.readResource(`quarry://jobs/${job.id}`, call());
    expect(JSON.parse((found.contents[0] as { text: string }).text)).toEqual(job);
    const missing = await endpoint.readResource('quarry://jobs/other', call()).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(McpError);
    expect(missing).toMatchObject({ code: RESOURCE_NOT_FOUND, data: { kind: 'job_not_found', uri: 'quarry://jobs/other' } });
    await expect(endpoint.readResource('https://example.org/', call())).rejects.toMatchObject({ data: { kind: 'not_found' } });
  });
});

describe('BackendEndpoint budgets', () => {
  it('takes maxTokens as the answer budget of a paged tool only (pack_repository\'s maxTokens is the pack\'s)', async () => {
    const packed = {
      style: 'xml',
      files: 1,
      tokens: 10,
      encoding: 'o200k_base',
      bytes: 40,
      redactions: 0,
      compressed: 0,
      omitted: 0,
      skipped: { binary: 0, filtered: 0, secretFiles: 0 },
      totals: { total: 10, encoding: 'o200k_base', byLanguage: [], byDirectory: Array.from({ length: 40 }, (_, n) => ({ path: `dir${n}`, files: 1, tokens: 1 })), largestFiles: [] },
      artifact: { name: 'p.xml', bytes: 40, contentType: 'application/xml' },
      durationMs: 1,
    };
    let given: unknown;
    const packing = backend({
      runJob: async (_kind, input) => {
        given = input;
        return { jobId: job.id, result: packed as never };
      },
    });
    const result = await new BackendEndpoint(packing, everyTool).callTool('pack_repository', { repository: '/r', maxTokens: 5 }, call());
    expect(result.isError).toBeUndefined();
    expect(given).toMatchObject({ maxTokens: 5 });
    // Not cut to 5 tokens: the answer's budget is the default.
    expect((result.structuredContent as typeof packed).totals.byDirectory).toHaveLength(40);
  });
});
