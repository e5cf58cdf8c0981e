import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { navigationResultSchemas } from '../../libs/contracts/src';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * POST /v1/navigation through the real gateway on real Postgres: each query answered in the
 * request on the commit the directory is at, from the code-index rows the scan stored (a scan
 * first, then a query that indexes nothing again), and every bad input a typed 4xx.
 */

describe('POST /v1/navigation', () => {
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    root = makeTree({
      'src/server.ts': 'import { listen } from "./net";\nexport class Server {\n  start(port: number): void {\n    listen(port);\n  }\n}\n',
      'src/net.ts': 'export function listen(port: number): number {\n  return port;\n}\n',
      'src/main.ts': 'import { Server } from "./server";\nnew Server().start(8080);\n',
      'test/server.test.ts': 'import { Server } from "../src/server";\ntest("starts", () => new Server().start(1));\n',
    });
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-q', '-m', 'x');
    stack = await TestStack.start({ workspaceRoots: [root] });
  });
  afterAll(async () => {
    await stack.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const ask = (body: Record<string, unknown>) => stack.request('POST', '/v1/navigation', { root, ...body });

  it('answers each query on the commit, reading the rows a scan stored', async () => {
    const scan = await stack.submit('scan', { root });
    await stack.waitForStatus(scan.body.id, ['succeeded'], 30_000);
    const head = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

    const references = await ask({ query: 'references', symbol: 'Server.start' });
    expect(references.status).toBe(200);
    const refs = navigationResultSchemas.references.parse(references.body);
    expect(refs.source.commit).toBe(head);
    expect(refs.references.map((use) => `${use.path}:${use.line}`).sort()).toEqual(['src/main.ts:2', 'test/server.test.ts:2']);

    const callers = navigationResultSchemas.callers.parse((await ask({ query: 'callers', symbol: 'listen', depth: 2 })).body);
    expect(callers.entries.map((entry) => `${entry.distance} ${entry.container ? `${entry.container}.` : ''}${entry.name}`)).toEqual(expect.arrayContaining(['1 Server.start']));

    const definition = navigationResultSchemas.definition.parse((await ask({ query: 'definition', symbol: 'src/server.ts:4' })).body);
    expect(definition.definitions[0]).toMatchObject({ path: 'src/net.ts', name: 'listen' });

    const importedBy = navigationResultSchemas.importedBy.parse((await ask({ query: 'importedBy', path: 'src/server.ts' })).body);
    expect(importedBy.files.map((edge) => edge.path).sort()).toEqual(['src/main.ts', 'test/server.test.ts']);

    const outline = navigationResultSchemas.outline.parse((await ask({ query: 'outline', path: 'src/server.ts' })).body);
    expect(outline.definitions.map((entry) => entry.name)).toEqual(['Server', 'start']);

    const diff = 'diff --git a/src/net.ts b/src/net.ts\n--- a/src/net.ts\n+++ b/src/net.ts\n@@ -1,3 +1,3 @@\n export function listen(port: number): number {\n-  return port;\n+  return port + 1;\n }\n';
    const impact = navigationResultSchemas.impact.parse((await ask({ query: 'impact', diff })).body);
    expect(impact.changed.map((entry) => entry.name)).toEqual(['listen']);
    expect(impact.tests.map((entry) => entry.path)).toEqual(['test/server.test.ts']);
  });

  it.each([
    [{ query: 'references', symbol: 'Sever.start' }, 404, 'symbol_not_found'],
    [{ query: 'references' }, 400, 'input_invalid'],
    [{ query: 'callers', symbol: 'listen', depth: 0 }, 400, 'depth_invalid'],
    [{ query: 'callers', symbol: 'listen', depth: 1000 }, 400, 'depth_invalid'],
    [{ query: 'outline', path: '../../etc/passwd' }, 403, 'path_outside_root'],
    [{ query: 'impact' }, 400, 'input_invalid'],
    [{ query: 'impact', diff: 'diff --git a/src/net.ts b/src/net.ts\n--- a/src/net.ts\n+++ b/src/net.ts\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n' }, 409, 'diff_not_applicable'],
    [{ query: 'refs', symbol: 'x' }, 400, 'input_invalid'],
  ])('refuses %j with %i %s', async (body, status, kind) => {
    const answer = await ask(body);
    expect({ status: answer.status, kind: answer.body.kind }).toEqual({ status, kind });
    expect(answer.body.suggestion ?? answer.body.message).toBeTruthy();
  });

  it('refuses a repository outside the workspace roots', async () => {
    const answer = await stack.request('POST', '/v1/navigation', { root: '/etc', query: 'outline', path: 'passwd' });
    expect(answer.status).toBe(403);
    expect(answer.body.kind).toBe('path_outside_root');
  });
});
