import { custom, type FrameworkId, type LanguageId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, FrameworkPlan, Language, Runtime, ServiceContext } from '../model';
import { found, majorOf, procfileWeb, versionFromFiles } from './shared';

/*
 * Ruby (bundler; rails, sinatra, hanami), PHP (composer; laravel, symfony), .NET (dotnet;
 * ASP.NET Core) and Elixir (mix; phoenix). Each reads one manifest; dependency names are exact.
 */

const RUBY: readonly LanguageId[] = ['ruby'];
const PHP: readonly LanguageId[] = ['php'];
const DOTNET: readonly LanguageId[] = ['csharp', 'fsharp'];
const ELIXIR: readonly LanguageId[] = ['elixir'];
const FRONTEND_NOTE = 'secondary runtime: node (package.json for front-end assets)';

function manifestLanguage(id: LanguageId, manifest: string): Language {
  return {
    id,
    detect(service) {
      if (!service.has(manifest)) return undefined;
      return found<LanguageId>(id, 1, service.has('package.json') ? [FRONTEND_NOTE] : []);
    },
  };
}

// ── Ruby ───────────────────────────────────────────────────────────────────────────────────────

export const rubyLanguage = manifestLanguage('ruby', 'Gemfile');

/** `gem "rails", "~> 7.1"` → rails. */
export async function gemNames(service: ServiceContext): Promise<Set<string>> {
  const text = (await service.read('Gemfile')) ?? '';
  return new Set([...text.matchAll(/^\s*gem\s+["']([^"']+)["']/gm)].map((match) => match[1]));
}

export const bundlerBuild: BuildSystem = {
  id: 'bundler',
  languages: RUBY,
  async detect(service) {
    if (!service.has('Gemfile')) return undefined;
    const rails = (await gemNames(service)).has('rails');
    return found<BuildPlan>({
      id: 'bundler',
      install: ['bundle config set --local deployment true', 'bundle install'],
      build: rails ? ['bundle exec rails assets:precompile'] : [],
      cache: ['vendor/bundle'],
      env: rails ? { RAILS_ENV: 'production' } : {},
      runPrefix: 'bundle exec ',
    });
  },
};

/** Full frameworks before the micro-frameworks and Rack beneath them; Jekyll sites are Ruby too. */
const RUBY_FRAMEWORK_GEMS: { id: FrameworkId; gems: string[]; start?: string; port: number }[] = [
  { id: 'rails', gems: ['rails', 'railties'], start: 'rails server -b 0.0.0.0 -p 3000', port: 3000 },
  { id: 'hanami', gems: ['hanami'], start: 'hanami server --host 0.0.0.0 --port 2300', port: 2300 },
  { id: custom('padrino'), gems: ['padrino'], start: 'padrino start -h 0.0.0.0', port: 3000 },
  { id: 'sinatra', gems: ['sinatra'], start: 'rackup --host 0.0.0.0 --port 4567', port: 4567 },
  { id: custom('roda'), gems: ['roda'], start: 'rackup --host 0.0.0.0 --port 9292', port: 9292 },
  { id: custom('grape'), gems: ['grape'], start: 'rackup --host 0.0.0.0 --port 9292', port: 9292 },
  { id: custom('jekyll'), gems: ['jekyll', 'github-pages'], port: 4000 },
  { id: custom('middleman'), gems: ['middleman'], port: 4567 },
  { id: custom('rack'), gems: ['rack', 'rackup'], start: 'rackup --host 0.0.0.0 --port 9292', port: 9292 },
];

export const RUBY_FRAMEWORKS: Framework[] = [
  {
    id: custom('ruby-frameworks'),
    languages: RUBY,
    async detect(service) {
      const gems = await gemNames(service);
      const rule = RUBY_FRAMEWORK_GEMS.find(({ id, gems: names }) => names.some((name) => gems.has(name)) && (id !== custom('rack') || service.has('config.ru')));
      if (!rule) return undefined;
      return found<FrameworkPlan>({ id: rule.id, ...(rule.start ? { start: rule.start } : {}), ports: [rule.port], ...(rule.id === 'rails' ? { cache: ['tmp/cache'] } : {}) });
    },
  },
];

