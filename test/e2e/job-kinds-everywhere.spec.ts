import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JobKind } from '../../libs/contracts/src';
import { BUILT_KINDS } from '../../libs/contracts/src';
import { connectStdio, type StdioServer } from '../support/mcp';
import { FakeOrigin } from '../support/origin';
import { QUARRY_BIN, assertBuilt, childEnv } from '../support/processes';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * One home for each job kind: every kind runs on the same repository through its three callers —
 * a worker on real Redis and Postgres (submitted over REST), the CLI in-process (`--local`, or the
 * in-process default), and `quarry mcp` in-process over stdio — and gives the same result, once
 * ids, timings and where the caller put things are taken out. A kind composed differently by one
 * caller (the MCP scan once had no tokens and no symbols) fails here.
 */

jest.setTimeout(180_000);

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'demo', version: '1.0.0', scripts: { start: 'node src/server.js' }, dependencies: { express: '^4.19.0' } }, null, 2) + '\n',
  'README.md': '# Demo\n\nStart it with `npm start`.\n',
  'src/server.ts': 'export class Server {\n  start(port: number): void {\n    listen(port);\n  }\n}\n\nfunction listen(port: number) {\n  return port;\n}\n',
  'src/client.ts': "import { Server } from './server';\n\nexport function boot(): void {\n  new Server().start(8080);\n}\n",
  'tools/report.py': 'def report(rows):\n    """Print the rows."""\n    for row in rows:\n        print(row)\n',
};

/** What depends on who ran a job or when: timings, which workers, where the caller put the document. */
const VOLATILE = new Set(['durationMs', 'elapsedMs', 'fetchedAt', 'workerIds', 'workers', 'shards', 'output']);
/** Within a key: a pack's document is named by its job id and lives where the caller put it; a scan's blob counts say what earlier scans had read (the worker's Postgres outlives a run), only the total is the repository's. */
const VOLATILE_WITHIN: Record<string, Set<string>> = { artifact: new Set(['name', 'path']), blobs: new Set(['processed', 'reused']) };

function comparable(value: unknown, parent = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => comparable(item));
  if (value === null || typeof value !== 'object') return value;
  const kept = Object.entries(value as Record<string, unknown>).filter(([name]) => !VOLATILE.has(name) && !VOLATILE_WITHIN[parent]?.has(name));
  return Object.fromEntries(kept.map(([name, inner]) => [name, comparable(inner, name)]));
}

interface Case {
  kind: JobKind;
  /** The job input (the repository is added). */
  input: Record<string, unknown>;
  /** The CLI arguments after the command name's target. */
  cli: (root: string) => string[];
  /** The part of a result every caller shows (the CLI's `symbols --json` prints the definitions alone). */
  shown?: (result: any) => unknown;
  /** The MCP tool and its arguments. */
  tool: string;
  args: Record<string, unknown>;
  /** The tool's structured content, as the job's result. */
  fromTool?: (structured: any) => unknown;
  /** What a caller-independent check of the result expects. */
  expect: (result: any) => void;
}

