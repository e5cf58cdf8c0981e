import { LlmClient, MemoryAnswerCache } from '@quarry/llm';
import { FakeChatServer } from '@quarry/llm/testing';
import { detectResultSchema } from '@quarry/contracts';
import { detectStack, type DetectOptions } from '../detect-stack';
import { removeFixtures, writeFixture, type Fixture } from '../testing/fixture';
import type { ServiceAnswer, WorkspaceAnswer } from './stack-oracle';

/*
 * The LLM path end to end: real detection over temp trees, the real LlmClient, and a real
 * chat-completions server on 127.0.0.1 that replays scripted answers (FakeChatServer).
 */

let server: FakeChatServer;
beforeAll(async () => {
  server = await FakeChatServer.start();
});
afterEach(() => {
  const pending = server.pending;
  server.reset();
  expect(pending).toBe(0); // every scripted answer was asked for: no test passes by not calling
});
afterAll(async () => {
  await server.close();
  await removeFixtures();
});

const llm = (timeoutMs = 2_000) => new LlmClient({ baseUrl: server.baseUrl, model: 'test-model', timeoutMs, maxRetries: 1, retryBaseMs: 10 });

async function detect(files: Fixture, options: DetectOptions) {
  const builds = await detectStack(await writeFixture(files), options);
  detectResultSchema.parse(builds);
  return builds;
}

function serviceAnswer(overrides: Partial<ServiceAnswer>): ServiceAnswer {
  return {
    language: 'zig', build_system: 'zig', framework: null, runtime: 'native', runtime_version: '0.13.0', runtime_version_source: 'build.zig.zon',
    install_commands: ['zig build --fetch'], build_commands: ['zig build -Doptimize=ReleaseFast'], start_command: './zig-out/bin/app', ports: [],
    cache: ['.zig-cache'], confidence: 0.9, reasoning: 'build.zig.zon names a Zig package.', ...overrides,
  };
}

const zigFiles: Fixture = { 'build.zig.zon': '.{ .name = "app", .version = "0.1.0", .minimum_zig_version = "0.13.0" }', 'src/main.zig': 'pub fn main() void {}' };
const nextApp = { name: 'site', scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '14' } };

/** Repositories of known tech: detection must never ask the model about them in full mode. */
const KNOWN_TECH: Record<string, Fixture> = {
  'next.js app': { 'package.json': nextApp },
  'rust cli': { 'Cargo.toml': '[package]\nname = "cli"\nversion = "0.1.0"\n', 'src/main.rs': '' },
  'go module': { 'go.mod': 'module example.com/x\n\ngo 1.22\n', 'main.go': '' },
  'python library': { 'pyproject.toml': '[project]\nname = "lib"\nrequires-python = ">=3.11"\n', 'uv.lock': '' },
  'pnpm + turbo monorepo': {
    'package.json': { name: 'mono', private: true, packageManager: 'pnpm@9.0.0' },
    'pnpm-workspace.yaml': 'packages:\n  - "apps/*"\n',
    'turbo.json': '{}',
    'apps/web/package.json': nextApp,
    'apps/api/package.json': { name: 'api', dependencies: { express: '4' } },
  },
  'make-only C': { Makefile: 'all:\n\tcc -o app main.c\n', 'main.c': '' },
  'plain library with no framework': { 'package.json': { name: 'left-pad', main: 'index.js' } },
};

describe('zero LLM calls where none is needed', () => {
  it.each(Object.entries(KNOWN_TECH))('full mode on known tech (%s) asks nothing', async (_name, files) => {
    const builds = await detect(files, { mode: 'full', llm: llm() });
    expect(server.requests).toHaveLength(0);
    expect(builds.every((build) => build.metadata.detected_by === 'static')).toBe(true);
    expect(builds.flatMap((build) => build.metadata.warnings).join()).not.toMatch(/no LLM is configured/);
  });

  it('static mode never asks, even for unknown tech with an LLM configured', async () => {
    const [build] = await detect(zigFiles, { mode: 'static', llm: llm() });
    expect(server.requests).toHaveLength(0);
    expect(build.metadata.language).toBe('unknown');
  });
});

