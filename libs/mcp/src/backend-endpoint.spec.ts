import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { QuarryError, type JobView } from '@quarry/contracts';
import type { QuarryBackend } from './backend';
import { BackendEndpoint, RESOURCE_NOT_FOUND } from './backend-endpoint';
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
    ...overrides,
  };
}

const call = (sent?: ProgressNotice[]) => ({
  signal: new AbortController().signal,
  ...(sent ? { sendProgress: async (notice: ProgressNotice) => void sent.push(notice) } : {}),
});

describe('BackendEndpoint', () => {
  it('runs a job tool: text, structured content, the job linked, progress relayed', async () => {
    const sent: ProgressNotice[] = [];
    const result = await new BackendEndpoint(backend()).callTool('fetch_url', { url: 'https://example.org/' }, call(sent));
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(fetched);
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
    const result = await new BackendEndpoint(backend()).callTool('read_file', { repository: '/r', path: 'a.tss' }, call());
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: JSON.stringify({ kind: 'file_not_found', message: 'nope', suggestion: 'Did you mean a.ts?' }) }] });
  });

  it('reports anything else as internal, without its message, and tells the operator', async () => {
    const seen: unknown[] = [];
    const broken = backend({ runJob: async () => { throw new Error('secret stack detail'); } });
    const result = await new BackendEndpoint(broken, { onInternalError: (error) => seen.push(error) }).callTool('fetch_url', { url: 'https://example.org/' }, call());
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ kind: 'internal' });
    expect(JSON.stringify(result)).not.toContain('secret stack detail');
    expect(seen).toHaveLength(1);
  });

  it('refuses a result outside the output schema instead of sending it', async () => {
    const wrong = backend({ runJob: async () => ({ jobId: job.id, result: { url: 1 } as never }) });
    const result = await new BackendEndpoint(wrong).callTool('fetch_url', { url: 'https://example.org/' }, call());
    expect(result.isError).toBe(true);
  });

  it('needs a repository when the backend has no default', async () => {
    const result = await new BackendEndpoint(backend()).callTool('scan_repository', {}, call());
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ kind: 'input_invalid', message: expect.stringContaining('repository') });
  });

  it('reads a job resource, and answers a missing one with resource-not-found and the typed error', async () => {
    const endpoint = new BackendEndpoint(backend());
    const found = await endpoint.readResource(`quarry://jobs/${job.id}`, call());
    expect(JSON.parse((found.contents[0] as { text: string }).text)).toEqual(job);
    const missing = await endpoint.readResource('quarry://jobs/other', call()).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(McpError);
    expect(missing).toMatchObject({ code: RESOURCE_NOT_FOUND, data: { kind: 'job_not_found', uri: 'quarry://jobs/other' } });
    await expect(endpoint.readResource('https://example.org/', call())).rejects.toMatchObject({ data: { kind: 'not_found' } });
  });
});