describe('every job kind gives the same result from the worker, the CLI and quarry mcp', () => {
  let root: string;
  let origin: FakeOrigin;
  let stack: TestStack;
  let mcp: StdioServer;
  let artifacts: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    assertBuilt();
    root = makeTree(FILES, 'quarry-one-home-');
    // A clean checkout: its identity is HEAD, the same commit for every caller.
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-q', '-m', 'demo');
    origin = await FakeOrigin.start({
      '/guide.html': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Guide</title></head><body><h1>Install</h1><p>Run npm ci.</p></body></html>'),
    });
    artifacts = mkdtempSync(path.join(os.tmpdir(), 'quarry-one-home-artifacts-'));
    // The fetch guards refuse loopback unless the operator allows it: every caller is allowed the test origin only.
    const allow = ['127.0.0.1/32'];
    stack = await TestStack.start({ workspaceRoots: [root], artifactDir: artifacts, detectionMode: 'static', fetch: { ...TestStack.defaults().fetch, allow } });
    env = { QUARRY_FETCH_ALLOW: allow.join(','), QUARRY_DETECTION_MODE: 'static', QUARRY_ARTIFACT_DIR: artifacts, QUARRY_DATA_DIR: path.join(artifacts, 'data'), QUARRY_LOG_LEVEL: 'warn' };
    mcp = await connectStdio(['--root', root, '--toolsets', 'all'], env);
  });

  afterAll(async () => {
    await mcp?.close();
    await stack?.close();
    await origin?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(artifacts, { recursive: true, force: true });
  });

  const prompt = () => `Review @src/server.ts#L1-5, @symbol:Server.start and @url:${origin.url('/guide.html')}`;
  const cases = (): Case[] => [
    {
      kind: 'scan',
      input: {},
      cli: (dir) => ['scan', dir, '--local', '--json'],
      tool: 'scan_repository',
      args: {},
      expect: (result) => {
        expect(result.files).toBe(5);
        expect(result.tokens.total).toBeGreaterThan(50);
        expect(result.symbols.definitions).toBeGreaterThanOrEqual(5);
        expect(result.stack[0].metadata.language).toBeDefined();
      },
    },
    {
      kind: 'detect',
      input: { mode: 'static' },
      cli: (dir) => ['detect', dir, '--mode', 'static', '--json'],
      tool: 'detect_stack',
      args: { mode: 'static' },
      fromTool: (structured) => structured.services,
      expect: (services) => expect(services.length).toBeGreaterThanOrEqual(1),
    },
    {
      kind: 'mentions',
      input: { prompt: prompt() },
      cli: (dir) => ['mention', '--root', dir, '--json', prompt()],
      tool: 'expand_mentions',
      args: { prompt: prompt() },
      expect: (result) => {
        expect(result.mentions.map((mention: { status: string }) => mention.status)).toEqual(['loaded', 'loaded', 'loaded']);
        expect(result.augmentedPrompt).toContain('listen(port);');
        expect(result.augmentedPrompt).toContain('Run npm ci.');
      },
    },
    {
      kind: 'fetch',
      // Fetched afresh by each caller: the worker's cache in Postgres holds the page since @url: fetched it.
      input: { url: origin.url('/guide.html'), force: true },
      cli: () => ['fetch', origin.url('/guide.html'), '--force', '--json'],
      tool: 'fetch_url',
      args: { url: origin.url('/guide.html'), force: true },
      expect: (result) => expect(result).toMatchObject({ title: 'Guide', fromCache: false, text: expect.stringContaining('Run npm ci.') }),
    },
    {
      kind: 'interpret',
      input: { query: 'which files mention Server in src?', ai: 'off' },
      cli: (dir) => ['ask', '--root', dir, '--no-ai', '--json', 'which files mention Server in src?'],
      tool: 'ask',
      args: { query: 'which files mention Server in src?', ai: 'off' },
      expect: (result) => {
        expect(result.source).toBe('rules');
        expect(JSON.stringify(result.results)).toContain('src/client.ts');
      },
    },
    {
      kind: 'symbols',
      input: { name: 'Server.start', limit: 10 },
      cli: (dir) => ['symbols', dir, '--name', 'Server.start', '--limit', '10', '--local', '--json'],
      shown: (result) => (Array.isArray(result) ? result : result.definitions),
      tool: 'find_symbol',
      args: { name: 'Server.start', limit: 10 },
      expect: (result) => {
        expect(result.definitions).toEqual([expect.objectContaining({ path: 'src/server.ts', name: 'start', line: 2 })]);
        expect(result.total).toBe(1);
      },
    },
    {
      kind: 'map',
      input: { tokens: 256, encoding: 'o200k_base' },
      cli: (dir) => ['map', dir, '--tokens', '256', '--local', '--json'],
      tool: 'repo_map',
      args: { tokens: 256 },
      expect: (result) => {
        expect(result.tokens).toBeLessThanOrEqual(256);
        expect(result.text).toContain('src/server.ts');
      },
    },
    {
      kind: 'pack',
      input: { style: 'xml', compress: false, encoding: 'o200k_base' },
      cli: (dir) => ['pack', dir, '--local', '--json', '-o', path.join(artifacts, 'cli-pack.xml')],
      tool: 'pack_repository',
      args: { style: 'xml' },
      expect: (result) => {
        expect(result.files).toBe(5);
        expect(result.tokens).toBeGreaterThan(50);
      },
    },
    {
      kind: 'context',
      input: { task: 'Server.start hangs: listen(port) never returns when the port is taken', tokens: 400 },
      cli: (dir) => ['context', dir, 'Server.start hangs: listen(port) never returns when the port is taken', '--tokens', '400', '--local', '--json'],
      tool: 'find_relevant_code',
      args: { task: 'Server.start hangs: listen(port) never returns when the port is taken', tokens: 400 },
      expect: (result) => {
        expect(result.files[0].path).toBe('src/server.ts');
        expect(result.spans[0]).toMatchObject({ path: 'src/server.ts' });
        expect(result.tokens).toBeLessThanOrEqual(400);
        expect(result.context).toContain('listen(port);');
      },
    },
  ];

  it('covers every kind this build has', () => {
    expect(cases().map((entry) => entry.kind).sort()).toEqual([...BUILT_KINDS].sort());
  });

  it.each(BUILT_KINDS.map((kind) => [kind]))('%s', async (kind) => {
    const entry = cases().find((candidate) => candidate.kind === kind)!;
    const viaWorker = await runOnWorker(entry);
    const viaCli = await runInCli(entry);
    const viaMcp = await runOverMcp(entry);
    entry.expect(viaWorker);
    // Kinds whose result names the commit name the same one everywhere: HEAD of the clean checkout.
    const source = (viaWorker as { source?: unknown }).source;
    if (source && typeof source === 'object') expect((source as { commit: string }).commit).toBe(execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim());
    const shown = entry.shown ?? ((result: unknown) => result);
    expect(comparable(shown(viaCli))).toEqual(comparable(shown(viaWorker)));
    expect(comparable(shown(viaMcp))).toEqual(comparable(shown(viaWorker)));
  });

  async function runOnWorker(entry: Case): Promise<unknown> {
    const input = entry.kind === 'fetch' ? entry.input : { root, ...entry.input };
    const submitted = await stack.submit(entry.kind, input);
    expect(submitted.status).toBe(202);
    const job = await stack.waitForStatus(submitted.body.id, ['succeeded', 'failed', 'cancelled'], 120_000);
    expect(job.error).toBeNull();
    return job.result;
  }

  function runInCli(entry: Case): Promise<unknown> {
    return run(entry.cli(root));
  }

  async function runOverMcp(entry: Case): Promise<unknown> {
    const answer = (await mcp.client.callTool({ name: entry.tool, arguments: entry.tool === 'fetch_url' ? entry.args : { repository: root, ...entry.args } })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: unknown };
    if (answer.isError) throw new Error(`${entry.tool} failed: ${answer.content[0]?.text}`);
    // What every answer adds (the repository's index state, the page it is): the result is the rest, whole on one page.
    const { index: _index, page: _page, nextCursor, ...result } = answer.structuredContent as Record<string, unknown>;
    expect({ tool: entry.tool, nextCursor }).toEqual({ tool: entry.tool, nextCursor: undefined });
    return entry.fromTool ? entry.fromTool(result) : result;
  }

  function run(args: string[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [QUARRY_BIN, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('exit', (code) => {
        if (code !== 0) return reject(new Error(`quarry ${args.join(' ')} exited ${code}\n${stdout}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`quarry ${args.join(' ')} printed no JSON\n${stdout}\n${stderr}`));
        }
      });
    });
  }
});
