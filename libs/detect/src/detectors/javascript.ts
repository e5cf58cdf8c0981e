import { custom, type BuildSystemId, type LanguageId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, FrameworkPlan, Language, Orchestrator, Runtime, ServiceContext, WorkspaceMember } from '../model';
import { joinPath } from '../scan';
import { basename, expandMembers, found, hasNearby, majorOf, searchDirs, versionFromFiles } from './shared';

/*
 * JavaScript / TypeScript on node, bun and deno: package managers by `packageManager` field then
 * lock file, workspaces, turborepo / nx / lerna, frameworks by exact dependency name.
 */

export interface PackageJson {
  name?: string;
  main?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  engines?: Record<string, string>;
  workspaces?: string[] | { packages?: string[]; nohoist?: string[] };
  packageManager?: string;
}

const JS: readonly LanguageId[] = ['javascript', 'typescript'];
const DEFAULT_NODE = '22';

export function packageJson(service: ServiceContext): Promise<PackageJson | undefined> {
  return service.has('package.json') || !service.has('package.json5') ? service.json<PackageJson>('package.json') : service.json<PackageJson>('package.json5');
}

const dependencySets = new WeakMap<PackageJson, Set<string>>();

/** Runtime and dev dependency names; computed once per parsed package.json (frameworks ask ~20 times). */
export function dependencyNames(pkg: PackageJson | undefined): Set<string> {
  if (!pkg) return new Set();
  let names = dependencySets.get(pkg);
  if (!names) {
    names = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]);
    dependencySets.set(pkg, names);
  }
  return names;
}

// ── Languages ──────────────────────────────────────────────────────────────────────────────────

const isDenoProject = (service: ServiceContext) => service.has('deno.json') || service.has('deno.jsonc');

export const denoLanguage: Language = {
  id: 'typescript',
  detect(service) {
    return isDenoProject(service) ? found<LanguageId>('typescript') : undefined;
  },
};

export const javascriptLanguage: Language = {
  id: 'javascript',
  detect(service) {
    if (!service.has('package.json') && !service.has('package.json5')) return undefined;
    // A package.json that does not parse still says "JavaScript" (the scan warns about it).
    return found<LanguageId>(isTypeScript(service) ? 'typescript' : 'javascript');
  },
};

/** Where a package keeps its own sources, besides its root. */
const SOURCE_DIRS = ['src', 'app', 'lib', 'server', 'pages', 'routes', 'api'];

/**
 * TypeScript when the package says how to compile it (a tsconfig) or its sources are `.ts`.
 * A `typescript` dependency alone is not enough: JavaScript projects install it for type checks
 * of their JSDoc (`svelte-check`, `jsconfig.json`) and for tools.
 */
export function isTypeScript(service: ServiceContext): boolean {
  if (service.files().some((name) => /^tsconfig(\.[\w-]+)?\.json$/.test(name))) return true;
  const dirs = [service.dir, ...SOURCE_DIRS.map((child) => joinPath(service.dir, child))];
  return dirs.some((dir) => (service.scan.files.get(dir) ?? []).some((name) => /\.(ts|tsx|mts|cts)$/.test(name) && !name.endsWith('.d.ts')));
}

// ── Package managers ───────────────────────────────────────────────────────────────────────────

/** `"packageManager": "pnpm@9.1.0"` in the service's or the workspace root's package.json. */
async function declaredManager(service: ServiceContext): Promise<{ name: string; major: number } | undefined> {
  for (const dir of searchDirs(service)) {
    const declared = (await service.scan.json<PackageJson>(dir, 'package.json'))?.packageManager;
    const match = declared?.match(/^(npm|yarn|pnpm|bun)@(\d+)/);
    if (match) return { name: match[1], major: Number(match[2]) };
  }
  return undefined;
}

