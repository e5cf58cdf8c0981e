import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/sdk/types.js';
import { QUARRY_BIN, childEnv, repoRoot } from './processes';

/*
 * Driving Quarry's MCP server with the SDK's own Client, over stdio (a spawned `quarry mcp`) or
 * Streamable HTTP (a gateway's /mcp), and the checks both transports share.
 */

/** A small Node project every tool has something to say about. */
export const DEMO_REPOSITORY: Record<string, string> = {
  'README.md': '# Demo\n\nRun `npm start`.\n',
  'package.json': JSON.stringify({ name: 'demo', version: '1.0.0', scripts: { start: 'node src/app.js' } }, null, 2) + '\n',
  'src/app.js': "const { greet } = require('./util');\nconsole.log(greet('world'));\n",
  'src/util.js': "exports.greet = (name) => `hello ${name}`;\n",
};

export interface StdioServer {
  client: Client;
  transport: StdioClientTransport;
  stderr: string[];
  close(): Promise<void>;
}

/** `node bin/quarry.js mcp …args` as a child process, connected. */
export async function connectStdio(args: string[], env: Record<string, string> = {}): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [QUARRY_BIN, 'mcp', ...args],
    cwd: repoRoot(),
    env: childEnv({ QUARRY_LOG_LEVEL: 'info', QUARRY_ARTIFACT_DIR: path.join(os.tmpdir(), 'quarry-test-artifacts'), ...env }) as Record<string, string>,
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: 'quarry-test', version: '1' });
  await client.connect(transport);
  return { client, transport, stderr, close: () => client.close() };
}

/** A client on a gateway's /mcp, with an API key when given. */
export async function connectHttp(baseUrl: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'quarry-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  });
  await client.connect(transport);
  return client;
}

export const EXPECTED_TOOLS = [
  'read_file',
  'list_directory',
  'find_files',
  'search_text',
  'expand_mentions',
  'detect_stack',
  'scan_repository',
  'fetch_url',
  'ask',
  'find_symbol',
  'repo_map',
  'pack_repository',
];

/** Lists the tools and checks each schema compiles, describes every argument, and accepts a sample call. */
export async function listAndValidateTools(client: Client): Promise<Tool[]> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual([...EXPECTED_TOOLS].sort());
  const ajv = new AjvJsonSchemaValidator();
  for (const tool of tools) {
    expect(tool.description?.length).toBeGreaterThan(40);
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.outputSchema?.type).toBe('object');
    expect(tool.annotations?.readOnlyHint).toBe(true);
    for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
      expect({ tool: tool.name, argument: name, described: typeof (property as { description?: unknown }).description === 'string' }).toMatchObject({ described: true });
    }
    const validateInput = ajv.getValidator(tool.inputSchema);
    ajv.getValidator(tool.outputSchema as Tool['inputSchema']);
    expect(validateInput(SAMPLE_ARGUMENTS[tool.name]).valid).toBe(true);
    expect(validateInput({ ...SAMPLE_ARGUMENTS[tool.name], notAnArgument: 1 }).valid).toBe(false);
  }
  const read = tools.find((tool) => tool.name === 'read_file');
  expect(Object.keys(read?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['path', 'startLine', 'endLine', 'repository']));
  expect(read?.inputSchema.required).toEqual(['path']);
  return tools;
}

const SAMPLE_ARGUMENTS: Record<string, Record<string, unknown>> = {
  read_file: { path: 'src/app.js', startLine: 1, endLine: 2 },
  list_directory: { path: 'src', recursive: true },
  find_files: { pattern: '*.js' },
  search_text: { pattern: 'greet', regex: false },
  expand_mentions: { prompt: 'see @src/app.js' },
  detect_stack: { mode: 'static' },
  scan_repository: {},
  fetch_url: { url: 'https://example.org/' },
  ask: { query: 'list src', ai: 'off' },
  find_symbol: { name: 'Server.start', path: 'src/**' },
  repo_map: { tokens: 1024, focus: ['src/app.js'] },
  pack_repository: { style: 'markdown', include: ['src/**'], compress: true, maxTokens: 1000 },
};

export function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
}

/** The typed `{kind, message, suggestion}` a failed call carries as its text. */
export function errorOf(result: CallToolResult): { kind: string; message: string; suggestion?: string } {
  expect(result.isError).toBe(true);
  return JSON.parse(textOf(result));
}

/** The job a job-backed call links as a resource. */
export function linkedJob(result: CallToolResult): string {
  const link = result.content.find((item) => item.type === 'resource_link');
  expect(link).toBeDefined();
  const uri = (link as { uri: string }).uri;
  expect(uri).toMatch(/^quarry:\/\/jobs\/[0-9a-f-]{36}$/);
  return uri;
}

