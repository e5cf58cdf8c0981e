import { detectFixture, detectOne, removeFixtures } from '../testing/fixture';

afterAll(removeFixtures);

const app = (extra: object = {}) => ({ name: 'web', scripts: { build: 'x', start: 'y' }, ...extra });

describe('JavaScript package managers', () => {
  it('npm with a lock file: npm ci, npm run build, npm start', async () => {
    const build = await detectOne({ 'package.json': app(), 'package-lock.json': '{}' });
    expect(build.metadata).toMatchObject({ project_name: 'web', language: 'javascript', build_system: 'npm', confidence: 1, detected_by: 'static' });
    expect(build.build.commands).toEqual(['npm ci', 'npm run build']);
    expect(build.build.cache).toEqual(['~/.npm', 'node_modules']);
    expect(build.runtime).toMatchObject({ name: 'node', command: 'npm start', version: { requested: '22', source: 'default' } });
  });

  it('npm without a lock file installs, and typescript is recognised from tsconfig.json', async () => {
    const build = await detectOne({ 'package.json': { name: 'lib' }, 'tsconfig.json': '{}' });
    expect(build.metadata.language).toBe('typescript');
    expect(build.build.commands).toEqual(['npm install']);
  });

  it.each([
    ['pnpm', { 'pnpm-lock.yaml': '' }, 'pnpm install --frozen-lockfile'],
    ['bun', { 'bun.lockb': '' }, 'bun install --frozen-lockfile'],
    ['bun', { 'bun.lock': '{}' }, 'bun install --frozen-lockfile'],
    ['yarn-classic', { 'yarn.lock': '# yarn lockfile v1\n' }, 'yarn install --frozen-lockfile'],
    ['yarn-berry', { 'yarn.lock': '__metadata:\n  version: 8\n' }, 'yarn install --immutable'],
    ['yarn-berry', { 'yarn.lock': '', '.yarnrc.yml': 'nodeLinker: node-modules\n' }, 'yarn install --immutable'],
  ])('%s from its lock file', async (manager, files, install) => {
    const build = await detectOne({ 'package.json': app(), ...files });
    expect(build.metadata.build_system).toBe(manager);
    expect(build.build.commands[0]).toBe(install);
  });

  it('the packageManager field beats lock files', async () => {
    const build = await detectOne({ 'package.json': app({ packageManager: 'pnpm@9.1.0' }), 'package-lock.json': '{}' });
    expect(build.metadata.build_system).toBe('pnpm');
    expect(build.runtime.command).toBe('pnpm run start');
  });

  it('bun runs on the bun runtime', async () => {
    const build = await detectOne({ 'package.json': app({ engines: { bun: '1.1' } }), 'bun.lockb': '' });
    expect(build.runtime).toMatchObject({ name: 'bun', command: 'bun run start', version: { requested: '1.1', source: 'package.json engines.bun' } });
  });

  it('deno: deno.json tasks, deno runtime, typescript', async () => {
    const build = await detectOne({ 'deno.json': { tasks: { start: 'deno run main.ts', build: 'x' } }, 'main.ts': '' });
    expect(build.metadata).toMatchObject({ language: 'typescript', build_system: 'deno' });
    expect(build.build.commands).toEqual(['deno install', 'deno task build']);
    expect(build.runtime).toMatchObject({ name: 'deno', command: 'deno task start' });
  });
});

describe('node version precedence', () => {
  it('engines beats .nvmrc', async () => {
    const build = await detectOne({ 'package.json': app({ engines: { node: '>=18' } }), '.nvmrc': '20' });
    expect(build.runtime.version).toEqual({ requested: '>=18', source: 'package.json engines.node' });
    expect(build.runtime.base_image).toBe('node:18-slim');
  });

  it('.nvmrc beats .node-version beats .tool-versions', async () => {
    expect((await detectOne({ 'package.json': app(), '.nvmrc': 'v20.11.0\n', '.node-version': '18' })).runtime.version).toEqual({ requested: '20.11.0', source: '.nvmrc' });
    expect((await detectOne({ 'package.json': app(), '.node-version': '18', '.tool-versions': 'nodejs 16.0.0' })).runtime.version).toEqual({ requested: '18', source: '.node-version' });
    expect((await detectOne({ 'package.json': app(), '.tool-versions': 'python 3.12\nnodejs 16.0.0\n' })).runtime.version).toEqual({ requested: '16.0.0', source: '.tool-versions' });
  });
});

describe('start command precedence', () => {
  it('start script, then main, then the framework convention', async () => {
    expect((await detectOne({ 'package.json': { main: 'server.js', scripts: { start: 'node x' }, dependencies: { express: '4' } } })).runtime.command).toBe('npm start');
    expect((await detectOne({ 'package.json': { main: 'server.js', dependencies: { express: '4' } } })).runtime.command).toBe('node server.js');
    expect((await detectOne({ 'package.json': { dependencies: { next: '14' } } })).runtime.command).toBe('npx next start');
  });
});