async function isYarnBerry(service: ServiceContext): Promise<boolean> {
  if (hasNearby(service, '.yarnrc.yml')) return true;
  for (const dir of searchDirs(service)) {
    const lock = await service.scan.read(dir, 'yarn.lock');
    if (lock !== undefined) return lock.includes('__metadata:');
  }
  return false;
}

/**
 * Which manager owns this package, in order: the workspace's manager; the `packageManager` field;
 * the nearest lock file (pnpm > bun > yarn > npm when several sit together); then, with no lock
 * file, what the project says of itself — `engines` (pnpm, yarn, bun), the manager's own config
 * (`.yarnrc.yml`, `.yarnrc`, `bunfig.toml`, `pnpm-workspace.yaml`), Bun's types or a script that
 * runs `bun`; else npm.
 */
export async function packageManagerOf(service: ServiceContext): Promise<BuildSystemId> {
  const workspaceManager = service.workspace?.manager;
  if (workspaceManager && workspaceManager in MANAGERS) return workspaceManager;
  const declared = await declaredManager(service);
  if (declared?.name === 'yarn') return declared.major >= 2 ? 'yarn-berry' : 'yarn-classic';
  if (declared) return declared.name as BuildSystemId;
  for (const dir of searchDirs(service)) {
    const has = (name: string) => service.scan.has(dir, name);
    if (has('pnpm-lock.yaml')) return 'pnpm';
    if (has('bun.lockb') || has('bun.lock')) return 'bun';
    if (has('yarn.lock')) return (await isYarnBerry(service)) ? 'yarn-berry' : 'yarn-classic';
    if (has('package-lock.json') || has('npm-shrinkwrap.json')) return 'npm';
  }
  return (await managerWithoutLockFile(service)) ?? 'npm';
}

async function managerWithoutLockFile(service: ServiceContext): Promise<BuildSystemId | undefined> {
  for (const dir of searchDirs(service)) {
    const pkg = await service.scan.json<PackageJson>(dir, 'package.json');
    const engines = pkg?.engines ?? {};
    if (engines.pnpm) return 'pnpm';
    if (engines.yarn) return /^\D*1(\.|$)|^\D*1\.x/.test(engines.yarn.trim()) ? 'yarn-classic' : 'yarn-berry';
    if (engines.bun) return 'bun';
    const has = (name: string) => service.scan.has(dir, name);
    if (has('pnpm-workspace.yaml')) return 'pnpm';
    if (has('.yarnrc.yml') || has('.yarnrc.yaml')) return 'yarn-berry';
    if (has('.yarnrc') || (typeof pkg?.workspaces === 'object' && !Array.isArray(pkg.workspaces) && 'nohoist' in pkg.workspaces)) return 'yarn-classic';
    if (has('bunfig.toml')) return 'bun';
    const names = dependencyNames(pkg);
    if (names.has('@types/bun') || names.has('bun-types') || Object.values(pkg?.scripts ?? {}).some((script) => /(^|&&\s*|;\s*)bun\s/.test(script))) return 'bun';
  }
  return undefined;
}

interface ManagerCommands {
  install: (service: ServiceContext) => string;
  runner: string;
  cache: string[];
}

const MANAGERS: Record<string, ManagerCommands> = {
  npm: {
    install: (service) => (hasNearby(service, 'package-lock.json') || hasNearby(service, 'npm-shrinkwrap.json') ? 'npm ci' : 'npm install'),
    runner: 'npm run',
    cache: ['~/.npm', 'node_modules'],
  },
  'yarn-classic': { install: () => 'yarn install --frozen-lockfile', runner: 'yarn', cache: ['~/.cache/yarn', 'node_modules'] },
  'yarn-berry': { install: () => 'yarn install --immutable', runner: 'yarn', cache: ['.yarn/cache', 'node_modules'] },
  pnpm: { install: () => 'pnpm install --frozen-lockfile', runner: 'pnpm run', cache: ['~/.local/share/pnpm/store', 'node_modules'] },
  bun: { install: () => 'bun install --frozen-lockfile', runner: 'bun run', cache: ['~/.bun/install/cache', 'node_modules'] },
};

