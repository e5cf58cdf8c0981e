import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { navigationResultSchemas } from '../../libs/contracts/src';
import { assertBuilt } from '../support/processes';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';
import { connectHttp, connectStdio, errorOf, recordProgress, textOf, type StdioServer } from '../support/mcp';

/*
 * The navigation tools (find_references, go_to_definition, call_graph, file_outline,
 * file_imports, change_impact) through the MCP SDK's client on both transports: a spawned
 * `quarry mcp --root DIR` (in-process), and the gateway's /mcp on real Redis and Postgres. Each
 * answer is checked against the repository's known graph, and each bad input is a typed tool error.
 */

/** A small TypeScript project with a known graph: main and a test call Server.start, which calls listen. */
function navigationRepository(): string {
  const root = makeTree({
    'src/server.ts': 'import { listen } from "./net";\nexport class Server {\n  start(port: number): void {\n    listen(port);\n  }\n}\n',
    'src/net.ts': 'export function listen(port: number): number {\n  return port;\n}\n',
    'src/main.ts': 'import { Server } from "./server";\nnew Server().start(8080);\n',
    'test/server.test.ts': 'import { Server } from "../src/server";\ntest("starts", () => new Server().start(1));\n',
  });
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-q', '-m', 'x');
  return root;
}

const LISTEN_CHANGE = 'diff --git a/src/net.ts b/src/net.ts\n--- a/src/net.ts\n+++ b/src/net.ts\n@@ -1,3 +1,3 @@\n export function listen(port: number): number {\n-  return port;\n+  return port + 1;\n }\n';

