import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GitHttpServer, makeFixtureRepositories, type FixtureRepositories } from '../../libs/snapshot/src/testing/git-http-server';
import { FakeOrigin } from '../support/origin';
import { assertBuilt } from '../support/processes';
import { TestStack, waitFor } from '../support/stack';
import { EndlessScanProcessor } from '../support/test-processors';
import { generatedTree, makeTree } from '../support/trees';
import {
  DEFAULT_TOOLS,
  DEMO_REPOSITORY,
  StdioServer,
  answerTokens,
  callEveryTool,
  checkBudgetsAndCursors,
  checkDefaultToolList,
  checkWorkingTreeOverlay,
  checkSearchIndexOverlay,
  committedRepository,
  linesOfPages,
  checkFileToolsByUrl,
  connectHttp,
  connectStdio,
  errorOf,
  expectIncreasing,
  linkedJob,
  listAndValidateTools,
  recordProgress,
  textOf,
} from '../support/mcp';

/*
 * The gateway's Streamable HTTP endpoint /mcp against real Redis, Postgres and a worker: the
 * job-backed tools run as jobs, the reads run in the gateway inside QUARRY_WORKSPACE_ROOTS.
 */
describe('MCP over Streamable HTTP at /mcp', () => {
  let stack: TestStack;
  let origin: FakeOrigin;
  let client: Client;
  let repository: string;
  let fixtures: FixtureRepositories;
  let git: GitHttpServer;
  let dataDir: string;
  let committed: { root: string; commit: string; big: { path: string; lines: string[] } };
  const tree = generatedTree(20_000);

  beforeAll(async () => {
    repository = makeTree(DEMO_REPOSITORY);
    committed = committedRepository();
    origin = await FakeOrigin.start({ '/page': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('remote page text') });
    fixtures = makeFixtureRepositories({ largeBytes: 10_000 });
    git = await GitHttpServer.start(fixtures.root);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-mcp-gateway-'));
    stack = await TestStack.start({
      workspaceRoots: [repository, tree.root, fixtures.checkout, committed.root],
      dataDir,
      fetch: { ...TestStack.defaults().fetch, allow: ['127.0.0.1/32'] },
    });
    client = await connectHttp(stack.url, undefined, 'all');
  });
  afterAll(async () => {
    await client?.close();
    await origin?.close();
    await stack?.close();
    await git?.close();
    fixtures?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists its tools with schemas a client can validate against', async () => {
    await listAndValidateTools(client);
  });

  it('lists the default toolsets for at most 3,000 o200k tokens, and the sets /mcp?toolsets= names', async () => {
    const plain = await connectHttp(stack.url);
    const files = await connectHttp(stack.url, undefined, 'files');
    try {
      await checkDefaultToolList(plain);
      await listAndValidateTools(plain, DEFAULT_TOOLS);
      expect((await files.listTools()).tools.map((tool) => tool.name)).toEqual(['read_file', 'list_directory', 'find_files']);
      expect(errorOf((await files.callTool({ name: 'scan_repository', arguments: { repository } })) as CallToolResult)).toMatchObject({
        kind: 'tool_not_enabled',
        suggestion: expect.stringContaining('/mcp?toolsets=files,jobs'),
      });
    } finally {
      await plain.close();
      await files.close();
    }
    await expect(connectHttp(stack.url, undefined, 'files,serch')).rejects.toThrow(/toolset_unknown/);
  });

  it('keeps read_file and search_text within their budgets and continues them with the cursor, every line once', async () => {
    await checkBudgetsAndCursors(client, committed.root, committed.big, committed.commit);
  }, 120_000);

  it('sees every kind of edit in the working tree at the next call (the symbol look-ups on a worker), counted in index.dirty', async () => {
    await checkWorkingTreeOverlay(client, committed.root, committed.commit);
  }, 120_000);

  it('searches a checkout through its HEAD index once built (in Postgres), each kind of edit read beside it', async () => {
    await checkSearchIndexOverlay(client, committed.root, committed.commit);
  }, 120_000);

  it('answers POST /v1/search of that checkout from the same index, an edit in the next answer', async () => {
    const post = async (pattern: string) => {
      const response = await fetch(new URL('/v1/search', stack.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ root: committed.root, pattern }) });
      expect(response.status).toBe(200);
      return (await response.json()) as { total: number; indexed: boolean; hits: Array<{ path: string }> };
    };
    const greet = await waitFor(async () => {
      const answer = await post('greet');
      return answer.indexed ? answer : undefined;
    }, 60_000, 'an indexed answer');
    expect(greet.total).toBe(3);
    const file = path.join(committed.root, 'src/rest-added.js');
    writeFileSync(file, 'greet(restAddedNow);\n');
    try {
      expect(await post('restAddedNow')).toMatchObject({ indexed: true, total: 1, hits: [{ path: 'src/rest-added.js' }] });
      expect(await post('greet')).toMatchObject({ indexed: true, total: 4 });
    } finally {
      rmSync(file, { force: true });
    }
    expect(await post('restAddedNow')).toMatchObject({ indexed: true, total: 0 });
  }, 120_000);

  it('continues cursors after the gateway restarted: a file read again, a job\'s result read back from Postgres', async () => {
    const readArgs = { repository: committed.root, path: committed.big.path, startLine: 500, maxTokens: 2_000 };
    const read = (await client.callTool({ name: 'read_file', arguments: readArgs })) as CallToolResult;
    const symbolArgs = { repository: committed.root, path: '**/*.js', maxTokens: 1_000 };
    const many = path.join(committed.root, 'src/many.js');
    const { writeFileSync, unlinkSync } = await import('node:fs');
    writeFileSync(many, Array.from({ length: 150 }, (_, n) => `function helper${n}() { return ${n}; }`).join('\n'));
    try {
      const symbols = (await client.callTool({ name: 'find_symbol', arguments: symbolArgs })) as CallToolResult;
      const jobs = (await stack.jobs.list({ kind: 'symbols', limit: 5 })).items.length;
      // A client's open event stream would hold the old gateway's HTTP server open.
      await client.close();
      await stack.restartGateway();
      const again = await connectHttp(stack.url, undefined, 'all');
      try {
        const readCursor = (read.structuredContent as { nextCursor: string; page: { last: number } });
        const next = (await again.callTool({ name: 'read_file', arguments: { ...readArgs, cursor: readCursor.nextCursor } })) as CallToolResult;
        expect([...linesOfPages([next]).keys()][0]).toBe(readCursor.page.last + 1);
        const shown = (symbols.structuredContent as { definitions: { name: string }[]; nextCursor: string; page: { total: number } });
        const names = shown.definitions.map((definition) => definition.name);
        for (let cursor: string | undefined = shown.nextCursor; cursor; ) {
          const page = (await again.callTool({ name: 'find_symbol', arguments: { ...symbolArgs, cursor } })) as CallToolResult;
          expect(answerTokens(page)).toBeLessThanOrEqual(1_000);
          const data = page.structuredContent as { definitions: { name: string }[]; nextCursor?: string };
          names.push(...data.definitions.map((definition) => definition.name));
          cursor = data.nextCursor;
        }
        expect(names.filter((name) => name.startsWith('helper')).sort()).toEqual(Array.from({ length: 150 }, (_, n) => `helper${n}`).sort());
        expect(names).toHaveLength(shown.page.total);
        // The pages came from the stored result: no job ran again.
        expect((await stack.jobs.list({ kind: 'symbols', limit: 5 })).items.length).toBe(jobs);
      } finally {
        await again.close();
      }
    } finally {
      unlinkSync(many);
      client = await connectHttp(stack.url, undefined, 'all');
    }
  }, 120_000);

  it('answers every tool, each job-backed one as a stored job', async () => {
    await callEveryTool(client, repository, origin.url('/page'));
    const kinds = (await stack.jobs.list({ limit: 50 })).items.map((job) => job.kind);
    expect(kinds).toEqual(expect.arrayContaining(['mentions', 'detect', 'scan', 'fetch', 'interpret']));
  });

  it('reads and searches a URL at a ref in the gateway, as a checkout of that commit, and refuses a missing ref', async () => {
    await checkFileToolsByUrl(client, git.url('demo.git'), fixtures);
    // Read in the gateway, through its own cache under its QUARRY_DATA_DIR.
    expect(readdirSync(dataDir).length).toBeGreaterThan(0);
  }, 60_000);

  it('lists the jobs as resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThanOrEqual(5);
    expect(resources[0]).toMatchObject({ uri: expect.stringMatching(/^quarry:\/\/jobs\//), mimeType: 'application/json' });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['quarry://jobs/{id}', 'quarry://repo/{source}/{+path}{?ref}']);
  });

  it('sends increasing progress notifications from the job while a large scan runs', async () => {
    const { seen, onprogress } = recordProgress();
    const result = (await client.callTool({ name: 'scan_repository', arguments: { repository: tree.root, codeIndex: false } }, undefined, { onprogress })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ files: tree.files, lines: tree.lines });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen[0].message).toMatch(/^queued as job /);
    expectIncreasing(seen);
    expect(await stack.jobs.find(linkedJob(result).split('/').pop()!)).toMatchObject({ status: 'succeeded' });
  }, 120_000);

  it('answers refusals and failures as tool errors with the typed kind', async () => {
    const call = async (name: string, args: Record<string, unknown>) => errorOf((await client.callTool({ name, arguments: args })) as CallToolResult);
    expect(await call('scan_repository', { repository: '/etc' })).toMatchObject({ kind: 'path_outside_root', suggestion: expect.stringContaining('QUARRY_WORKSPACE_ROOTS') });
    expect(await call('read_file', { repository: '/etc', path: 'passwd' })).toMatchObject({ kind: 'path_outside_root' });
    expect(await call('read_file', { repository: 'relative/dir', path: 'x' })).toMatchObject({ kind: 'path_not_absolute' });
    // Two workspace roots: no default repository.
    expect(await call('list_directory', {})).toMatchObject({ kind: 'input_invalid', message: expect.stringContaining('repository') });
    expect(await call('detect_stack', { repository, mode: 'sometimes' })).toMatchObject({ kind: 'input_invalid', message: expect.stringContaining('arguments.mode') });
    expect(await call('fetch_url', { url: 'ftp://example.org/' })).toMatchObject({ kind: 'url_invalid' });
    expect(await call('ask', { repository, query: 'list src', ai: 'only' })).toMatchObject({ kind: 'llm_unavailable' });
  });

  it('refuses requests addressed to another host name, or from another origin (DNS rebinding)', async () => {
    const port = new URL(stack.url).port;
    const initialize = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        // node:http, because fetch will not send a Host header of our choosing.
        const request = http.request(`${stack.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        request.on('error', reject);
        request.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
      });
    const foreign: Array<Record<string, string>> = [{ host: `evil.example:${port}` }, { origin: `http://evil.example:${port}` }];
    for (const headers of foreign) {
      const refused = await initialize(headers);
      expect({ headers, status: refused.status }).toEqual({ headers, status: 403 });
      expect(JSON.parse(refused.body)).toMatchObject({ kind: 'forbidden' });
    }
    expect((await initialize({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it('answers a request for an unknown session with 404, so the client starts a new one', async () => {
    const response = await fetch(`${stack.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'not-a-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
  });

  describe('quarry mcp --server (stdio forwarded to this gateway)', () => {
    let forwarded: StdioServer;
    beforeAll(async () => {
      assertBuilt();
      forwarded = await connectStdio(['--server', stack.url, '--root', repository, '--toolsets', 'all']);
    });
    afterAll(() => forwarded?.close());

    it('runs the tools on the gateway, with --root as the default repository and progress relayed', async () => {
      await listAndValidateTools(forwarded.client);
      const read = (await forwarded.client.callTool({ name: 'read_file', arguments: { path: 'src/util.js' } })) as CallToolResult;
      expect(read.structuredContent).toMatchObject({ path: 'src/util.js', lines: [{ number: 1, text: DEMO_REPOSITORY['src/util.js'].trimEnd() }] });
      const { seen, onprogress } = recordProgress();
      const scan = (await forwarded.client.callTool({ name: 'scan_repository', arguments: { repository: tree.root, codeIndex: false } }, undefined, { onprogress })) as CallToolResult;
      expect(scan.structuredContent).toMatchObject({ files: tree.files });
      // Relayed (streaming itself is the direct test's: this second scan of the tree is quick, its
      // blobs already known to the worker, so it may send a single notice).
      expect(seen.length).toBeGreaterThanOrEqual(1);
      expectIncreasing(seen);
      // The job is the gateway's: stored in Postgres and readable through the forwarded resource.
      const jobId = linkedJob(scan).split('/').pop()!;
      expect(await stack.jobs.find(jobId)).toMatchObject({ kind: 'scan', status: 'succeeded' });
      const resource = await forwarded.client.readResource({ uri: `quarry://jobs/${jobId}` });
      expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ id: jobId, status: 'succeeded' });
    }, 120_000);

    it('says which gateway does not answer, as a typed tool error', async () => {
      const nowhere = await connectStdio(['--server', 'http://127.0.0.1:9']);
      try {
        const error = errorOf((await nowhere.client.callTool({ name: 'read_file', arguments: { repository, path: 'README.md' } })) as CallToolResult);
        expect(error).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('http://127.0.0.1:9') });
      } finally {
        await nowhere.close();
      }
    });
  });
});