function packageManager(id: 'npm' | 'yarn-classic' | 'yarn-berry' | 'pnpm' | 'bun'): BuildSystem {
  const commands = MANAGERS[id];
  return {
    id,
    languages: JS,
    async detect(service) {
      if ((!service.has('package.json') && !service.has('package.json5')) || (await packageManagerOf(service)) !== id) return undefined;
      const pkg: PackageJson = (await packageJson(service)) ?? {};
      const plan: BuildPlan = {
        id,
        install: [commands.install(service)],
        build: pkg.scripts?.build ? [`${commands.runner} build`] : [],
        cache: commands.cache,
        scriptRunner: commands.runner,
        projectName: pkg.name,
      };
      return found(plan);
    },
  };
}

interface DenoConfig {
  name?: string;
  tasks?: Record<string, string>;
}

export const denoBuild: BuildSystem = {
  id: 'deno',
  languages: JS,
  async detect(service) {
    if (!isDenoProject(service)) return undefined;
    const config = (await service.json<DenoConfig>('deno.json')) ?? (await service.json<DenoConfig>('deno.jsonc'));
    return found<BuildPlan>({
      id: 'deno',
      install: ['deno install'],
      build: config?.tasks?.build ? ['deno task build'] : [],
      cache: ['~/.cache/deno'],
      scriptRunner: 'deno task',
      projectName: config?.name,
    });
  },
};

export const npmBuild = packageManager('npm');
export const JS_BUILD_SYSTEMS: BuildSystem[] = [
  denoBuild,
  packageManager('pnpm'),
  packageManager('bun'),
  packageManager('yarn-berry'),
  packageManager('yarn-classic'),
  npmBuild,
];

// ── Workspaces and task runners ────────────────────────────────────────────────────────────────

async function membersOf(root: ServiceContext, patterns: string[]): Promise<WorkspaceMember[]> {
  const dirs = expandMembers(root, patterns, 'package.json');
  const manifests = await Promise.all(dirs.map((dir) => root.scan.json<PackageJson>(dir, 'package.json')));
  return dirs.map((dir, index) => ({ dir, name: manifests[index]?.name ?? basename(dir) }));
}

export const pnpmWorkspaces: Orchestrator = {
  id: 'pnpm-workspaces',
  role: 'members',
  async detect(root) {
    const config = await root.scan.yaml<{ packages?: string[] }>(root.dir, 'pnpm-workspace.yaml');
    if (!config?.packages?.length) return undefined;
    return found({
      orchestrator: 'pnpm-workspaces' as const,
      manager: 'pnpm' as const,
      sharedInstall: true,
      members: await membersOf(root, config.packages),
      buildCommand: (member: WorkspaceMember) => `pnpm --filter ${member.name} build`,
      cache: ['node_modules'],
    });
  },
};

const WORKSPACE_FLAVOURS: Record<string, { orchestrator: 'npm-workspaces' | 'yarn-workspaces' | 'bun-workspaces'; command: (m: WorkspaceMember) => string }> = {
  npm: { orchestrator: 'npm-workspaces', command: (member) => `npm run build --workspace=${member.dir}` },
  'yarn-classic': { orchestrator: 'yarn-workspaces', command: (member) => `yarn workspace ${member.name} run build` },
  'yarn-berry': { orchestrator: 'yarn-workspaces', command: (member) => `yarn workspace ${member.name} run build` },
  bun: { orchestrator: 'bun-workspaces', command: (member) => `bun run --filter ${member.name} build` },
  pnpm: { orchestrator: 'npm-workspaces', command: (member) => `pnpm --filter ${member.name} build` },
};