async function checkNavigationTools(client: Client, root: string): Promise<void> {
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect({ name, error: result.isError ? textOf(result) : undefined }).toEqual({ name, error: undefined });
    return { data: result.structuredContent as any, text: textOf(result) };
  };

  // The first read of the tree indexes it: that is reported as progress.
  const { seen, onprogress } = recordProgress();
  const first = (await client.callTool({ name: 'find_references', arguments: { symbol: 'Server.start' } }, undefined, { onprogress })) as CallToolResult;
  const references = navigationResultSchemas.references.parse(first.structuredContent);
  expect(references.symbol).toMatchObject({ path: 'src/server.ts', name: 'start', container: 'Server', line: 3 });
  expect(references.references.map((use) => `${use.path}:${use.line}`)).toEqual(['src/main.ts:2', 'test/server.test.ts:2']);
  expect(textOf(first)).toContain('Server.start (method) at src/server.ts:3: 2 uses in 2 files\nsrc/main.ts\n  2:14  new Server().start(8080);');
  expect(seen.length).toBeGreaterThan(0);

  const definition = await call('go_to_definition', { symbol: 'src/server.ts:4' });
  expect(definition.data.definitions[0]).toMatchObject({ path: 'src/net.ts', name: 'listen', line: 1 });
  expect(definition.text).toContain('src/net.ts:1  function');

  const callers = await call('call_graph', { symbol: 'listen', direction: 'callers', depth: 2 });
  expect(callers.data.entries.map((entry: { name: string; distance: number }) => `${entry.name}@${entry.distance}`)).toEqual(['start@1']);
  const callees = await call('call_graph', { repository: root, symbol: 'Server.start', direction: 'callees' });
  expect(callees.data).toMatchObject({ direction: 'callees', entries: [expect.objectContaining({ path: 'src/net.ts', name: 'listen' })] });

  const outline = await call('file_outline', { path: 'src/server.ts' });
  expect(outline.data.definitions.map((entry: { name: string; depth: number }) => `${entry.depth} ${entry.name}`)).toEqual(['0 Server', '1 start']);
  const importers = await call('file_imports', { path: 'src/server.ts', direction: 'importedBy' });
  expect(importers.data.files.map((edge: { path: string }) => edge.path).sort()).toEqual(['src/main.ts', 'test/server.test.ts']);
  const imported = await call('file_imports', { path: 'src/server.ts', direction: 'imports' });
  expect(imported.data.files.map((edge: { path: string }) => edge.path)).toEqual(['src/net.ts']);

  const impact = await call('change_impact', { diff: LISTEN_CHANGE });
  expect(impact.data.changed.map((entry: { name: string }) => entry.name)).toEqual(['listen']);
  expect(impact.data.tests.map((entry: { path: string }) => entry.path)).toEqual(['test/server.test.ts']);
  expect(impact.text).toContain('tests to run: 1');

  // The working tree's uncommitted edit: the same change, made on disk.
  const net = path.join(root, 'src/net.ts');
  const committed = fs.readFileSync(net, 'utf8');
  fs.writeFileSync(net, committed.replace('return port;', 'return port + 1;'));
  try {
    const working = await call('change_impact', { workingTree: true });
    expect(working.data.changed.map((entry: { name: string }) => entry.name)).toEqual(['listen']);
    expect(working.data.tests.map((entry: { path: string }) => entry.path)).toEqual(['test/server.test.ts']);
  } finally {
    fs.writeFileSync(net, committed);
  }

  const refuse = async (name: string, args: Record<string, unknown>) => errorOf((await client.callTool({ name, arguments: args })) as CallToolResult);
  expect(await refuse('find_references', { symbol: 'Sever.start' })).toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('Server.start') });
  expect(await refuse('call_graph', { symbol: 'listen', direction: 'callers', depth: 0 })).toMatchObject({ kind: 'depth_invalid' });
  expect(await refuse('call_graph', { symbol: 'listen', direction: 'callers', depth: 1000 })).toMatchObject({ kind: 'depth_invalid' });
  expect(await refuse('file_outline', { path: '../../etc/passwd' })).toMatchObject({ kind: 'path_outside_root' });
  expect(await refuse('file_outline', { path: 'src/sever.ts' })).toMatchObject({ kind: 'file_not_found', suggestion: expect.stringContaining('src/server.ts') });
  const stale = LISTEN_CHANGE.replace('@@ -1,3 +1,3 @@', '@@ -1,1 +1,1 @@').replace(' export function listen(port: number): number {\n-  return port;\n+  return port + 1;\n }\n', '-nothing like this\n+x\n');
  expect(await refuse('change_impact', { diff: stale })).toMatchObject({ kind: 'diff_not_applicable', message: expect.stringContaining('@@ -1,1 +1,1 @@') });
  expect(await refuse('change_impact', {})).toMatchObject({ kind: 'input_invalid' });
  expect(await refuse('change_impact', { diff: LISTEN_CHANGE, workingTree: true })).toMatchObject({ kind: 'input_invalid' });
}

describe('the navigation tools over stdio (quarry mcp --root, in-process)', () => {
  let server: StdioServer;
  let root: string;

  beforeAll(async () => {
    assertBuilt();
    root = navigationRepository();
    server = await connectStdio(['--root', root, '--toolsets', 'navigation']);
  });
  afterAll(async () => {
    await server?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('answer references, definitions, callers and callees, outlines, imports and impact; refuse bad input with typed errors', async () => {
    await checkNavigationTools(server.client, root);
  }, 120_000);
});

describe('the navigation tools over Streamable HTTP (the gateway\'s /mcp)', () => {
  let stack: TestStack;
  let client: Client;
  let root: string;

  beforeAll(async () => {
    root = navigationRepository();
    stack = await TestStack.start({ workspaceRoots: [root] });
    client = await connectHttp(stack.url, undefined, 'navigation');
  });
  afterAll(async () => {
    await client?.close();
    await stack?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('answer references, definitions, callers and callees, outlines, imports and impact; refuse bad input with typed errors', async () => {
    await checkNavigationTools(client, root);
  }, 120_000);

  it('refuse a repository outside the gateway\'s workspace roots', async () => {
    const result = (await client.callTool({ name: 'find_references', arguments: { repository: '/etc', symbol: 'x' } })) as CallToolResult;
    expect(errorOf(result)).toMatchObject({ kind: 'path_outside_root' });
  });
});