export const rubyRuntime: Runtime = {
  id: 'ruby',
  languages: RUBY,
  async detect(service, stack) {
    const declared = (await service.read('Gemfile'))?.match(/^\s*ruby\s+["']([^"']+)["']/m)?.[1];
    const version = declared
      ? { requested: declared, source: 'Gemfile ruby' }
      : ((await versionFromFiles(service, ['.ruby-version'], ['ruby'])) ?? { requested: '3.3', source: 'default' });
    const conventional = stack.framework?.start && `${stack.build.runPrefix ?? ''}${stack.framework.start}`;
    return found({
      name: 'ruby' as const,
      version,
      command: (await procfileWeb(service)) ?? conventional ?? (service.has('config.ru') ? 'bundle exec rackup --host 0.0.0.0' : undefined),
      ports: stack.framework?.ports ?? [],
      base_image: `ruby:${majorOf(version.requested) ?? '3.3'}-slim`,
    });
  },
};

// ── PHP ────────────────────────────────────────────────────────────────────────────────────────

interface ComposerJson {
  name?: string;
  require?: Record<string, string>;
}

export const phpLanguage = manifestLanguage('php', 'composer.json');

export const composerBuild: BuildSystem = {
  id: 'composer',
  languages: PHP,
  async detect(service) {
    if (!service.has('composer.json')) return undefined;
    const composer = await service.json<ComposerJson>('composer.json');
    return found<BuildPlan>({
      id: 'composer',
      install: ['composer install --no-dev --optimize-autoloader --no-interaction'],
      build: [],
      cache: ['~/.composer/cache', 'vendor'],
      projectName: composer?.name,
    });
  },
};

/** Applications built on a framework before the framework (Statamic, Lumen over Laravel; Drupal over Symfony). */
const PHP_FRAMEWORK_PACKAGES: { id: FrameworkId; packages: string[]; start: string }[] = [
  { id: custom('statamic'), packages: ['statamic/cms'], start: 'php artisan serve --host=0.0.0.0 --port=8000' },
  { id: custom('lumen'), packages: ['laravel/lumen-framework'], start: 'php -S 0.0.0.0:8000 -t public' },
  { id: 'laravel', packages: ['laravel/framework'], start: 'php artisan serve --host=0.0.0.0 --port=8000' },
  { id: custom('drupal'), packages: ['drupal/core', 'drupal/core-recommended'], start: 'php -S 0.0.0.0:8000 -t web' },
  { id: custom('wordpress'), packages: ['johnpbloch/wordpress', 'roots/wordpress', 'johnpbloch/wordpress-core'], start: 'php -S 0.0.0.0:8000' },
  { id: 'symfony', packages: ['symfony/framework-bundle'], start: 'php -S 0.0.0.0:8000 -t public' },
  { id: custom('cakephp'), packages: ['cakephp/cakephp'], start: 'bin/cake server -H 0.0.0.0 -p 8000' },
  { id: custom('codeigniter'), packages: ['codeigniter4/framework', 'codeigniter/framework'], start: 'php spark serve --host 0.0.0.0 --port 8000' },
  { id: custom('yii'), packages: ['yiisoft/yii2'], start: 'php yii serve 0.0.0.0:8000' },
  { id: custom('laminas'), packages: ['laminas/laminas-mvc', 'mezzio/mezzio'], start: 'php -S 0.0.0.0:8000 -t public' },
  { id: custom('slim'), packages: ['slim/slim'], start: 'php -S 0.0.0.0:8000 -t public' },
];

export const PHP_FRAMEWORKS: Framework[] = [
  {
    id: custom('php-frameworks'),
    languages: PHP,
    async detect(service) {
      const required = (await service.json<ComposerJson>('composer.json'))?.require ?? {};
      const rule = PHP_FRAMEWORK_PACKAGES.find(({ packages }) => packages.some((name) => name in required));
      return rule ? found<FrameworkPlan>({ id: rule.id, start: rule.start, ports: [8000] }) : undefined;
    },
  },
];

export const phpRuntime: Runtime = {
  id: 'php',
  languages: PHP,
  async detect(service, stack) {
    const declared = (await service.json<ComposerJson>('composer.json'))?.require?.php;
    const version = declared
      ? { requested: declared, source: 'composer.json require.php' }
      : ((await versionFromFiles(service, ['.php-version'], ['php'])) ?? { requested: '8.3', source: 'default' });
    return found({
      name: 'php' as const,
      version,
      command: (await procfileWeb(service)) ?? stack.framework?.start,
      ports: stack.framework?.ports ?? [],
      base_image: `php:${majorOf(version.requested) ?? '8.3'}-cli`,
    });
  },
};

// ── .NET ───────────────────────────────────────────────────────────────────────────────────────

function projectFile(service: ServiceContext): string | undefined {
  return service.files().find((name) => name.endsWith('.csproj') || name.endsWith('.fsproj'));
}