/** `workspaces` in package.json (npm, yarn, bun), or lerna.json `packages` for older lerna repos. */
export const packageJsonWorkspaces: Orchestrator = {
  id: 'npm-workspaces',
  role: 'members',
  async detect(root) {
    const pkg = await packageJson(root);
    const declared = Array.isArray(pkg?.workspaces) ? pkg.workspaces : pkg?.workspaces?.packages;
    const lerna = await root.json<{ packages?: string[] }>('lerna.json');
    const patterns = declared ?? lerna?.packages;
    if (!patterns?.length) return undefined;
    const manager = await packageManagerOf(root);
    const flavour = WORKSPACE_FLAVOURS[manager] ?? WORKSPACE_FLAVOURS.npm;
    return found({
      orchestrator: flavour.orchestrator,
      manager,
      sharedInstall: true,
      members: await membersOf(root, patterns),
      buildCommand: flavour.command,
      cache: ['node_modules'],
    });
  },
};

function taskRunner(id: 'turborepo' | 'nx' | 'lerna', file: string, command: (member: WorkspaceMember) => string, cache: string[]): Orchestrator {
  return {
    id,
    role: 'tasks',
    detect(root) {
      if (!root.has(file)) return undefined;
      return found({ orchestrator: id, members: [], buildCommand: command, cache });
    },
  };
}

export const turborepo = taskRunner('turborepo', 'turbo.json', (member) => `turbo run build --filter=${member.name}`, ['.turbo']);
export const nx = taskRunner('nx', 'nx.json', (member) => `nx build ${member.name}`, ['.nx/cache']);
export const lerna = taskRunner('lerna', 'lerna.json', (member) => `lerna run build --scope=${member.name}`, []);

// ── Frameworks ─────────────────────────────────────────────────────────────────────────────────

interface JsFrameworkRule extends FrameworkPlan {
  /** Any one of these exact dependency names marks the framework. */
  packages: string[];
  /** Or a file in the service directory that only this framework uses (`main.wasp`, `redwood.toml`). */
  files?: string[];
}

/*
 * The most specific framework wins over what it builds on: an app framework over the meta-framework
 * beneath it (RedwoodJS, Blitz, Wasp, TanStack Start over React; Strapi over Koa), a meta-framework
 * over its UI library and server (Next over React, Nuxt over Vue and Nitro, SvelteKit over
 * Svelte, NestJS over Express), a server framework over the UI library it renders, a UI library
 * over the bundler (React on Vite is `react`; plain Vite is `vite`). The bundler is reported
 * separately (`bundler`).
 */
