import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GitHttpServer, makeFixtureRepositories, type FixtureRepositories } from '../../libs/snapshot/src/testing/git-http-server';
import { FakeOrigin } from '../support/origin';
import { QUARRY_BIN, assertBuilt, childEnv, repoRoot } from '../support/processes';
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
  connectStdio,
  errorOf,
  expectIncreasing,
  listAndValidateTools,
  recordProgress,
  textOf,
} from '../support/mcp';
import { waitFor } from '../support/stack';

/*
 * `quarry mcp` over stdio, in-process (no Redis, no Postgres), driven by the MCP SDK's own
 * Client as a desktop agent would: spawned, spoken to on stdin/stdout.
 */
describe('quarry mcp over stdio', () => {
  let server: StdioServer;
  let origin: FakeOrigin;
  let repository: string;
  const tree = generatedTree(20_000);

  beforeAll(async () => {
    assertBuilt();
    repository = makeTree(DEMO_REPOSITORY);
    origin = await FakeOrigin.start({ '/page': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('remote page text') });
    server = await connectStdio(['--root', repository, '--toolsets', 'all'], { QUARRY_FETCH_ALLOW: '127.0.0.1/32' });
  });
  afterAll(async () => {
    await server?.close();
    await origin?.close();
  });

  it('lists its tools with schemas a client can validate against', async () => {
    await listAndValidateTools(server.client);
    expect(server.client.getServerVersion()).toMatchObject({ name: 'quarry' });
    expect(server.client.getInstructions()).toContain(repository);
  });

  it('answers every tool', async () => {
    await callEveryTool(server.client, repository, origin.url('/page'));
  });

  it('uses --root when a call names no repository', async () => {
    const result = (await server.client.callTool({ name: 'read_file', arguments: { path: 'README.md' } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ path: 'README.md', startLine: 1, endLine: 3, totalLines: 3 });
    expect(textOf(result)).toBe('README.md (lines 1-3 of 3)\n1\t# Demo\n2\t\n3\tRun `npm start`.');
  });

  it('reads a repository file as a quarry://repo resource', async () => {
    const uri = `quarry://repo/${encodeURIComponent(repository)}/src/util.js`;
    const resource = await server.client.readResource({ uri });
    expect(resource.contents[0]).toMatchObject({ uri, mimeType: 'text/plain', text: DEMO_REPOSITORY['src/util.js'] });
  });

  it('answers bad arguments with a tool error carrying the typed kind', async () => {
    const call = async (name: string, args: Record<string, unknown>) => errorOf((await server.client.callTool({ name, arguments: args })) as CallToolResult);
    expect(await call('read_file', { path: 'src/ap.js' })).toMatchObject({ kind: 'file_not_found', suggestion: expect.stringContaining('src/app.js') });
    expect(await call('read_file', { path: 'src/app.js', startLine: 0 })).toMatchObject({ kind: 'input_invalid', message: expect.stringContaining('arguments.startLine') });
    expect(await call('read_file', { path: 'src/app.js', startline: 2 })).toMatchObject({ kind: 'input_invalid', suggestion: expect.stringContaining('Did you mean "startLine"') });
    expect(await call('read_file', { path: 'src/app.js', startLine: 9 })).toMatchObject({ kind: 'range_invalid' });
    expect(await call('read_file', { path: '../outside.txt' })).toMatchObject({ kind: 'path_outside_root' });
    expect(await call('search_text', { pattern: '(?=look)ahead', regex: true })).toMatchObject({ kind: 'regex_invalid' });
    expect(await call('scan_repository', { repository: '/no/such/repository' })).toMatchObject({ kind: 'root_not_found' });
    expect(await call('fetch_url', { url: 'http://169.254.169.254/latest/meta-data/' })).toMatchObject({ kind: 'url_blocked' });
    expect(await call('red_file', {})).toMatchObject({ kind: 'tool_unknown', suggestion: expect.stringContaining('"read_file"') });
    // The server is still serving after all of that.
    expect((await server.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('a scan of a checkout also builds its search index, no search needed', async () => {
    const checkout = committedRepository();
    const scan = (await server.client.callTool({ name: 'scan_repository', arguments: { repository: checkout.root } }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(scan.isError ?? false).toBe(false);
    const ready = await waitFor(async () => {
      const read = (await server.client.callTool({ name: 'read_file', arguments: { repository: checkout.root, path: 'README.md' } })) as CallToolResult;
      const index = (read.structuredContent as { index?: { searchIndex?: { state: string } } }).index;
      return index?.searchIndex?.state === 'ready' ? index : undefined;
    }, 60_000, 'the scanned checkout\'s search index');
    expect(ready).toMatchObject({ commit: checkout.commit, searchIndex: { state: 'ready' } });
    const search = (await server.client.callTool({ name: 'search_text', arguments: { repository: checkout.root, pattern: 'greet' } })) as CallToolResult;
    expect(search.structuredContent).toMatchObject({ totalMatches: 3, index: { read: 'index' } });
  }, 120_000);

  it('sends increasing progress notifications during a long scan', async () => {
    const { seen, onprogress } = recordProgress();
    const result = (await server.client.callTool({ name: 'scan_repository', arguments: { repository: tree.root, codeIndex: false } }, undefined, { onprogress })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ files: tree.files, lines: tree.lines, bytes: tree.bytes });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen[0].message).toMatch(/^queued as job [0-9a-f-]{36}$/);
    expect(seen.at(-1)).toMatchObject({ total: tree.files });
    expectIncreasing(seen);
  }, 120_000);

  it('cancels the scan when the client cancels the call', async () => {
    const controller = new AbortController();
    const { seen, onprogress } = recordProgress();
    const call = server.client.callTool({ name: 'scan_repository', arguments: { repository: tree.root, codeIndex: false } }, undefined, {
      signal: controller.signal,
      onprogress: (progress) => {
        onprogress(progress);
        if (progress.progress > 0) controller.abort('enough');
      },
    });
    await expect(call).rejects.toThrow();
    const jobId = /queued as job (\S+)/.exec(seen[0].message ?? '')?.[1];
    const job = await waitFor(async () => {
      const resource = await server.client.readResource({ uri: `quarry://jobs/${jobId}` });
      const view = JSON.parse((resource.contents[0] as { text: string }).text);
      return view.status === 'running' ? undefined : view;
    }, 20_000, 'the scan to stop');
    expect(job).toMatchObject({ id: jobId, kind: 'scan', status: 'cancelled', result: null });
  }, 120_000);
});

describe('quarry mcp answers that fit an agent', () => {
  let server: StdioServer;
  let repository: ReturnType<typeof committedRepository>;

  beforeAll(async () => {
    assertBuilt();
    repository = committedRepository();
    server = await connectStdio(['--root', repository.root]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists the default toolsets for at most 3,000 o200k tokens', async () => {
    await checkDefaultToolList(server.client);
    await listAndValidateTools(server.client, DEFAULT_TOOLS);
  });

  it('keeps read_file and search_text within their budgets and continues them with the cursor, every line once', async () => {
    await checkBudgetsAndCursors(server.client, repository.root, repository.big, repository.commit);
  }, 120_000);

  it('sees every kind of edit in the working tree at the next call, counted in index.dirty', async () => {
    await checkWorkingTreeOverlay(server.client, repository.root, repository.commit);
  }, 120_000);

  it('searches a checkout through its HEAD index once built, each kind of edit read beside it (counts as rg -c)', async () => {
    await checkSearchIndexOverlay(server.client, repository.root, repository.commit);
  }, 120_000);

  it('answers @search of the checkout from the same index, with the edits', async () => {
    const fs = await import('node:fs');
    const added = path.join(repository.root, 'src/mentioned.js');
    fs.writeFileSync(added, 'greet(mentionedNow);\n');
    try {
      const result = (await server.client.callTool({ name: 'expand_mentions', arguments: { prompt: 'see @search:"greet"' } }, undefined, { timeout: 60_000 })) as CallToolResult;
      const content = result.structuredContent as { mentions: Array<{ matches?: number }>; coverage: { search?: { indexed?: number } } };
      expect(content.mentions.map((mention) => mention.matches)).toEqual([4]);
      expect(content.coverage.search?.indexed).toBe(1);
    } finally {
      fs.rmSync(added, { force: true });
    }
  }, 120_000);

  it('continues a cursor after the server restarted', async () => {
    const args = { path: repository.big.path, startLine: 1_000, maxTokens: 2_000 };
    const first = (await server.client.callTool({ name: 'read_file', arguments: args })) as CallToolResult;
    const { nextCursor, page } = first.structuredContent as { nextCursor: string; page: { last: number } };
    const restarted = await connectStdio(['--root', repository.root]);
    try {
      const next = (await restarted.client.callTool({ name: 'read_file', arguments: { ...args, cursor: nextCursor } })) as CallToolResult;
      const lines = linesOfPages([next]);
      expect([...lines.keys()][0]).toBe(page.last + 1);
      expect(lines.get(page.last + 1)).toBe(repository.big.lines[page.last]);
      expect(answerTokens(next)).toBeLessThanOrEqual(2_000);
      // A cursor given with other arguments, or altered, is refused: it is not a position anywhere.
      expect(errorOf((await restarted.client.callTool({ name: 'read_file', arguments: { ...args, startLine: 2, cursor: nextCursor } })) as CallToolResult)).toMatchObject({ kind: 'cursor_invalid' });
      expect(errorOf((await restarted.client.callTool({ name: 'search_text', arguments: { pattern: 'x', cursor: nextCursor } })) as CallToolResult)).toMatchObject({ kind: 'cursor_invalid' });
    } finally {
      await restarted.close();
    }
  });

  it('pages a job-backed answer too, and reruns the job for a cursor whose job a restart forgot', async () => {
    const args = { name: 'greet', path: 'src/**' };
    // find_symbol of a name with many definitions: a generated file of 400 functions.
    const file = path.join(repository.root, 'src/many.js');
    const { writeFileSync, unlinkSync } = await import('node:fs');
    writeFileSync(file, Array.from({ length: 400 }, (_, n) => `function greet${n}() { return ${n}; }\nfunction greet() { return ${n}; }`).join('\n'));
    try {
      const first = (await server.client.callTool({ name: 'find_symbol', arguments: { ...args, maxTokens: 2_000 } })) as CallToolResult;
      const firstPage = first.structuredContent as { definitions: { line: number }[]; nextCursor: string; page: { total: number } };
      expect(firstPage.page.total).toBe(400);
      const restarted = await connectStdio(['--root', repository.root]);
      try {
        let cursor: string | undefined = firstPage.nextCursor;
        const lines = firstPage.definitions.map((definition) => definition.line);
        while (cursor) {
          const page = (await restarted.client.callTool({ name: 'find_symbol', arguments: { ...args, maxTokens: 2_000, cursor } })) as CallToolResult;
          expect(page.isError ?? false).toBe(false);
          expect(answerTokens(page)).toBeLessThanOrEqual(2_000);
          const data = page.structuredContent as { definitions: { line: number }[]; nextCursor?: string };
          lines.push(...data.definitions.map((definition) => definition.line));
          cursor = data.nextCursor;
        }
        expect(lines.sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, n) => 2 * n + 2));
      } finally {
        await restarted.close();
      }
    } finally {
      unlinkSync(file);
    }
  }, 60_000);

  it('says while the code index builds that it answers by reading the files, then that it is built', async () => {
    const tree = generatedTree(20_000);
    // The first symbol look-up of a tree builds its code index; a search meanwhile reads the files.
    const building = server.client.callTool({ name: 'find_symbol', arguments: { repository: tree.root, path: 'pkg1/**', limit: 5 } }, undefined, { timeout: 120_000 });
    const during = await waitFor(async () => {
      const search = (await server.client.callTool({ name: 'search_text', arguments: { repository: tree.root, pattern: '^line 3 of file 17$', regex: true } })) as CallToolResult;
      const index = (search.structuredContent as { index: { building: boolean } }).index;
      return index.building ? search : undefined;
    }, 60_000, 'an answer during the build');
    expect(during.structuredContent).toMatchObject({ totalMatches: 1, index: { building: true, read: 'files', commit: expect.any(String) } });
    expect((during.structuredContent as { index: { coverage: number } }).index.coverage).toBeLessThan(1);
    expect(((await building) as CallToolResult).isError ?? false).toBe(false);
    const after = (await server.client.callTool({ name: 'search_text', arguments: { repository: tree.root, pattern: '^line 3 of file 17$', regex: true } })) as CallToolResult;
    expect(after.structuredContent).toMatchObject({ index: { building: false, coverage: 1 } });
  }, 180_000);

  it('offers the toolsets it is told, and refuses an unknown one before it starts', async () => {
    const files = await connectStdio(['--root', repository.root, '--toolsets', 'files']);
    try {
      expect((await files.client.listTools()).tools.map((tool) => tool.name)).toEqual(['read_file', 'list_directory', 'find_files']);
      expect(errorOf((await files.client.callTool({ name: 'search_text', arguments: { pattern: 'x' } })) as CallToolResult)).toMatchObject({
        kind: 'tool_not_enabled',
        suggestion: expect.stringContaining('--toolsets files,search'),
      });
    } finally {
      await files.close();
    }
    const all = await connectStdio(['--root', repository.root, '--toolsets', 'all']);
    try {
      await listAndValidateTools(all.client);
    } finally {
      await all.close();
    }
    const child = spawn(process.execPath, [QUARRY_BIN, 'mcp', '--toolsets', 'files,serch'], { cwd: repoRoot(), env: childEnv({}), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exit = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(exit).toBe(2);
    expect(stderr).toContain('toolset_unknown');
    expect(stderr).toContain('"search"');
  });
});

describe('quarry mcp file tools on a git URL', () => {
  let server: StdioServer;
  let fixtures: FixtureRepositories;
  let git: GitHttpServer;
  let dataDir: string;

  beforeAll(async () => {
    assertBuilt();
    fixtures = makeFixtureRepositories({ largeBytes: 10_000 });
    git = await GitHttpServer.start(fixtures.root);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-mcp-git-'));
    server = await connectStdio(['--root', fixtures.checkout, '--toolsets', 'all'], { QUARRY_FETCH_ALLOW: '127.0.0.1/32', QUARRY_DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await server?.close();
    await git?.close();
    fixtures?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads and searches a URL at a ref as a checkout of that commit, and refuses a missing ref', async () => {
    await checkFileToolsByUrl(server.client, git.url('demo.git'), fixtures);
  }, 60_000);
});

describe('quarry mcp stdout', () => {
  it('carries nothing but protocol messages, with logs on stderr', async () => {
    assertBuilt();
    const repository = makeTree(DEMO_REPOSITORY);
    const child = spawn(process.execPath, [QUARRY_BIN, 'mcp', '--root', repository, '--toolsets', 'all'], {
      cwd: repoRoot(),
      env: childEnv({ QUARRY_LOG_LEVEL: 'trace' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: string[] = [];
    let stderr = '';
    readline.createInterface({ input: child.stdout }).on('line', (line) => stdout.push(line));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'scan_repository', arguments: {}, _meta: { progressToken: 'p' } } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'missing.js' } } });
    send({ jsonrpc: '2.0', id: 5, method: 'no/such/method' });
    await waitFor(() => [1, 2, 3, 4, 5].every((id) => stdout.some((line) => line.includes(`"id":${id}`))), 30_000, 'five answers');
    child.stdin.end();
    const exit = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    expect(exit).toBe(0);
    for (const line of stdout) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    const answers = stdout.map((line) => JSON.parse(line));
    expect(answers.find((answer) => answer.id === 3).result.structuredContent).toMatchObject({ files: 4 });
    expect(answers.find((answer) => answer.id === 4).result.isError).toBe(true);
    expect(answers.find((answer) => answer.id === 5).error.code).toBe(-32601);
    expect(answers.some((answer) => answer.method === 'notifications/progress')).toBe(true);
    expect(stderr).toContain('quarry mcp serving on stdio');
  }, 60_000);
});