describe('MCP cancellation over HTTP', () => {
  let stack: TestStack;
  let client: Client;
  let repository: string;
  beforeAll(async () => {
    repository = makeTree({ 'a.ts': '1\n' });
    stack = await TestStack.start({ workspaceRoots: [repository] }, { processors: [EndlessScanProcessor] });
    client = await connectHttp(stack.url, undefined, 'all');
  });
  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  it('cancelling the call cancels the running job', async () => {
    const controller = new AbortController();
    const { seen, onprogress } = recordProgress();
    const call = client.callTool({ name: 'scan_repository', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: (progress) => {
        onprogress(progress);
        if (progress.progress > 0) controller.abort('enough');
      },
    });
    await expect(call).rejects.toThrow();
    const jobId = /queued as job (\S+)/.exec(seen[0].message ?? '')?.[1] as string;
    await stack.waitForStatus(jobId, ['cancelled']);
    // The worker saw the abort: the endless scan stopped.
    await waitFor(() => EndlessScanProcessor.abortedAt.has(jobId), 10_000, 'the worker to abort the scan');
  });

  it('says while a scan of the repository runs that it builds, and answers by reading the files', async () => {
    const controller = new AbortController();
    const { seen, onprogress } = recordProgress();
    const scan = client.callTool({ name: 'scan_repository', arguments: {} }, undefined, { signal: controller.signal, onprogress }).catch(() => undefined);
    const jobId = await waitFor(() => /queued as job (\S+)/.exec(seen[0]?.message ?? '')?.[1], 10_000, 'the scan to start');
    await stack.waitForStatus(jobId, ['running']);
    const search = await waitFor(async () => {
      const answer = (await client.callTool({ name: 'search_text', arguments: { pattern: '1' } })) as CallToolResult;
      return (answer.structuredContent as { index: { building: boolean } }).index.building ? answer : undefined;
    }, 10_000, 'an answer during the scan');
    expect(search.structuredContent).toMatchObject({ totalMatches: 1, index: { building: true, read: 'files', commit: expect.any(String), dirty: 0 } });
    controller.abort('enough');
    await scan;
    await stack.waitForStatus(jobId, ['cancelled']);
    await waitFor(async () => {
      const answer = (await client.callTool({ name: 'search_text', arguments: { pattern: '1' } })) as CallToolResult;
      return (answer.structuredContent as { index: { building: boolean } }).index.building ? undefined : answer;
    }, 10_000, 'the build to be over');
  });
});