const JS_FRAMEWORK_RULES: JsFrameworkRule[] = [
  // Application frameworks built on a meta-framework
  { id: custom('redwoodjs'), packages: ['@redwoodjs/core', '@redwoodjs/web'], files: ['redwood.toml'], start: 'yarn rw serve', ports: [8910] },
  { id: custom('blitz'), packages: ['blitz'], start: 'npx blitz start', ports: [3000] },
  { id: custom('wasp'), packages: ['wasp'], files: ['main.wasp', 'main.wasp.ts'], ports: [3000] },
  { id: custom('tanstack-start'), packages: ['@tanstack/react-start', '@tanstack/start', '@tanstack/solid-start'], start: 'node .output/server/index.mjs', ports: [3000] },
  { id: custom('hydrogen'), packages: ['@shopify/hydrogen'], ports: [3000] },
  { id: custom('strapi'), packages: ['@strapi/strapi', 'strapi'], start: 'npx strapi start', ports: [1337] },
  { id: custom('keystone'), packages: ['@keystone-6/core'], start: 'npx keystone start', ports: [3000] },
  { id: custom('payload'), packages: ['payload'], ports: [3000] },
  { id: custom('medusa'), packages: ['@medusajs/medusa', '@medusajs/framework'], ports: [9000] },
  { id: custom('ghost'), packages: ['ghost'], ports: [2368] },
  // Documentation sites and static-site generators
  { id: 'docusaurus', packages: ['@docusaurus/core'], ports: [], cache: ['.docusaurus'] },
  { id: custom('vitepress'), packages: ['vitepress'], ports: [] },
  { id: custom('vuepress'), packages: ['vuepress', '@vuepress/core', 'vuepress-vite', 'vuepress-webpack'], ports: [] },
  { id: custom('gridsome'), packages: ['gridsome'], ports: [] },
  { id: 'gatsby', packages: ['gatsby'], ports: [], cache: ['.cache', 'public'] },
  { id: custom('eleventy'), packages: ['@11ty/eleventy'], ports: [] },
  { id: custom('hexo'), packages: ['hexo'], ports: [] },
  { id: custom('hugo'), packages: ['hugo-bin', 'hugo-extended', 'hugo-installer'], ports: [] },
  { id: custom('saber'), packages: ['saber'], ports: [] },
  { id: custom('scully'), packages: ['@scullyio/scully'], ports: [] },
  { id: custom('slidev'), packages: ['@slidev/cli'], ports: [] },
  { id: custom('storybook'), packages: ['@storybook/cli'], ports: [] },
  // Meta-frameworks
  { id: 'nextjs', packages: ['next'], start: 'npx next start', ports: [3000], cache: ['.next/cache'] },
  { id: 'nuxt', packages: ['nuxt', 'nuxt3', 'nuxt-edge'], start: 'node .output/server/index.mjs', ports: [3000] },
  { id: 'remix', packages: ['@remix-run/dev', '@remix-run/node', '@remix-run/react', '@remix-run/serve', 'remix'], start: 'npx remix-serve ./build/server/index.js', ports: [3000] },
  { id: 'react-router', packages: ['@react-router/dev'], start: 'npx react-router-serve ./build/server/index.js', ports: [3000] },
  { id: 'astro', packages: ['astro'], ports: [4321] },
  { id: 'sveltekit', packages: ['@sveltejs/kit'], start: 'node build', ports: [3000] },
  { id: custom('sapper'), packages: ['sapper'], ports: [3000] },
  { id: 'solid-start', packages: ['@solidjs/start', 'solid-start'], start: 'node .output/server/index.mjs', ports: [3000] },
  { id: custom('qwik'), packages: ['@builder.io/qwik-city', '@builder.io/qwik', '@qwik.dev/core', '@qwik.dev/router'], ports: [3000] },
  { id: custom('analog'), packages: ['@analogjs/platform'], ports: [3000] },
  { id: custom('ionic-angular'), packages: ['@ionic/angular'], ports: [] },
  { id: 'angular', packages: ['@angular/core'], ports: [] },
  { id: custom('ionic-react'), packages: ['@ionic/react'], ports: [] },
  { id: custom('stencil'), packages: ['@stencil/core'], ports: [] },
  { id: custom('ember'), packages: ['ember-cli', 'ember-source'], ports: [] },
  { id: custom('umi'), packages: ['umi', '@umijs/max'], ports: [] },
  { id: custom('dojo'), packages: ['@dojo/framework'], ports: [] },
  { id: custom('polymer'), packages: ['@polymer/polymer', 'polymer-cli'], ports: [] },
  { id: 'create-react-app', packages: ['react-scripts'], ports: [] },
  { id: custom('expo'), packages: ['expo'], ports: [] },
  // Server frameworks
  { id: 'nestjs', packages: ['@nestjs/core'], start: 'node dist/main', ports: [3000] },
  { id: 'adonis', packages: ['@adonisjs/core'], start: 'node build/bin/server.js', ports: [3333] },
  { id: custom('feathers'), packages: ['@feathersjs/feathers'], ports: [3030] },
  { id: custom('loopback'), packages: ['@loopback/core'], ports: [3000] },
  { id: custom('sails'), packages: ['sails'], ports: [1337] },
  { id: custom('elysia'), packages: ['elysia'], ports: [3000] },
  { id: custom('nitro'), packages: ['nitropack', 'nitro'], start: 'node .output/server/index.mjs', ports: [3000] },
  { id: 'hono', packages: ['hono'], ports: [3000] },
  { id: 'fastify', packages: ['fastify'], ports: [3000] },
  { id: 'koa', packages: ['koa'], ports: [3000] },
  { id: 'hapi', packages: ['@hapi/hapi', 'hapi'], ports: [3000] },
  { id: custom('restify'), packages: ['restify'], ports: [8080] },
  { id: custom('polka'), packages: ['polka'], ports: [3000] },
  { id: custom('h3'), packages: ['h3'], ports: [3000] },
  { id: 'express', packages: ['express'], ports: [3000] },
  // UI libraries on a bundler (their own CLI, or Vite/webpack/Parcel)
  { id: custom('preact'), packages: ['preact-cli', 'preact'], ports: [] },
  { id: custom('svelte'), packages: ['svelte'], ports: [] },
  { id: custom('solid'), packages: ['solid-js'], ports: [] },
  { id: custom('vue'), packages: ['@vue/cli-service', 'vue'], ports: [] },
  { id: custom('lit'), packages: ['lit'], ports: [] },
  { id: custom('react'), packages: ['react-dom'], ports: [] },
  // A bundler alone
  { id: 'vite', packages: ['vite'], ports: [] },
  { id: custom('parcel'), packages: ['parcel', 'parcel-bundler'], ports: [] },
  { id: custom('brunch'), packages: ['brunch'], ports: [] },
];

