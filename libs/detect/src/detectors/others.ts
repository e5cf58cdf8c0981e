import type { LanguageId } from '../ids';
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

const RUBY_FRAMEWORK_GEMS: { id: 'rails' | 'hanami' | 'sinatra'; start: string; port: number }[] = [
  { id: 'rails', start: 'rails server -b 0.0.0.0 -p 3000', port: 3000 },
  { id: 'hanami', start: 'hanami server --host 0.0.0.0 --port 2300', port: 2300 },
  { id: 'sinatra', start: 'rackup --host 0.0.0.0 --port 4567', port: 4567 },
];

export const RUBY_FRAMEWORKS: Framework[] = RUBY_FRAMEWORK_GEMS.map(({ id, start, port }) => ({
  id,
  languages: RUBY,
  async detect(service) {
    return (await gemNames(service)).has(id) ? found<FrameworkPlan>({ id, start, ports: [port], ...(id === 'rails' ? { cache: ['tmp/cache'] } : {}) }) : undefined;
  },
}));

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

const PHP_FRAMEWORK_PACKAGES: { id: 'laravel' | 'symfony'; package: string; start: string }[] = [
  { id: 'laravel', package: 'laravel/framework', start: 'php artisan serve --host=0.0.0.0 --port=8000' },
  { id: 'symfony', package: 'symfony/framework-bundle', start: 'php -S 0.0.0.0:8000 -t public' },
];

export const PHP_FRAMEWORKS: Framework[] = PHP_FRAMEWORK_PACKAGES.map(({ id, package: name, start }) => ({
  id,
  languages: PHP,
  async detect(service) {
    const required = (await service.json<ComposerJson>('composer.json'))?.require ?? {};
    return name in required ? found<FrameworkPlan>({ id, start, ports: [8000] }) : undefined;
  },
}));

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
      build: ['mix compile', ...(/\{:phoenix,/.test(mix) ? ['mix assets.deploy'] : []), 'mix release'],
      cache: ['deps', '_build', '~/.hex', '~/.mix'],
      env: { MIX_ENV: 'prod' },
      projectName: mix.match(/app:\s*:(\w+)/)?.[1],
    });
  },
};

export const phoenix: Framework = {
  id: 'phoenix',
  languages: ELIXIR,
  async detect(service) {
    return /\{:phoenix,/.test((await service.read('mix.exs')) ?? '') ? found<FrameworkPlan>({ id: 'phoenix', ports: [4000] }) : undefined;
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