/**
 * Calls every tool on DEMO_REPOSITORY (at `repository`) and checks what comes back: text an
 * agent can use, structuredContent (the SDK client validates it against the listed
 * outputSchema), and a readable job resource for the job-backed ones.
 */
export async function callEveryTool(client: Client, repository: string, pageUrl: string): Promise<void> {
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: { repository, ...args } })) as CallToolResult;
    expect({ name, isError: result.isError ?? false, text: result.isError ? textOf(result) : '' }).toEqual({ name, isError: false, text: '' });
    return { result, data: result.structuredContent as any, text: textOf(result) };
  };
  const readJob = async (result: CallToolResult) => {
    const resource = await client.readResource({ uri: linkedJob(result) });
    return JSON.parse((resource.contents[0] as { text: string }).text);
  };

  const read = await call('read_file', { path: 'src/app.js', startLine: 2, endLine: 2 });
  expect(read.data).toMatchObject({ path: 'src/app.js', startLine: 2, endLine: 2, totalLines: 2, truncated: false, lines: [{ number: 2, text: "console.log(greet('world'));" }] });
  expect(read.text).toContain("2\tconsole.log(greet('world'));");

  const listing = await call('list_directory', {});
  expect(listing.data.entries.map((entry: { path: string }) => entry.path)).toEqual(['src', 'package.json', 'README.md']);
  expect(listing.text).toContain('src/');

  const found = await call('find_files', { pattern: '*.js' });
  expect(found.data).toMatchObject({ matches: ['src/app.js', 'src/util.js'], total: 2, truncated: false });

  const literal = await call('search_text', { pattern: 'GREET' });
  expect(literal.data).toMatchObject({ totalMatches: 3, filesMatched: 2 });
  expect(literal.text).toContain('src/util.js:1: exports.greet');
  const regex = await call('search_text', { pattern: 'greet\\(', regex: true });
  expect(regex.data.matches).toEqual([expect.objectContaining({ path: 'src/app.js', line: 2 })]);

  const mentions = await call('expand_mentions', { prompt: 'Review @src/util.js#L1' });
  expect(mentions.data.augmentedPrompt).toContain('exports.greet');
  expect(mentions.text).toMatch(/Loaded 1 of 1/);
  expect(await readJob(mentions.result)).toMatchObject({ kind: 'mentions', status: 'succeeded' });

  const stack = await call('detect_stack', { mode: 'static' });
  expect(stack.data.services[0].metadata).toMatchObject({ project_name: 'demo', build_system: 'npm' });
  expect(stack.text).toContain('demo');

  const scan = await call('scan_repository', {});
  expect(scan.data).toMatchObject({ files: 4, skipped: { binary: 0 } });
  expect(scan.text).toContain('4 files');
  expect(await readJob(scan.result)).toMatchObject({ kind: 'scan', status: 'succeeded', result: { files: 4 } });

  const fetched = (await client.callTool({ name: 'fetch_url', arguments: { url: pageUrl } })) as CallToolResult;
  expect(fetched.isError ?? false).toBe(false);
  expect(fetched.structuredContent).toMatchObject({ status: 200, text: expect.stringContaining('remote page text') });
  expect(textOf(fetched)).toContain('remote page text');

  const symbols = await call('find_symbol', { path: 'src/**' });
  // A server's job names the commit it read (`source`); the in-process backend reads the directory as it is.
  const { source: _source, ...definitionsFound } = symbols.data as Record<string, unknown>;
  expect(definitionsFound).toEqual({ definitions: [], total: 0, truncated: false, files: 0 });
  expect(symbols.text.trim()).toBe('no definitions');
  const missing = (await client.callTool({ name: 'find_symbol', arguments: { repository, name: 'greet' } })) as CallToolResult;
  expect(errorOf(missing)).toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('@search:') });

  const map = await call('repo_map', { tokens: 64, focus: ['src/app.js'] });
  expect(map.data).toMatchObject({ focus: { paths: ['src/app.js'], symbols: [] }, totalFiles: 4 });
  expect(map.data.tokens).toBeLessThanOrEqual(64);
  expect(map.text).toContain('src/app.js');

  const pack = await call('pack_repository', { include: ['src/**'] });
  expect(pack.data).toMatchObject({ style: 'xml', files: 2, skipped: { filtered: 2 } });
  expect(pack.data.totals.total).toBe(pack.data.tokens);
  expect(pack.text).toContain('packed 2 files');
  expect(await readJob(pack.result)).toMatchObject({ kind: 'pack', status: 'succeeded' });

  const answer = await call('ask', { query: 'show lines 1-2 of src/app.js', ai: 'off' });
  expect(answer.data.plan.tools[0]).toMatchObject({ name: 'read_file' });
  expect(answer.data.results[0]).toMatchObject({ ok: true });
  expect(answer.text).toContain("require('./util')");
}