/** UI libraries only count as the framework when something bundles them; otherwise they are just dependencies (SSR helpers, email templates). */
const UI_LIBRARIES = new Set(['preact', 'svelte', 'solid', 'vue', 'lit', 'react']);

/** Bundlers, reported beside the framework (`bundler`), first match wins. */
const BUNDLERS: { id: string; packages: string[] }[] = [
  { id: 'vite', packages: ['vite', 'rolldown-vite'] },
  { id: 'rspack', packages: ['@rspack/core', '@rspack/cli', '@rsbuild/core'] },
  { id: 'webpack', packages: ['webpack', 'react-scripts', '@vue/cli-service', 'laravel-mix'] },
  { id: 'parcel', packages: ['parcel', 'parcel-bundler'] },
  { id: 'turbopack', packages: ['@vercel/turbopack'] },
  { id: 'esbuild', packages: ['esbuild'] },
  { id: 'rollup', packages: ['rollup'] },
  { id: 'snowpack', packages: ['snowpack'] },
  { id: 'brunch', packages: ['brunch'] },
];

export function bundlerOf(names: Set<string>): string | undefined {
  return BUNDLERS.find(({ packages }) => packages.some((name) => names.has(name)))?.id;
}

/**
 * One detector walks the rule table in order and answers with the first rule whose package is a
 * dependency: the same priority as one detector per rule, for one look at package.json instead of
 * seventy (a 1,000-package monorepo asks this for every package).
 */
const jsFrameworks: Framework = {
  id: custom('javascript-frameworks'),
  languages: JS,
  async detect(service) {
    const names = dependencyNames(await packageJson(service));
    const bundler = bundlerOf(names);
    const rule = JS_FRAMEWORK_RULES.find(({ id, packages, files }) => {
      if (files?.some((file) => service.has(file))) return true;
      if (!packages.some((name) => names.has(name))) return false;
      return !UI_LIBRARIES.has(id) || bundler !== undefined || names.has('preact-cli') || names.has('@vue/cli-service');
    });
    if (!rule) return undefined;
    const { packages: _packages, files: _files, ...plan } = rule;
    const withBundler = bundler && bundler !== rule.id ? { ...plan, bundler } : plan;
    return found<FrameworkPlan>(rule.id === 'astro' ? await astroPlan(service, withBundler) : withBundler);
  },
};

