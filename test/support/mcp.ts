import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from '../../libs/code-index/src/tokens/token-counter';
import { execFileSync } from 'node:child_process';
import { QUARRY_BIN, childEnv, repoRoot } from './processes';
import { makeTree } from './trees';

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

/** A client on a gateway's /mcp, with an API key when given, offering `toolsets` (?toolsets=) when given. */
export async function connectHttp(baseUrl: string, key?: string, toolsets?: string): Promise<Client> {
  const client = new Client({ name: 'quarry-test', version: '1' });
  const url = new URL('/mcp', baseUrl);
  if (toolsets !== undefined) url.searchParams.set('toolsets', toolsets);
  const transport = new StreamableHTTPClientTransport(url, {
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
  'find_references',
  'go_to_definition',
  'call_graph',
  'file_outline',
  'file_imports',
  'change_impact',
  'expand_mentions',
  'detect_stack',
  'scan_repository',
  'fetch_url',
  'ask',
  'find_symbol',
  'repo_map',
  'pack_repository',
  'find_relevant_code',
];

/** What a server lists when not told which toolsets: files, search, context. */
export const DEFAULT_TOOLS = ['read_file', 'list_directory', 'find_files', 'search_text', 'find_relevant_code', 'expand_mentions', 'find_symbol', 'repo_map'];

/** Lists the tools and checks each schema compiles, describes every argument, and accepts a sample call. */
export async function listAndValidateTools(client: Client, expected: readonly string[] = EXPECTED_TOOLS): Promise<Tool[]> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual([...expected].sort());
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
  expect(Object.keys(read?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['path', 'startLine', 'endLine', 'repository', 'maxTokens', 'cursor']));
  expect(read?.inputSchema.required).toEqual(['path']);
  return tools;
}

const SAMPLE_ARGUMENTS: Record<string, Record<string, unknown>> = {
  read_file: { path: 'src/app.js', startLine: 1, endLine: 2 },
  list_directory: { path: 'src', recursive: true },
  find_files: { pattern: '*.js' },
  search_text: { pattern: 'greet', regex: false },
  find_references: { symbol: 'Server.start', limit: 50 },
  go_to_definition: { symbol: 'src/app.ts:2:13' },
  call_graph: { symbol: 'parseConfig', direction: 'callers', depth: 2 },
  file_outline: { path: 'src/app.js' },
  file_imports: { path: 'src/app.js', direction: 'importedBy' },
  change_impact: { workingTree: true, depth: 2 },
  expand_mentions: { prompt: 'see @src/app.js' },
  detect_stack: { mode: 'static' },
  scan_repository: {},
  fetch_url: { url: 'https://example.org/' },
  ask: { query: 'list src', ai: 'off' },
  find_symbol: { name: 'Server.start', path: 'src/**' },
  find_relevant_code: { task: 'greet prints the wrong name', tokens: 2000 },
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
  const { source: _source, index: _index, page: _page, ...definitionsFound } = symbols.data as Record<string, unknown>;
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
  // What names the read (the commit, the index state, the page's size, the content version) aside, a URL answers as its checkout.
  const withoutCommit = (result: CallToolResult) => {
    const { commit: _commit, index: _index, page: _page, version: _version, ...rest } = result.structuredContent as Record<string, unknown>;
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

/** The answer as a client receives it, in o200k tokens (what the budgets bound). */
export function answerTokens(result: CallToolResult): number {
  const { content, structuredContent, isError, _meta } = result;
  return countTokens(JSON.stringify({ content, structuredContent, isError, _meta }));
}

/** The default tool list: the default toolsets' tools, for at most 3,000 o200k tokens. */
export async function checkDefaultToolList(client: Client): Promise<number> {
  const listed = await client.listTools();
  expect(listed.tools.map((tool) => tool.name)).toEqual(DEFAULT_TOOLS);
  const tokens = countTokens(JSON.stringify(listed));
  expect(tokens).toBeLessThanOrEqual(3_000);
  return tokens;
}

/** A file of `lines` numbered lines of varied length (one very long), about 3 MB at 40,000 lines. */
export function numberedLines(lines: number): string[] {
  return Array.from({ length: lines }, (_, index) =>
    index === 77 ? `line 78 ${'long '.repeat(4_000)}` : `line ${index + 1}: ${'the quick brown fox '.repeat(1 + (index % 6))}${index % 100 === 0 ? 'needle' : ''}`,
  );
}

/** Every page of a call, following structuredContent.nextCursor with the same arguments. */
export async function followPages(client: Client, name: string, args: Record<string, unknown>, maxPages = 200): Promise<CallToolResult[]> {
  const pages: CallToolResult[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.callTool({ name, arguments: cursor ? { ...args, cursor } : args })) as CallToolResult;
    expect({ name, isError: page.isError ?? false, text: page.isError ? textOf(page) : '' }).toEqual({ name, isError: false, text: '' });
    pages.push(page);
    cursor = (page.structuredContent as { nextCursor?: string }).nextCursor;
  } while (cursor && pages.length < maxPages);
  expect(cursor).toBeUndefined();
  return pages;
}

/** The file's lines as the pages of read_file gave them (a line split into parts joined again). */
export function linesOfPages(pages: CallToolResult[]): Map<number, string> {
  const lines = new Map<number, string>();
  for (const page of pages) {
    for (const line of (page.structuredContent as { lines: { number: number; text: string; column?: number }[] }).lines) {
      if (line.column) {
        expect(lines.get(line.number)?.length).toBe(line.column - 1); // the part continues exactly where the last ended
        lines.set(line.number, lines.get(line.number) + line.text);
      } else {
        expect(lines.has(line.number)).toBe(false); // no line twice
        lines.set(line.number, line.text);
      }
    }
  }
  return lines;
}

/**
 * Budgets and cursors as the acceptance check uses them: read_file and search_text answers within
 * 8,000 tokens by default and 24,000 however much is asked for; nextCursor passed back as `cursor`
 * continues exactly (every line once); index.commit on every answer.
 */
export async function checkBudgetsAndCursors(client: Client, repository: string, big: { path: string; lines: string[] }, commit: string): Promise<void> {
  const first = (await client.callTool({ name: 'read_file', arguments: { repository, path: big.path } })) as CallToolResult;
  expect(answerTokens(first)).toBeLessThanOrEqual(8_000);
  expect(answerTokens(first)).toBeGreaterThan(6_000);
  expect(first.structuredContent).toMatchObject({ index: { commit }, page: { unit: 'line', first: 1 }, nextCursor: expect.any(String) });
  expect(textOf(first)).toContain('"cursor": "q1.');
  // The cursor alone continues too (a call's short arguments travel in it).
  const { nextCursor, page } = first.structuredContent as { nextCursor: string; page: { last: number } };
  const alone = (await client.callTool({ name: 'read_file', arguments: { cursor: nextCursor } })) as CallToolResult;
  // It starts where the first page stopped: the next line, or the rest of a long line cut there.
  const resumed = (alone.structuredContent as { lines: { number: number; column?: number }[] }).lines[0];
  expect(resumed.column ? resumed.number : resumed.number - 1).toBe(page.last);
  const asked = (await client.callTool({ name: 'read_file', arguments: { repository, path: big.path, maxTokens: 1_000_000 } })) as CallToolResult;
  expect(answerTokens(asked)).toBeLessThanOrEqual(24_000);
  expect(answerTokens(asked)).toBeGreaterThan(20_000);

  // A range across the long line, page by page: every line once, in order.
  const pages = await followPages(client, 'read_file', { repository, path: big.path, startLine: 50, endLine: 1_250, maxTokens: 6_000 });
  expect(pages.length).toBeGreaterThan(3);
  for (const page of pages) expect(answerTokens(page)).toBeLessThanOrEqual(6_000);
  const lines = linesOfPages(pages);
  expect([...lines.keys()]).toEqual(Array.from({ length: 1_201 }, (_, n) => 50 + n));
  for (const [number, text] of lines) expect(text).toBe(big.lines[number - 1]);

  // search_text: every match once across pages.
  const search = await followPages(client, 'search_text', { repository, pattern: 'needle', glob: big.path, maxResults: 500 });
  expect(search.length).toBeGreaterThan(1);
  const matches = search.flatMap((page) => (page.structuredContent as { matches: { line: number }[] }).matches.map((match) => match.line));
  expect(matches).toEqual(big.lines.flatMap((line, index) => (line.includes('needle') ? [index + 1] : [])));
  for (const page of search) {
    expect(answerTokens(page)).toBeLessThanOrEqual(8_000);
    // The checkout's search index builds from the first search on: a page may come from either.
    expect(page.structuredContent).toMatchObject({ index: { commit, read: expect.stringMatching(/^(files|index)$/) } });
  }
}

/**
 * The working tree at once: each kind of edit (changed, added, deleted, renamed, uncommitted) is
 * seen by the next read, search and symbol look-up, and counted in index.dirty against the commit.
 * Leaves the repository as it found it.
 */
export async function checkWorkingTreeOverlay(client: Client, repository: string, commit: string): Promise<void> {
  const fs = await import('node:fs');
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: { repository, ...args } })) as CallToolResult;
  const data = (result: CallToolResult) => result.structuredContent as any;
  const file = (relative: string) => path.join(repository, relative);
  const original = fs.readFileSync(file('src/util.js'), 'utf8');
  try {
    const clean = data(await call('search_text', { pattern: 'greet' }));
    expect(clean.index).toMatchObject({ commit, dirty: 0 });

    // Changed: the new text is read, searched, and its definitions found.
    fs.writeFileSync(file('src/util.js'), 'exports.salute = (name) => `hi ${name}`;\nfunction freshlyDefined() { return 1; }\n');
    const changed = data(await call('search_text', { pattern: 'freshlyDefined' }));
    expect(changed.matches).toEqual([expect.objectContaining({ path: 'src/util.js', line: 2 })]);
    expect(changed.index).toMatchObject({ commit, dirty: 1 });
    expect(data(await call('read_file', { path: 'src/util.js', startLine: 2, endLine: 2 })).lines).toEqual([{ number: 2, text: 'function freshlyDefined() { return 1; }' }]);
    expect(data(await call('find_symbol', { name: 'freshlyDefined' })).definitions).toEqual([expect.objectContaining({ path: 'src/util.js', line: 2 })]);

    // Added, in a new directory.
    fs.mkdirSync(file('lib/added'), { recursive: true });
    fs.writeFileSync(file('lib/added/extra.js'), 'function addedLater() {}\n');
    expect(data(await call('find_symbol', { name: 'addedLater' })).definitions).toEqual([expect.objectContaining({ path: 'lib/added/extra.js' })]);
    expect(data(await call('find_files', { pattern: 'extra.js' })).matches).toEqual(['lib/added/extra.js']);
    expect(data(await call('search_text', { pattern: 'addedLater' })).index).toMatchObject({ dirty: 2 });

    // Renamed: found at the new path only, counted once.
    fs.renameSync(file('lib/added/extra.js'), file('lib/added/moved.js'));
    expect(data(await call('find_symbol', { name: 'addedLater' })).definitions).toEqual([expect.objectContaining({ path: 'lib/added/moved.js' })]);
    fs.renameSync(file('src/app.js'), file('src/main.js'));
    const renamed = data(await call('search_text', { pattern: "require('./util')" }));
    expect(renamed.matches).toEqual([expect.objectContaining({ path: 'src/main.js' })]);
    expect(renamed.index).toMatchObject({ dirty: 3 });

    // Deleted: gone from every answer.
    fs.unlinkSync(file('lib/added/moved.js'));
    expect(errorOf(await call('find_symbol', { name: 'addedLater' }))).toMatchObject({ kind: 'symbol_not_found' });
    expect(errorOf(await call('read_file', { path: 'lib/added/moved.js' }))).toMatchObject({ kind: 'file_not_found' });
    expect(data(await call('search_text', { pattern: 'addedLater' })).totalMatches).toBe(0);
  } finally {
    fs.rmSync(file('lib'), { recursive: true, force: true });
    if (fs.existsSync(file('src/main.js'))) fs.renameSync(file('src/main.js'), file('src/app.js'));
    fs.writeFileSync(file('src/util.js'), original);
  }
  expect(data(await call('search_text', { pattern: 'greet' })).index).toMatchObject({ commit, dirty: 0 });
}