describe('JavaScript frameworks (exact dependency names)', () => {
  it.each([
    ['next', 'nextjs'], ['nuxt', 'nuxt'], ['@remix-run/node', 'remix'], ['astro', 'astro'], ['@sveltejs/kit', 'sveltekit'],
    ['@angular/core', 'angular'], ['react-scripts', 'create-react-app'], ['gatsby', 'gatsby'], ['@docusaurus/core', 'docusaurus'],
    ['express', 'express'], ['@nestjs/core', 'nestjs'], ['fastify', 'fastify'], ['koa', 'koa'], ['hono', 'hono'], ['@hapi/hapi', 'hapi'],
    ['@react-router/dev', 'react-router'], ['@solidjs/start', 'solid-start'], ['@adonisjs/core', 'adonis'], ['vite', 'vite'],
  ])('%s → %s', async (dependency, framework) => {
    const build = await detectOne({ 'package.json': { name: 'x', dependencies: { [dependency]: '1' } } });
    expect(build.metadata.framework).toBe(framework);
  });

  it('does not match on substrings (next-auth is not next, express-session is not express)', async () => {
    const build = await detectOne({ 'package.json': { dependencies: { 'next-auth': '4', 'express-session': '1', 'koa-router': '1' } } });
    expect(build.metadata.framework).toBeUndefined();
  });

  it('meta-frameworks win over the libraries they include', async () => {
    expect((await detectOne({ 'package.json': { dependencies: { '@nestjs/core': '10', express: '4' } } })).metadata.framework).toBe('nestjs');
    expect((await detectOne({ 'package.json': { dependencies: { '@sveltejs/kit': '2' }, devDependencies: { vite: '5' } } })).metadata.framework).toBe('sveltekit');
  });

  it('next adds its build cache and port', async () => {
    const build = await detectOne({ 'package.json': { dependencies: { next: '14' } } });
    expect(build.build.cache).toContain('.next/cache');
    expect(build.runtime.ports).toEqual([3000]);
  });

  it('astro is static without a server adapter', async () => {
    expect((await detectOne({ 'package.json': { dependencies: { astro: '4' } } })).runtime).toMatchObject({ ports: [] });
    expect((await detectOne({ 'package.json': { dependencies: { astro: '4', '@astrojs/node': '8' } } })).runtime).toMatchObject({
      ports: [4321],
      command: 'node ./dist/server/entry.mjs',
    });
  });
});

describe('JavaScript workspaces', () => {
  const member = (name: string, deps: object = {}) => ({ name, scripts: { build: 'x' }, dependencies: deps });

  it('turborepo + pnpm: one service per member, turbo filter commands, shared caches', async () => {
    const builds = await detectFixture({
      'package.json': { name: 'mono', private: true },
      'pnpm-workspace.yaml': 'packages:\n  - "apps/*"\n  - "packages/*"\n',
      'pnpm-lock.yaml': '',
      'turbo.json': '{}',
      'apps/web/package.json': member('@acme/web', { next: '14' }),
      'apps/api/package.json': member('@acme/api', { '@nestjs/core': '10' }),
      'packages/ui/package.json': member('@acme/ui'),
      'apps/web/node_modules/next/package.json': { name: 'next' },
    });
    expect(builds.map((b) => b.metadata.path)).toEqual(['apps/api', 'apps/web', 'packages/ui']);
    const web = builds[1];
    expect(web.metadata).toMatchObject({ project_name: '@acme/web', build_system: 'pnpm', framework: 'nextjs' });
    expect(web.workspace).toEqual({ root: '.', orchestrator: 'turborepo', manager: 'pnpm', members: ['apps/api', 'apps/web', 'packages/ui'] });
    expect(web.build.commands).toEqual(['pnpm install --frozen-lockfile', 'turbo run build --filter=@acme/web']);
    expect(web.build.cache).toEqual(expect.arrayContaining(['node_modules', '.turbo', 'apps/web/.next/cache']));
  });

  it('pnpm workspace alone filters with pnpm', async () => {
    const builds = await detectFixture({
      'package.json': { name: 'mono' },
      'pnpm-workspace.yaml': 'packages: ["apps/*"]',
      'apps/a/package.json': member('a'),
    });
    expect(builds[0].build.commands).toEqual(['pnpm install --frozen-lockfile', 'pnpm --filter a build']);
    expect(builds[0].workspace.orchestrator).toBe('pnpm-workspaces');
  });

  it('nx over npm workspaces', async () => {
    const builds = await detectFixture({
      'package.json': { name: 'mono', workspaces: ['apps/*'] },
      'package-lock.json': '{}',
      'nx.json': '{}',
      'apps/shop/package.json': member('shop', { express: '4' }),
    });
    expect(builds).toHaveLength(1);
    expect(builds[0].workspace).toMatchObject({ orchestrator: 'nx', manager: 'npm' });
    expect(builds[0].build.commands).toEqual(['npm ci', 'nx build shop']);
  });

  it('yarn workspaces (object form) and lerna', async () => {
    const builds = await detectFixture({
      'package.json': { name: 'mono', workspaces: { packages: ['packages/*'] } },
      'yarn.lock': '# yarn lockfile v1\n',
      'lerna.json': '{}',
      'packages/cli/package.json': member('cli'),
    });
    expect(builds[0].workspace).toMatchObject({ orchestrator: 'lerna', manager: 'yarn-classic' });
    expect(builds[0].build.commands).toEqual(['yarn install --frozen-lockfile', 'lerna run build --scope=cli']);
  });

  it('npm and bun workspaces without a task runner', async () => {
    const npm = await detectFixture({ 'package.json': { workspaces: ['pkgs/*'] }, 'pkgs/a/package.json': member('a') });
    expect(npm[0].build.commands).toEqual(['npm install', 'npm run build --workspace=pkgs/a']);
    const bun = await detectFixture({ 'package.json': { workspaces: ['pkgs/*'] }, 'bun.lock': '{}', 'pkgs/a/package.json': member('a') });
    expect(bun[0].workspace.orchestrator).toBe('bun-workspaces');
    expect(bun[0].build.commands).toEqual(['bun install --frozen-lockfile', 'bun run --filter a build']);
  });

  it('negated workspace globs exclude members', async () => {
    const builds = await detectFixture({
      'package.json': { workspaces: ['packages/*', '!packages/legacy'] },
      'packages/a/package.json': member('a'),
      'packages/legacy/package.json': member('legacy'),
    });
    expect(builds.map((b) => b.metadata.path)).toEqual(['packages/a']);
  });
});

