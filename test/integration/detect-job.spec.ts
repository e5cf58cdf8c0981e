import fs from 'node:fs';
import os from 'node:os';
import { detectResultSchema, scanResultSchema } from '../../libs/contracts/src';
import { FakeChatServer } from '../../libs/llm/src/testing';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * The detect job through the real gateway, queue, worker and Postgres, with the LLM fallback
 * served by a chat-completions server on 127.0.0.1 and its answers cached in the llm_answers table.
 */

const zigAnswer = {
  language: 'zig', build_system: 'zig', framework: null, runtime: 'native', runtime_version: null, runtime_version_source: null,
  install_commands: [], build_commands: ['zig build'], start_command: null, ports: [], cache: ['.zig-cache'], confidence: 0.92,
  reasoning: 'build.zig.zon is a Zig package manifest.',
};

describe('the detect job', () => {
  let llm: FakeChatServer;
  let stack: TestStack;

  beforeAll(async () => {
    llm = await FakeChatServer.start();
    stack = await TestStack.start({ workspaceRoots: [fs.realpathSync(os.tmpdir())], llm: { baseUrl: llm.baseUrl, model: 'fake-model', timeoutMs: 3_000, maxRetries: 1, temperature: 0, retryBaseMs: 10 } });
  });
  afterEach(() => llm.reset());
  afterAll(async () => {
    await stack.close();
    await llm.close();
  });

  it('detects a pnpm + turbo monorepo per service, statically, with no LLM call', async () => {
    const root = makeTree({
      'package.json': JSON.stringify({ name: 'mono', private: true, packageManager: 'pnpm@9.1.0' }),
      'pnpm-workspace.yaml': 'packages:\n  - "apps/*"\n',
      'turbo.json': '{}',
      '.nvmrc': '20.11.1\n',
      'apps/web/package.json': JSON.stringify({ name: 'web', scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '14.2.0' } }),
      'apps/api/package.json': JSON.stringify({ name: 'api', scripts: { start: 'node dist/main.js' }, dependencies: { '@nestjs/core': '10' } }),
    });
    const submitted = await stack.submit('detect', { root });
    expect(submitted.status).toBe(202);
    const job = await stack.waitForStatus(submitted.body.id, ['succeeded', 'failed']);
    expect(job.error).toBeNull();
    const services = detectResultSchema.parse(job.result);
    expect(services.map((service) => [service.metadata.path, service.metadata.framework])).toEqual([['apps/api', 'nestjs'], ['apps/web', 'nextjs']]);
    expect(services[1]).toMatchObject({
      workspace: { root: '.', orchestrator: 'turborepo', manager: 'pnpm', members: ['apps/api', 'apps/web'] },
      runtime: { name: 'node', version: { requested: '20.11.1', source: '.nvmrc' } },
    });
    expect(services[1].build.commands).toContain('turbo run build --filter=web');
    expect(llm.requests).toHaveLength(0);
  });

  it('asks the LLM about unknown tech once; the answer is cached in Postgres for every later run', async () => {
    const root = makeTree({ 'build.zig.zon': '.{ .name = "tool", .version = "1.0.0" }', 'src/main.zig': 'pub fn main() void {}' });
    llm.reply(zigAnswer);
    const first = await stack.waitForStatus((await stack.submit('detect', { root })).body.id, ['succeeded', 'failed']);
    expect(first.result).toMatchObject([{ metadata: { language: 'zig', build_system: 'zig', detected_by: 'llm', confidence: 0.92 } }]);
    expect(llm.requests).toHaveLength(1);
    expect(await stack.prisma.llmAnswer.count({ where: { purpose: 'detect.service', model: 'fake-model', subject: 'build.zig.zon' } })).toBe(1);

    // A second tree with the same manifest: no new call, whichever worker runs it.
    const twin = makeTree({ 'build.zig.zon': '.{ .name = "tool", .version = "1.0.0" }', 'src/main.zig': 'pub fn main() void {}' });
    const second = await stack.waitForStatus((await stack.submit('detect', { root: twin })).body.id, ['succeeded', 'failed']);
    expect(second.result).toMatchObject([{ metadata: { language: 'zig', detected_by: 'llm' } }]);
    expect(llm.requests).toHaveLength(1);
  });

  it('mode static makes no call even for unknown tech, and says the service is unknown', async () => {
    const root = makeTree({ 'build.zig.zon': '.{ .name = "other" }', 'src/main.zig': '' });
    const job = await stack.waitForStatus((await stack.submit('detect', { root, mode: 'static' })).body.id, ['succeeded', 'failed']);
    expect(job.result).toMatchObject([{ metadata: { language: 'unknown', detected_by: 'static' } }]);
    expect(llm.requests).toHaveLength(0);
  });

  it('an LLM that is down does not fail the job: the service is unknown and the warning says why', async () => {
    const root = makeTree({ 'build.zig.zon': '.{ .name = "down" }', 'src/main.zig': '' });
    llm.fail(503).fail(503);
    const job = await stack.waitForStatus((await stack.submit('detect', { root })).body.id, ['succeeded', 'failed']);
    expect(job.status).toBe('succeeded');
    const [service] = detectResultSchema.parse(job.result);
    expect(service.metadata.language).toBe('unknown');
    expect(service.metadata.warnings[0]).toMatch(/LLM fallback unavailable: llm_unavailable/);
  });

  it('the scan job carries the stack of every service', async () => {
    const root = makeTree({ 'go.mod': 'module example.com/svc\n\ngo 1.22\n', 'main.go': 'package main\n', 'README.md': '# svc\n' });
    const job = await stack.waitForStatus((await stack.submit('scan', { root })).body.id, ['succeeded', 'failed']);
    const result = scanResultSchema.parse(job.result);
    expect(result.files).toBe(3);
    expect(result.stack).toMatchObject([{ metadata: { path: '.', language: 'go', build_system: 'go' }, runtime: { version: { requested: '1.22' } } }]);
  });

  it.each([
    ['an unknown mode', { mode: 'guess' }, 400, 'input_invalid'],
    ['a root outside the allowed roots', { root: '/etc' }, 403, 'path_outside_root'],
    ['a relative root', { root: 'repo' }, 400, 'path_not_absolute'],
  ])('refuses %s with a typed 4xx', async (_name, input, status, kind) => {
    const response = await stack.submit('detect', { root: makeTree({ 'a.txt': '' }), ...input });
    expect(response.status).toBe(status);
    expect(response.body.kind).toBe(kind);
    expect(response.body.suggestion).toEqual(expect.any(String));
  });
});
