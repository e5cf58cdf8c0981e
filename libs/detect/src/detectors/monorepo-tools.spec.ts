import { detectFixture, removeFixtures } from '../testing/fixture';

afterAll(removeFixtures);

describe('orchestrators that own their member list', () => {
  it('rush: rush install, rush build --to', async () => {
    const builds = await detectFixture({
      'rush.json': '// rush.json carries comments\n{ "pnpmVersion": "8.15.0", "projects": [ { "packageName": "@acme/web", "projectFolder": "apps/web" } ] }',
      'apps/web/package.json': { name: '@acme/web', dependencies: { next: '14' } },
    });
    expect(builds).toHaveLength(1);
    expect(builds[0].workspace).toMatchObject({ orchestrator: 'rush', manager: 'pnpm', members: ['apps/web'] });
    expect(builds[0].build.commands).toEqual(['rush install', 'rush build --to @acme/web']);
    expect(builds[0].metadata.framework).toBe('nextjs');
  });

  it('moon: globs and named projects, moon run <id>:build', async () => {
    const builds = await detectFixture({
      '.moon/workspace.yml': 'projects:\n  globs:\n    - "apps/*"\n  sources:\n    api: "services/api"\n',
      'apps/site/package.json': { name: 'site' },
      'services/api/go.mod': 'module example.com/api\n\ngo 1.22\n',
      'services/api/main.go': '',
    });
    expect(builds.map((b) => [b.metadata.path, b.metadata.language])).toEqual([
      ['apps/site', 'javascript'],
      ['services/api', 'go'],
    ]);
    expect(builds[1].workspace.orchestrator).toBe('moon');
    expect(builds[1].build.commands).toEqual(['cd services/api && go mod download', 'moon run api:build']);
  });

  it('uv workspace: one install at the root, one service per member', async () => {
    const builds = await detectFixture({
      'pyproject.toml': '[project]\nname = "root"\n[tool.uv.workspace]\nmembers = ["packages/*"]\n',
      'uv.lock': '',
      'packages/api/pyproject.toml': '[project]\nname = "api"\ndependencies = ["fastapi"]\n',
      'packages/api/main.py': '',
      'packages/lib/pyproject.toml': '[project]\nname = "lib"\n',
    });
    expect(builds.map((b) => b.metadata.project_name)).toEqual(['api', 'lib']);
    expect(builds[0].metadata).toMatchObject({ build_system: 'uv', framework: 'fastapi' });
    expect(builds[0].workspace).toMatchObject({ orchestrator: 'uv-workspace', manager: 'uv' });
    expect(builds[0].build.commands).toEqual(['uv sync --frozen --all-packages']);
  });
});

describe('polyglot monorepo', () => {
  it('turbo + pnpm apps, plus services of other ecosystems beside them as standalone services', async () => {
    const builds = await detectFixture({
      'package.json': { name: 'mono' },
      'pnpm-workspace.yaml': 'packages: ["apps/*", "!apps/legacy"]\n',
      'pnpm-lock.yaml': '',
      'turbo.json': '{}',
      'apps/web/package.json': { name: 'web', dependencies: { vite: '5' } },
      'apps/legacy/package.json': { name: 'legacy' },
      'apps/ml/pyproject.toml': '[project]\nname = "ml"\n',
      'apps/ml/uv.lock': '',
      'services/api/Cargo.toml': '[package]\nname = "api"\n',
      'docs/requirements.txt': 'mkdocs\n',
    });
    expect(builds.map((b) => [b.metadata.path, b.metadata.language, b.workspace.orchestrator ?? null])).toEqual([
      ['apps/ml', 'python', null],
      ['apps/web', 'javascript', 'turborepo'],
      ['services/api', 'rust', null],
    ]);
    expect(builds[0].build.commands).toEqual(['uv sync --frozen']);
    expect(builds[0].build.cache).not.toContain('.turbo');
    expect(builds[2].build.cache).toContain('services/api/target');
    expect(builds[2].workspace).toEqual({ root: 'services/api', members: [] });
  });
});
