import { custom } from './ids';
import type { BuildSystem, Language } from './model';
import { buildRegistry } from './registry';
import { readManifestTree } from './scan';
import { detectFixture, detectOne, removeFixtures, writeFixture } from './testing/fixture';

afterAll(removeFixtures);

const nextApp = { name: 'site', scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '14' } };

describe('empty and unrecognised repositories', () => {
  it('an empty repository gives one "unknown" service at "." with the reason', async () => {
    const build = await detectOne({});
    expect(build.metadata).toMatchObject({ path: '.', language: 'unknown', build_system: 'unknown', confidence: 0, detected_by: 'static' });
    expect(build.metadata.warnings).toContain('no detector recognised this directory (no known manifest)');
    expect(build.runtime).toEqual({ name: 'unknown', version: { source: 'unknown' }, ports: [] });
  });

  it('a repository without manifests is unknown too', async () => {
    const build = await detectOne({ 'README.md': '# hi', 'src/main.odin': '' });
    expect(build.metadata.language).toBe('unknown');
  });
});

describe('side folders and nested projects', () => {
  it('supabase/functions (deno), docs/ and examples/ do not hijack the root app', async () => {
    const build = await detectOne({
      'package.json': nextApp,
      'supabase/functions/hello/deno.json': '{}',
      'supabase/functions/hello/index.ts': '',
      'docs/package.json': { dependencies: { '@docusaurus/core': '3' } },
      'examples/basic/package.json': { dependencies: { express: '4' } },
      'e2e/package.json': { devDependencies: { '@playwright/test': '1' } },
    });
    expect(build.metadata).toMatchObject({ path: '.', framework: 'nextjs', build_system: 'npm' });
  });

  it('without a root manifest, each top-level service folder is a service; side folders are skipped', async () => {
    const builds = await detectFixture({
      'api/go.mod': 'module example.com/api\n\ngo 1.22\n',
      'web/package.json': nextApp,
      'docs/package.json': { dependencies: { '@docusaurus/core': '3' } },
      'web/src/nested/package.json': { name: 'not-a-service' },
    });
    expect(builds.map((b) => [b.metadata.path, b.metadata.language])).toEqual([
      ['api', 'go'],
      ['web', 'javascript'],
    ]);
    expect(builds[1].build.commands).toEqual(['npm install', 'npm run build']);
  });

  it('a repository holding only a side folder still reports it', async () => {
    const builds = await detectFixture({ 'docs/package.json': { dependencies: { '@docusaurus/core': '3' } } });
    expect(builds.map((b) => b.metadata.framework)).toEqual(['docusaurus']);
  });

  it('conflicting manifests: the unambiguous one wins over package.json', async () => {
    expect((await detectOne({ 'Cargo.toml': '[package]\nname = "x"\n', 'package.json': nextApp })).metadata.language).toBe('rust');
    expect((await detectOne({ 'go.mod': 'module x\n', 'package.json': nextApp })).metadata.language).toBe('go');
  });
});

describe('scan bounds', () => {
  it('never walks node_modules, vendor or gitignored directories', async () => {
    const root = await writeFixture({
      'package.json': nextApp,
      'node_modules/express/package.json': '{}',
      'vendor/github.com/x/go.mod': 'module x\n',
      'generated/package.json': '{}',
      '.gitignore': 'generated/\n*.log\n',
      'src/app/page.tsx': '',
    });
    const scan = await readManifestTree(root);
    expect(scan.directories).toEqual(['.', 'src', 'src/app']);
  });

  it('a vendor-heavy repository still finds the root service only', async () => {
    const build = await detectOne({
      'go.mod': 'module example.com/app\n\ngo 1.22\n',
      'main.go': '',
      'vendor/github.com/gin-gonic/gin/go.mod': 'module github.com/gin-gonic/gin\n',
      'node_modules/a/package.json': '{}',
    });
    expect(build.metadata).toMatchObject({ path: '.', language: 'go' });
  });

  it('stops when the signal is aborted', async () => {
    const root = await writeFixture({ 'package.json': nextApp });
    await expect(detectOneAborted(root)).rejects.toThrow('stop');
  });
});

async function detectOneAborted(root: string) {
  const { detectStack } = await import('./detect-stack');
  return detectStack(root, { mode: 'static', signal: AbortSignal.abort(new Error('stop')) });
}

describe('.quarry/stack.json override', () => {
  it('pins any field for every service, and per path; a pinned version gets source "override"', async () => {
    const builds = await detectFixture({
      'package.json': { workspaces: ['apps/*'] },
      'apps/a/package.json': { name: 'a', dependencies: { express: '4' } },
      'apps/b/package.json': { name: 'b' },
      '.quarry/stack.json': {
        runtime: { version: { requested: '20.11.1' } },
        services: { 'apps/a': { runtime: { command: 'node server.js', ports: [8080] }, metadata: { framework: 'custom-http' } } },
      },
    });
    expect(builds[0].runtime).toMatchObject({ command: 'node server.js', ports: [8080], version: { requested: '20.11.1', source: 'override' } });
    expect(builds[0].metadata.framework).toBe('custom-http');
    expect(builds[1].runtime.version).toEqual({ requested: '20.11.1', source: 'override' });
    expect(builds[1].runtime.command).toBeUndefined();
  });

  it('an override that would break the schema is ignored with a warning', async () => {
    const build = await detectOne({ 'package.json': nextApp, '.quarry/stack.json': { runtime: { ports: ['http'] } } });
    expect(build.runtime.ports).toEqual([3000]);
    expect(build.metadata.warnings.join()).toMatch(/stack\.json would make an invalid result/);
  });

  it('an unparseable override is reported, not fatal', async () => {
    const build = await detectOne({ 'package.json': nextApp, '.quarry/stack.json': '{ nope' });
    expect(build.metadata.warnings).toContain('.quarry/stack.json is not a JSON object: ignored');
  });
});