describe('package manager precedence (issue 17)', () => {
  it.each([
    ['packageManager beats engines and lock files', { 'package.json': { packageManager: 'pnpm@9.1.0', engines: { yarn: '4.x' } }, 'yarn.lock': '' }, 'pnpm'],
    ['several lock files: pnpm > bun > yarn > npm', { 'package.json': {}, 'yarn.lock': '# yarn lockfile v1\n', 'package-lock.json': '{}', 'pnpm-lock.yaml': '' }, 'pnpm'],
    ['yarn.lock beats package-lock.json', { 'package.json': {}, 'yarn.lock': '# yarn lockfile v1\n', 'package-lock.json': '{}' }, 'yarn-classic'],
    ['no lock file: engines.pnpm', { 'package.json': { engines: { pnpm: '9.x' } } }, 'pnpm'],
    ['no lock file: engines.yarn 1.x', { 'package.json': { engines: { yarn: '1.22.0' } } }, 'yarn-classic'],
    ['no lock file: engines.yarn 4', { 'package.json': { engines: { yarn: '4.1.1' } } }, 'yarn-berry'],
    ['no lock file: engines.bun', { 'package.json': { engines: { bun: '1.1.0' } } }, 'bun'],
    ['Bun with no dependencies but its types', { 'package.json': { devDependencies: { 'bun-types': '1' } }, 'http.ts': '' }, 'bun'],
    ['Yarn workspaces without a lock file (.yarnrc)', { 'package.json': { name: 'app' }, '.yarnrc': '' }, 'yarn-classic'],
    ['pnpm-workspace.yaml without a lock file', { 'package.json': { name: 'app' }, 'pnpm-workspace.yaml': 'packages: []\n' }, 'pnpm'],
  ])('%s', async (_name, files, manager) => {
    expect((await detectOne(files)).metadata.build_system).toBe(manager);
  });

  it('package.json5 is a manifest too', async () => {
    const build = await detectOne({ 'package.json5': "{ name: 'app', dependencies: { express: '4' }, // comment\n}" });
    expect(build.metadata).toMatchObject({ language: 'javascript', build_system: 'npm', framework: 'express' });
  });

  it('TypeScript comes from a tsconfig or .ts sources, not from a typescript dependency alone', async () => {
    expect((await detectOne({ 'package.json': { devDependencies: { typescript: '5' } }, 'index.js': '' })).metadata.language).toBe('javascript');
    expect((await detectOne({ 'package.json': {}, 'src/index.ts': '' })).metadata.language).toBe('typescript');
  });
});

describe('the most specific framework wins; the bundler is reported beside it', () => {
  it.each([
    [{ '@tanstack/react-start': '1', react: '19', 'react-dom': '19', vite: '6' }, 'tanstack-start', 'vite'],
    [{ '@redwoodjs/core': '8', react: '18' }, 'redwoodjs', undefined],
    [{ nuxt: '3', vue: '3', nitropack: '2' }, 'nuxt', undefined],
    [{ vue: '3', vite: '5', '@vitejs/plugin-vue': '5' }, 'vue', 'vite'],
    [{ react: '18', 'react-dom': '18', vite: '5' }, 'react', 'vite'],
    [{ vite: '5' }, 'vite', undefined],
    [{ '@11ty/eleventy': '3' }, 'eleventy', undefined],
    [{ vitepress: '1', vue: '3' }, 'vitepress', undefined],
    [{ '@strapi/strapi': '4', react: '18', 'react-dom': '18' }, 'strapi', undefined],
    [{ express: '4', react: '18', 'react-dom': '18' }, 'express', undefined],
  ])('%j → %s (bundler %s)', async (dependencies, framework, bundler) => {
    const build = await detectOne({ 'package.json': { dependencies } });
    expect(build.metadata.framework).toBe(framework);
    expect(build.metadata.bundler).toBe(bundler);
  });
});