/** A git checkout of DEMO_REPOSITORY with a 3 MB file, committed: answers name its HEAD. */
export function committedRepository(): { root: string; commit: string; big: { path: string; lines: string[] } } {
  const lines = numberedLines(40_000);
  const root = makeTree({ ...DEMO_REPOSITORY, 'data/big.txt': `${lines.join('\n')}\n` });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'demo');
  return { root, commit: git('rev-parse', 'HEAD'), big: { path: 'data/big.txt', lines } };
}


/**
 * A checkout's search index over MCP: the first search of it reads the files and starts the build
 * (`index.searchIndex.state: building`, `building: true`), later ones come from the index
 * (`read: 'index'`) — and every kind of edit is in the next answer, its counts equal to `rg -c` on
 * the working tree: a file modified, added, deleted, renamed, and an ignored one rg skips.
 */
export async function checkSearchIndexOverlay(client: Client, repository: string, commit: string): Promise<void> {
  const fs = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const search = async (pattern: string) => (await client.callTool({ name: 'search_text', arguments: { repository, pattern, maxResults: 200 } })) as CallToolResult;
  const data = (result: CallToolResult) => result.structuredContent as { totalMatches: number; filesMatched: number; matches: Array<{ path: string }>; index: { read: string; building: boolean; commit: string; searchIndex?: { state: string } } };
  const file = (relative: string) => path.join(repository, relative);
  const rgTotal = (pattern: string) => {
    const run = spawnSync('rg', ['-c', '--no-config', '-F', '-i', '--', pattern, '.'], { cwd: repository, encoding: 'utf8' });
    return run.stdout.split('\n').filter(Boolean).reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1)), 0);
  };
  const expectIndexedLikeRg = async (pattern: string) => {
    const answer = data(await search(pattern));
    expect({ pattern, read: answer.index.read, total: answer.totalMatches }).toEqual({ pattern, read: 'index', total: rgTotal(pattern) });
    return answer;
  };
  const first = data(await search('greet'));
  expect(first.index.commit).toBe(commit);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = data(await search('greet'));
    if (answer.index.read === 'index') {
      expect(answer.index.searchIndex).toEqual({ state: 'ready' });
      expect(answer.totalMatches).toBe(first.totalMatches);
      break;
    }
    // Read from the files: while the index builds (or before the tree's first walk has let the search ask for it).
    if (answer.index.searchIndex) expect(answer.index).toMatchObject({ building: true, searchIndex: { state: 'building' } });
    if (Date.now() > deadline) throw new Error(`the search index was not ready in 60 s: ${JSON.stringify(answer.index)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const original = fs.readFileSync(file('src/util.js'), 'utf8');
  const app = fs.readFileSync(file('src/app.js'), 'utf8');
  try {
    await expectIndexedLikeRg('greet');
    fs.writeFileSync(file('src/util.js'), 'exports.salute = (name) => `indexOverlayModified ${name}`;\n');
    expect((await expectIndexedLikeRg('indexOverlayModified')).matches.map((match) => match.path)).toEqual(['src/util.js']);
    await expectIndexedLikeRg('greet');
    fs.mkdirSync(file('lib/overlay'), { recursive: true });
    fs.writeFileSync(file('lib/overlay/added.js'), 'const indexOverlayAdded = 1;\n');
    expect((await expectIndexedLikeRg('indexOverlayAdded')).matches.map((match) => match.path)).toEqual(['lib/overlay/added.js']);
    fs.renameSync(file('src/app.js'), file('lib/overlay/app-moved.js'));
    expect((await expectIndexedLikeRg("require('./util')")).matches.map((match) => match.path)).toEqual(['lib/overlay/app-moved.js']);
    fs.unlinkSync(file('lib/overlay/app-moved.js'));
    expect((await expectIndexedLikeRg("require('./util')")).totalMatches).toBe(0);
    fs.writeFileSync(file('lib/overlay/skipped.log'), 'indexOverlayAdded in a log\n');
    fs.writeFileSync(file('.gitignore'), '*.log\n');
    await expectIndexedLikeRg('indexOverlayAdded');
  } finally {
    fs.rmSync(file('lib'), { recursive: true, force: true });
    fs.writeFileSync(file('src/util.js'), original);
    fs.writeFileSync(file('src/app.js'), app);
    fs.rmSync(file('.gitignore'), { force: true });
  }
}