/* Keys switch authentication on for the whole test database: this block removes its own. */
describe('MCP with API keys', () => {
  let stack: TestStack;
  let repository: string;
  const keys: Record<'alice' | 'bob', string> = { alice: '', bob: '' };
  const created: string[] = [];
  beforeAll(async () => {
    repository = makeTree(DEMO_REPOSITORY);
    stack = await TestStack.start({ workspaceRoots: [repository] });
    for (const name of ['alice', 'bob'] as const) {
      const { key, secret } = await stack.keys.create(`mcp-test-${name}`);
      created.push(key.id);
      keys[name] = secret;
    }
    // The gateway caches "are keys configured?" for two seconds.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  });
  afterAll(async () => {
    await stack.prisma.job.deleteMany({ where: { ownerId: { in: created } } });
    await stack.prisma.apiKey.deleteMany({ where: { id: { in: created } } });
    await stack.close();
  });

  it('refuses a client without a key, with the typed error and a Bearer challenge', async () => {
    await expect(connectHttp(stack.url)).rejects.toThrow(/unauthorized/);
    const response = await fetch(`${stack.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ kind: 'unauthorized', suggestion: expect.stringContaining('quarry keys create') });
  });

  it("lets a key read its own job resource but not another key's", async () => {
    const alice = await connectHttp(stack.url, keys.alice, 'all');
    const bob = await connectHttp(stack.url, keys.bob, 'all');
    try {
      // The only workspace root is the default repository.
      const detected = (await alice.callTool({ name: 'detect_stack', arguments: { mode: 'static' } })) as CallToolResult;
      expect(textOf(detected)).toContain('demo');
      const uri = linkedJob(detected);
      const own = await alice.readResource({ uri });
      expect(JSON.parse((own.contents[0] as { text: string }).text)).toMatchObject({ kind: 'detect', status: 'succeeded' });

      const refused = await bob.readResource({ uri }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).data).toMatchObject({ kind: 'job_not_found', uri });
      expect((await bob.listResources()).resources.map((resource) => resource.uri)).not.toContain(uri);
      expect((await alice.listResources()).resources.map((resource) => resource.uri)).toContain(uri);
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it("answers another key's session id as an unknown session", async () => {
    const alice = await connectHttp(stack.url, keys.alice);
    try {
      const sessionId = (alice.transport as { sessionId?: string }).sessionId;
      expect(sessionId).toBeDefined();
      const response = await fetch(`${stack.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${keys.bob}`, 'mcp-session-id': sessionId! },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
    } finally {
      await alice.close();
    }
  });
});