export const dotnetLanguage: Language = {
  id: 'csharp',
  detect(service) {
    const project = projectFile(service);
    if (!project) return undefined;
    return found<LanguageId>(project.endsWith('.fsproj') ? 'fsharp' : 'csharp');
  },
};

export const dotnetBuild: BuildSystem = {
  id: 'dotnet',
  languages: DOTNET,
  detect(service) {
    const project = projectFile(service);
    if (!project) return undefined;
    return found<BuildPlan>({
      id: 'dotnet',
      install: [`dotnet restore ${project}`],
      build: [`dotnet publish ${project} -c Release -o out --no-restore`],
      cache: ['~/.nuget/packages'],
      projectName: project.replace(/\.(cs|fs)proj$/, ''),
    });
  },
};

export const aspnetCore: Framework = {
  id: 'aspnet-core',
  languages: DOTNET,
  async detect(service) {
    const project = projectFile(service);
    const text = project ? await service.read(project) : undefined;
    return text && /Sdk\s*=\s*"Microsoft\.NET\.Sdk\.Web"/.test(text) ? found<FrameworkPlan>({ id: 'aspnet-core', ports: [8080] }) : undefined;
  },
};

export const dotnetRuntime: Runtime = {
  id: 'dotnet',
  languages: DOTNET,
  async detect(service, stack) {
    const project = projectFile(service);
    const target = project && (await service.read(project))?.match(/<TargetFramework>\s*net(\d+\.\d+)\s*</)?.[1];
    const version = target ? { requested: target, source: `${project} TargetFramework` } : { requested: '8.0', source: 'default' };
    const name = stack.build.projectName;
    return found({
      name: 'dotnet' as const,
      version,
      command: name ? `dotnet out/${name}.dll` : undefined,
      ports: stack.framework?.ports ?? [],
      base_image: `mcr.microsoft.com/dotnet/aspnet:${version.requested}`,
    });
  },
};

// ── Elixir ─────────────────────────────────────────────────────────────────────────────────────

export const elixirLanguage = manifestLanguage('elixir', 'mix.exs');

export const mixBuild: BuildSystem = {
  id: 'mix',
  languages: ELIXIR,
  async detect(service) {
    const mix = await service.read('mix.exs');
    if (mix === undefined) return undefined;
    return found<BuildPlan>({
      id: 'mix',
      install: ['mix local.hex --force', 'mix local.rebar --force', 'mix deps.get --only prod'],
      build: ['mix compile', ...(/\{\s*:phoenix\s*[,}]/.test(mix) ? ['mix assets.deploy'] : []), 'mix release'],
      cache: ['deps', '_build', '~/.hex', '~/.mix'],
      env: { MIX_ENV: 'prod' },
      projectName: mix.match(/app:\s*:(\w+)/)?.[1],
    });
  },
};

/** Phoenix, else a bare Plug application. */
export const phoenix: Framework = {
  id: 'phoenix',
  languages: ELIXIR,
  async detect(service) {
    const mix = (await service.read('mix.exs')) ?? '';
    if (/\{\s*:phoenix\s*[,}]/.test(mix)) return found<FrameworkPlan>({ id: 'phoenix', ports: [4000] });
    if (/\{\s*:plug_cowboy\s*[,}]|\{\s*:bandit\s*[,}]/.test(mix)) return found<FrameworkPlan>({ id: custom('plug'), ports: [4000] });
    return undefined;
  },
};

export const elixirRuntime: Runtime = {
  id: 'elixir',
  languages: ELIXIR,
  async detect(service, stack) {
    const declared = (await service.read('mix.exs'))?.match(/elixir:\s*"([^"]+)"/)?.[1];
    const version = declared ? { requested: declared, source: 'mix.exs elixir' } : ((await versionFromFiles(service, [], ['elixir'])) ?? { requested: '1.17', source: 'default' });
    const app = stack.build.projectName;
    return found({
      name: 'elixir' as const,
      version,
      command: app ? `_build/prod/rel/${app}/bin/${app} start` : undefined,
      ports: stack.framework?.ports ?? [],
      base_image: `elixir:${majorOf(version.requested) ?? '1.17'}`,
    });
  },
};

export const OTHER_DETECTORS = {
  languages: [rubyLanguage, phpLanguage, dotnetLanguage, elixirLanguage],
  buildSystems: [bundlerBuild, composerBuild, dotnetBuild, mixBuild],
  frameworks: [...RUBY_FRAMEWORKS, ...PHP_FRAMEWORKS, aspnetCore, phoenix],
  runtimes: [rubyRuntime, phpRuntime, dotnetRuntime, elixirRuntime],
};