describe('unknown tech goes to the LLM, last', () => {
  it('full mode: an unrecognised Zig package is identified by the model, with one call', async () => {
    server.reply(serviceAnswer({}));
    const [build] = await detect(zigFiles, { mode: 'full', llm: llm() });
    expect(server.requests).toHaveLength(1);
    expect(build.metadata).toMatchObject({ language: 'zig', build_system: 'zig', detected_by: 'llm', confidence: 0.9, reasoning: 'build.zig.zon names a Zig package.', warnings: [] });
    expect(build.build.commands).toEqual(['zig build --fetch', 'zig build -Doptimize=ReleaseFast']);
    // The build system id the model named is one the deterministic table knows, so its runtime answers first.
    expect(build.runtime).toMatchObject({ name: 'native', version: { source: 'default' } });

    const request = server.requests[0].body;
    expect(request.model).toBe('test-model');
    expect(request.temperature).toBe(0);
    expect(request.response_format.json_schema.name).toBe('service_stack');
    const question = request.messages[1].content as string;
    expect(question).toContain('--- build.zig.zon ---');
    expect(question).toContain('minimum_zig_version');
    expect(question).not.toContain('pub fn main'); // sources are listed, not sent
  });

  const noWorkspace: WorkspaceAnswer = { orchestrator: null, members: [], build_command: null, confidence: 0.9, reasoning: 'A single package.' };

  it('llm-only mode: Zig, as the deterministic table would say, but from the model (workspace question first)', async () => {
    server.reply(noWorkspace).reply(serviceAnswer({ runtime: 'zig', start_command: './zig-out/bin/app' }));
    const [build] = await detect({ 'build.zig': 'const std = @import("std");', ...zigFiles }, { mode: 'llm-only', llm: llm() });
    expect(build.metadata).toMatchObject({ language: 'zig', detected_by: 'llm' });
    expect(build.runtime).toMatchObject({ name: 'zig', command: './zig-out/bin/app', version: { requested: '0.13.0', source: 'build.zig.zon' } });
    expect(server.requests.map((request) => request.body.response_format.json_schema.name)).toEqual(['workspace_layout', 'service_stack']);
  });

  it('llm-only mode asks even for known tech, and the model answers with the same ids', async () => {
    server.reply(noWorkspace).reply(serviceAnswer({ language: 'TypeScript', build_system: 'npm', framework: 'Next.js', runtime: 'Node.js', runtime_version: null, runtime_version_source: null, start_command: 'npm start', ports: [3000] }));
    const [build] = await detect({ 'package.json': nextApp }, { mode: 'llm-only', llm: llm() });
    expect(build.metadata).toMatchObject({ language: 'typescript', build_system: 'npm', framework: 'nextjs', detected_by: 'llm' });
    expect(build.runtime).toMatchObject({ name: 'node', ports: [3000], version: { source: 'default' } });
  });

  it('a Deno Fresh app: static finds Deno, the model names the framework nothing else knows', async () => {
    server.reply(serviceAnswer({ language: 'typescript', build_system: 'deno', framework: 'fresh', runtime: 'deno', start_command: 'deno task start', ports: [8000], confidence: 0.85 }));
    const [build] = await detect(
      {
        'deno.json': { tasks: { start: 'deno run -A --watch=static/,routes/ dev.ts' }, imports: { $fresh: 'https://deno.land/x/fresh@1.6.8/' } },
        'routes/index.tsx': '',
        'islands/Counter.tsx': '',
        'main.ts': '',
      },
      { mode: 'full', llm: llm() },
    );
    expect(server.requests).toHaveLength(1);
    expect(build.metadata).toMatchObject({ language: 'typescript', build_system: 'deno', framework: 'fresh', detected_by: 'llm' });
    expect(build.runtime.name).toBe('deno'); // the deterministic runtime still answers first
  });

  it('a Bazel monorepo: the model lists the members (made-up ones are dropped); each member stack is static', async () => {
    const workspace: WorkspaceAnswer = {
      orchestrator: 'Bazel', members: ['services/api', './services/worker/', 'services/ghost'], build_command: 'bazel build //{member}/...', confidence: 0.8, reasoning: 'MODULE.bazel at the root.',
    };
    server.reply(workspace);
    const member = { 'BUILD.bazel': 'java_binary(name = "app", srcs = ["Main.java"])', 'Main.java': 'class Main {}' };
    const builds = await detect(
      { 'MODULE.bazel': 'module(name = "shop")', ...prefixed('services/api', member), ...prefixed('services/worker', member) },
      { mode: 'full', llm: llm() },
    );
    expect(builds.map((build) => build.metadata.path)).toEqual(['services/api', 'services/worker']);
    expect(server.requests.map((request) => request.body.response_format.json_schema.name)).toEqual(['workspace_layout']);
    expect(builds[0].workspace).toMatchObject({ root: '.', orchestrator: 'bazel', members: ['services/api', 'services/worker'] });
    expect(builds[0].build.commands).toEqual(['bazel build //services/api/...']);
    expect(builds[1].metadata).toMatchObject({ language: 'java', build_system: 'bazel', detected_by: 'static' });
  });
});