/** Every progress notification of one call, in order. */
export function recordProgress(): { seen: Progress[]; onprogress: (progress: Progress) => void } {
  const seen: Progress[] = [];
  return { seen, onprogress: (progress) => seen.push(progress) };
}

/** MCP requires progress to increase with every notification. */
export function expectIncreasing(seen: Progress[]): void {
  for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
}

/**
 * The file tools on a git URL (served by the test's git http-backend) answer as on a checkout of
 * the same commit, name that commit, and refuse a missing ref with ref_not_found.
 */
export async function checkFileToolsByUrl(
  client: Client,
  gitUrl: string,
  fixtures: { checkout: string; commits: { first: string; main: string } },
): Promise<void> {
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const withoutCommit = (result: CallToolResult) => {
    const { commit: _commit, ...rest } = result.structuredContent as Record<string, unknown>;
    return rest;
  };
  for (const [name, args] of [
    ['read_file', { path: 'src/app.ts', startLine: 2, endLine: 3 }],
    ['search_text', { pattern: 'export', contextLines: 1 }],
    ['list_directory', { path: '.', recursive: true }],
    ['find_files', { pattern: '*.ts' }],
  ] as const) {
    const byUrl = await call(name, { repository: gitUrl, ref: 'main', ...args });
    const byPath = await call(name, { repository: fixtures.checkout, ...args });
    expect(byUrl.isError).toBeFalsy();
    expect(byPath.isError).toBeFalsy();
    expect(byUrl.structuredContent).toMatchObject({ commit: fixtures.commits.main });
    expect((byPath.structuredContent as Record<string, unknown>).commit).toBeUndefined();
    if (name === 'list_directory') {
      // A checkout's listing carries modification times; the paths, types and sizes are the commit's.
      const entries = (result: CallToolResult) => (withoutCommit(result).entries as { mtime?: string }[]).map(({ mtime: _mtime, ...entry }) => entry);
      expect(entries(byUrl)).toEqual(entries(byPath));
    } else {
      expect(withoutCommit(byUrl)).toEqual(withoutCommit(byPath));
    }
    expect(textOf(byUrl)).toContain(`(at commit ${fixtures.commits.main})`);
  }
  const read = await call('read_file', { repository: gitUrl, ref: 'main', path: 'src/app.ts', startLine: 2, endLine: 3 });
  expect(textOf(read)).toBe(`src/app.ts (lines 2-3 of 4)\n2\texport function twice(x: number) {\n3\t  return x * 2;\n(at commit ${fixtures.commits.main})`);
  // Another ref: the file as that commit has it.
  const first = await call('search_text', { repository: gitUrl, ref: 'v1.0', pattern: 'module.exports' });
  expect(first.structuredContent).toMatchObject({ commit: fixtures.commits.first, totalMatches: 0 });
  const head = await call('search_text', { repository: gitUrl, pattern: 'module.exports' });
  expect(head.structuredContent).toMatchObject({ commit: fixtures.commits.main, totalMatches: 1 });

  // The file as a resource, at a ref.
  const uri = `quarry://repo/${encodeURIComponent(gitUrl)}/src/util.js?ref=main`;
  const resource = await client.readResource({ uri });
  expect(resource.contents[0]).toMatchObject({ uri, mimeType: 'text/plain', text: 'module.exports = () => 1;\n// no newline at the end\n' });
  await expect(client.readResource({ uri: `quarry://repo/${encodeURIComponent(gitUrl)}/src/util.js?ref=v1.0` })).rejects.toThrow(/file_not_found/);

  expect(errorOf(await call('read_file', { repository: gitUrl, ref: 'no-such-branch', path: 'README.md' }))).toMatchObject({ kind: 'ref_not_found' });
  expect(errorOf(await call('search_text', { repository: gitUrl, ref: 'master', pattern: 'x' }))).toMatchObject({ kind: 'ref_not_found', suggestion: expect.stringContaining('main') });
  expect(errorOf(await call('read_file', { repository: 'file:///etc', path: 'passwd' }))).toMatchObject({ kind: expect.stringMatching(/^url_(invalid|blocked)$/) });
  expect(errorOf(await call('read_file', { repository: fixtures.checkout, ref: 'main', path: 'README.md' }))).toMatchObject({ kind: 'input_invalid' });
}