describe('modes and the fallback extension point', () => {
  it('static says nothing; full without an LLM runs static and says so', async () => {
    expect((await detectOne({ 'package.json': nextApp }, { mode: 'static' })).metadata.warnings).toEqual([]);
    const full = await detectOne({ 'package.json': nextApp }, { mode: 'full' });
    expect(full.metadata).toMatchObject({ framework: 'nextjs', detected_by: 'static' });
    expect(full.metadata.warnings).toEqual(['mode full requested but no LLM is configured: ran static detection only']);
  });

  it('llm-only without an LLM detects nothing and says why', async () => {
    const build = await detectOne({ 'package.json': nextApp }, { mode: 'llm-only' });
    expect(build.metadata.language).toBe('unknown');
    expect(build.metadata.warnings[0]).toMatch(/no LLM is configured/);
  });

  const fallback = () => {
    const calls: string[] = [];
    const language: Language = {
      id: custom('Zig'),
      async detect(service) {
        calls.push(service.dir);
        return { value: custom('zig'), confidence: 0.6, detectedBy: 'llm', warnings: ['low confidence (0.6)'], reasoning: 'build.zig present' };
      },
    };
    const buildSystem: BuildSystem = {
      id: custom('zig-build'),
      languages: [],
      async detect() {
        return { value: { id: custom('zig build'), install: [], build: ['zig build -Doptimize=ReleaseSafe'], cache: ['zig-cache'] }, confidence: 0.8, detectedBy: 'llm' };
      },
    };
    return { calls, registry: (mode: 'full' | 'llm-only') => buildRegistry({ mode, fallbacks: { languages: [language], buildSystems: [buildSystem] } }) };
  };

  it('fallbacks registered last are asked only when every deterministic detector said no', async () => {
    const { calls, registry } = fallback();
    const known = await detectOne({ 'package.json': nextApp }, { registry: registry('full') });
    expect(known.metadata).toMatchObject({ language: 'javascript', detected_by: 'static', warnings: [] });
    const unknown = await detectOne({ 'src/main.zig': '', 'build.zig.zon': '.{}' }, { registry: registry('full') });
    expect(unknown.metadata).toMatchObject({ language: 'zig', build_system: 'zig build', detected_by: 'llm', confidence: 0.6, reasoning: 'build.zig present' });
    expect(unknown.metadata.warnings).toEqual(['low confidence (0.6)']);
    expect(unknown.build.commands).toEqual(['zig build -Doptimize=ReleaseSafe']);
    expect(calls).toEqual(['.']);
  });

  it('llm-only asks the fallbacks even for known tech', async () => {
    const { calls, registry } = fallback();
    const build = await detectOne({ 'package.json': nextApp }, { registry: registry('llm-only') });
    expect(build.metadata.language).toBe('zig');
    expect(calls).toEqual(['.']);
  });

  it('custom ids serialise as lowercase strings', () => {
    expect(custom(' Bazel ')).toBe('bazel');
    expect(() => custom(' ')).toThrow();
  });
});

describe('damaged and unusual manifests', () => {
  it('a package.json that does not parse still makes a JavaScript service, with a warning', async () => {
    const build = await detectOne({ 'package.json': '{ "name": ', 'package-lock.json': '{}' });
    expect(build.metadata).toMatchObject({ language: 'javascript', build_system: 'npm' });
    expect(build.metadata.warnings).toEqual([expect.stringMatching(/^package\.json is not valid JSON \(.+\): ignored$/)]);
    expect(build.build.commands).toEqual(['npm ci']);
  });

  it('a malformed Cargo.toml or pyproject.toml is a warning on its own service, never a failed detection', async () => {
    const builds = await detectFixture({
      'api/Cargo.toml': '[package\nname = "api"',
      'api/src/main.rs': 'fn main() {}',
      'worker/pyproject.toml': '[project]\nname = = "worker"',
      'worker/requirements.txt': 'flask\n',
    });
    const api = builds.find((build) => build.metadata.path === 'api')!;
    const worker = builds.find((build) => build.metadata.path === 'worker')!;
    expect(api.metadata.language).toBe('rust');
    expect(api.metadata.warnings).toEqual([expect.stringMatching(/^api\/Cargo\.toml is not valid TOML/)]);
    expect(worker.metadata).toMatchObject({ language: 'python', framework: 'flask' });
    expect(worker.metadata.warnings).toEqual([expect.stringMatching(/^worker\/pyproject\.toml is not valid TOML/)]);
  });

  it('package.json5 and comments in JSON manifests are read (JSON5)', async () => {
    const build = await detectOne({ 'deno.jsonc': '{\n  // tasks\n  "tasks": { "start": "deno run main.ts", },\n}', 'main.ts': '' });
    expect(build.runtime.command).toBe('deno task start');
  });

  it('mise.toml is a version file', async () => {
    const build = await detectOne({ 'package.json': nextApp, 'mise.toml': '[tools]\nnode = "20.12"\n' });
    expect(build.runtime.version).toEqual({ requested: '20.12', source: 'mise.toml' });
  });

  it('a workspace member inherits version files from the workspace root', async () => {
    const builds = await detectFixture({
      'package.json': { workspaces: ['apps/*'] },
      '.nvmrc': '18\n',
      'apps/a/package.json': { name: 'a' },
      'apps/b/package.json': { name: 'b', engines: { node: '20' } },
      'apps/b/.nvmrc': '16',
    });
    expect(builds.map((b) => b.runtime.version)).toEqual([
      { requested: '18', source: '.nvmrc' },
      { requested: '20', source: 'package.json engines.node' },
    ]);
  });
});