describe('the confidence policy', () => {
  it('a 0.3 answer is rejected: the service stays unknown, with the reason', async () => {
    server.reply(serviceAnswer({ confidence: 0.3 }));
    const [build] = await detect(zigFiles, { mode: 'full', llm: llm() });
    expect(build.metadata).toMatchObject({ language: 'unknown', build_system: 'unknown', confidence: 0, detected_by: 'llm' });
    expect(build.metadata.warnings).toEqual(['LLM answer rejected: language "zig" with confidence 0.30, below 0.5']);
    expect(build.build.commands).toEqual([]);
  });

  it('a 0.6 answer is kept, with a warning', async () => {
    server.reply(serviceAnswer({ confidence: 0.6 }));
    const [build] = await detect(zigFiles, { mode: 'full', llm: llm() });
    expect(build.metadata).toMatchObject({ language: 'zig', confidence: 0.6, detected_by: 'llm' });
    expect(build.metadata.warnings).toEqual(['low-confidence LLM answer: language "zig" with confidence 0.60; check it', 'low-confidence LLM answer: "zig" with confidence 0.60; check it']);
  });

  it('exactly 0.5 is kept and 0.7 is kept without a warning', async () => {
    server.reply(serviceAnswer({ confidence: 0.5 }));
    expect((await detect(zigFiles, { mode: 'full', llm: llm() }))[0].metadata.language).toBe('zig');
    server.reply(serviceAnswer({ confidence: 0.7 }));
    expect((await detect(zigFiles, { mode: 'full', llm: llm() }))[0].metadata.warnings).toEqual([]);
  });

  it('"unknown" from the model is an honest unknown with its reasoning', async () => {
    server.reply(serviceAnswer({ language: 'unknown', build_system: null, confidence: 0.2, reasoning: 'Only a README.' }));
    const [build] = await detect(zigFiles, { mode: 'full', llm: llm() });
    expect(build.metadata.language).toBe('unknown');
    expect(build.metadata.warnings).toEqual(['the LLM could not identify this directory: Only a README.']);
  });
});

describe('a model that misbehaves never sinks the detection', () => {
  it('malformed JSON: unknown, saying why', async () => {
    server.malformed(); // invalid output is not retried: the same question would get the same answer
    const [build] = await detect(zigFiles, { mode: 'full', llm: llm() });
    expect(build.metadata.language).toBe('unknown');
    expect(build.metadata.warnings[0]).toMatch(/^LLM fallback unavailable: llm_invalid_output/);
  });

  it('a schema violation (confidence as text): unknown, saying why', async () => {
    server.reply({ ...serviceAnswer({}), confidence: 'high' });
    const [build] = await detect(zigFiles, { mode: 'full', llm: llm() });
    expect(build.metadata.warnings[0]).toMatch(/llm_invalid_output/);
  });

  it('a 429 with Retry-After is retried, then answered', async () => {
    server.fail(429, undefined, { 'retry-after': '0' }).reply(serviceAnswer({}));
    const [build] = await detect(zigFiles, { mode: 'full', llm: llm() });
    expect(build.metadata.language).toBe('zig');
    expect(server.requests).toHaveLength(2);
  });

  it('a model that does not answer in time: unknown with llm_unavailable, within the budget', async () => {
    server.hang(5_000);
    const started = Date.now();
    const [build] = await detect(zigFiles, { mode: 'full', llm: llm(300) });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(build.metadata.warnings[0]).toMatch(/^LLM fallback unavailable: llm_unavailable/);
  });

  it('a failure is not cached: the next run asks again', async () => {
    const cache = new MemoryAnswerCache();
    server.fail(500).fail(500);
    await detect(zigFiles, { mode: 'full', llm: llm(), llmCache: cache });
    expect(cache.entries.size).toBe(0);
    server.reply(serviceAnswer({}));
    expect((await detect(zigFiles, { mode: 'full', llm: llm(), llmCache: cache }))[0].metadata.language).toBe('zig');
  });

  it("the caller's abort rejects with its reason, even mid-call", async () => {
    server.hang(2_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled by user')), 100);
    await expect(detect(zigFiles, { mode: 'full', llm: llm(), signal: controller.signal })).rejects.toThrow('cancelled by user');
  });
});

describe('answers are cached by manifest content', () => {
  it('the same manifests cost one call across runs; a changed manifest asks again', async () => {
    const cache = new MemoryAnswerCache();
    server.reply(serviceAnswer({}));
    const root = await writeFixture(zigFiles);
    const first = await detectStack(root, { mode: 'full', llm: llm(), llmCache: cache });
    const second = await detectStack(root, { mode: 'full', llm: llm(), llmCache: cache });
    expect(server.requests).toHaveLength(1);
    expect(second).toEqual(first);
    const [entry] = cache.entries.values();
    expect(entry).toMatchObject({ purpose: 'detect.service', model: 'test-model', subject: 'build.zig.zon' });

    server.reply(serviceAnswer({ build_commands: ['zig build -Doptimize=ReleaseSmall'] }));
    const changed = await detect({ ...zigFiles, 'build.zig.zon': '.{ .name = "app", .minimum_zig_version = "0.14.0" }' }, { mode: 'full', llm: llm(), llmCache: cache });
    expect(server.requests).toHaveLength(2);
    expect(changed[0].build.commands).toContain('zig build -Doptimize=ReleaseSmall');
  });
  // Within one run, identical manifests in two services cost one call: see the Bazel monorepo test.
});

function prefixed(prefix: string, files: Fixture): Fixture {
  return Object.fromEntries(Object.entries(files).map(([name, content]) => [`${prefix}/${name}`, content]));
}