/** Astro is static unless a server adapter is installed. */
async function astroPlan(service: ServiceContext, plan: FrameworkPlan): Promise<FrameworkPlan> {
  const serverAdapter = dependencyNames(await packageJson(service)).has('@astrojs/node');
  return serverAdapter ? { ...plan, start: 'node ./dist/server/entry.mjs' } : { ...plan, ports: [] };
}

export const JS_FRAMEWORKS: Framework[] = [jsFrameworks];

// ── Runtimes ───────────────────────────────────────────────────────────────────────────────────

export const denoRuntime: Runtime = {
  id: 'deno',
  languages: JS,
  async detect(service, stack) {
    if (stack.build.id !== 'deno') return undefined;
    const config = (await service.json<DenoConfig>('deno.json')) ?? (await service.json<DenoConfig>('deno.jsonc'));
    const version = (await versionFromFiles(service, ['.dvmrc'], ['deno'])) ?? { source: 'default' };
    const entry = ['main.ts', 'mod.ts', 'server.ts', 'main.js'].find((file) => service.has(file));
    const command = config?.tasks?.start ? 'deno task start' : entry ? `deno run --allow-net --allow-env --allow-read ${entry}` : undefined;
    return found({ name: 'deno' as const, version, command, ports: [8000], base_image: `denoland/deno:${version.requested ?? 'latest'}` });
  },
};

export const bunRuntime: Runtime = {
  id: 'bun',
  languages: JS,
  async detect(service, stack) {
    if (stack.build.id !== 'bun') return undefined;
    const pkg = await packageJson(service);
    const version = manifestVersion(pkg?.engines?.bun, 'package.json engines.bun') ?? (await versionFromFiles(service, ['.bun-version'], ['bun'])) ?? { source: 'default' };
    return found({
      name: 'bun' as const,
      version,
      command: startCommand(service, pkg, stack.build.scriptRunner, stack.framework, 'bun'),
      ports: stack.framework?.ports ?? [],
      base_image: `oven/bun:${majorOf(version.requested) ?? '1'}`,
    });
  },
};

export const nodeRuntime: Runtime = {
  id: 'node',
  languages: JS,
  async detect(service, stack) {
    if (!service.has('package.json')) return undefined;
    const pkg: PackageJson = (await packageJson(service)) ?? {};
    const version =
      manifestVersion(pkg.engines?.node, 'package.json engines.node') ??
      (await versionFromFiles(service, ['.nvmrc', '.node-version'], ['nodejs', 'node'])) ?? { requested: DEFAULT_NODE, source: 'default' };
    return found({
      name: 'node' as const,
      version,
      command: startCommand(service, pkg, stack.build.scriptRunner, stack.framework, 'node'),
      ports: stack.framework?.ports ?? [],
      base_image: `node:${majorOf(version.requested)?.split('.')[0] ?? DEFAULT_NODE}-slim`,
    });
  },
};

function manifestVersion(requested: string | undefined, source: string) {
  return requested ? { requested, source } : undefined;
}

/**
 * Precedence: the `start` script, then `main`, then the framework's convention, then the entry
 * file the runtime itself would pick (`npm start` runs `node server.js` when there is one).
 */
function startCommand(service: ServiceContext, pkg: PackageJson | undefined, runner: string | undefined, framework: FrameworkPlan | undefined, binary: string): string | undefined {
  if (pkg?.scripts?.start) return runner === 'npm run' || !runner ? 'npm start' : `${runner} start`;
  if (pkg?.main) return `${binary} ${pkg.main}`;
  if (framework?.start) return framework.start;
  const entries = binary === 'bun' ? ['index.ts', 'server.ts', 'main.ts', 'app.ts', 'index.js', 'server.js'] : ['server.js', 'index.js', 'app.js', 'main.js'];
  const entry = entries.find((name) => service.has(name)) ?? (binary === 'bun' ? service.files().find((name) => /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') && !/\.config\./.test(name)) : undefined);
  return entry ? `${binary} ${entry}` : undefined;
}
