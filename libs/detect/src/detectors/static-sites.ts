import type { BuildSystemId, FrameworkId, LanguageId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, FrameworkPlan, Language, Runtime, ServiceContext } from '../model';
import { joinPath } from '../scan';
import { found } from './shared';

/*
 * Static-site generators that are a binary rather than a package: Hugo, Zola, and Jekyll without
 * a Gemfile. Their config file is the manifest; the content layout tells them apart (Hugo's
 * `layouts/`/`archetypes/`, Zola's `templates/`, Jekyll's `_posts/`/`_layouts/`). The language of
 * such a site is `html`; the generator is both the build system and the framework. Asked before
 * JavaScript: a package.json beside a Hugo config is for tooling (Cypress, PostCSS).
 */

interface SiteGenerator {
  id: 'hugo' | 'zola' | 'jekyll';
  /** Any of these config files… */
  configs: string[];
  /** …with one of these beside it (directories or files); empty = the config alone is enough. */
  layout: string[];
  build: string[];
  cache: string[];
}

const GENERATORS: SiteGenerator[] = [
  { id: 'hugo', configs: ['hugo.toml', 'hugo.yaml', 'hugo.json'], layout: [], build: ['hugo --minify'], cache: ['resources/_gen'] },
  { id: 'zola', configs: ['config.toml', 'zola.toml'], layout: ['templates'], build: ['zola build'], cache: [] },
  { id: 'hugo', configs: ['config.toml', 'config.yaml', 'config.yml', 'config.json'], layout: ['layouts', 'archetypes', 'themes', '.hugo_build.lock'], build: ['hugo --minify'], cache: ['resources/_gen'] },
  { id: 'jekyll', configs: ['_config.yml', '_config.yaml'], layout: ['_posts', '_layouts', '_includes'], build: ['jekyll build'], cache: ['.jekyll-cache'] },
];

function generatorOf(service: ServiceContext): SiteGenerator | undefined {
  if (service.has('Gemfile')) return undefined; // a Jekyll site with a Gemfile is a Ruby service (bundler, framework jekyll)
  return GENERATORS.find(({ configs, layout }) => configs.some((config) => service.has(config)) && (layout.length === 0 || layout.some((entry) => service.has(entry) || service.scan.files.has(joinPath(service.dir, entry)))));
}

export const staticSiteLanguage: Language = {
  id: 'html',
  detect(service) {
    return generatorOf(service) ? found<LanguageId>('html') : undefined;
  },
};

export const staticSiteBuild: BuildSystem = {
  id: 'hugo',
  languages: ['html'],
  detect(service) {
    const generator = generatorOf(service);
    return generator ? found<BuildPlan>({ id: generator.id as BuildSystemId, install: [], build: generator.build, cache: generator.cache }) : undefined;
  },
};

export const staticSiteFramework: Framework = {
  id: 'hugo' as FrameworkId,
  languages: ['html'],
  detect(service) {
    const generator = generatorOf(service);
    return generator ? found<FrameworkPlan>({ id: generator.id as FrameworkId, ports: [] }) : undefined;
  },
};

/** The site is built to files and served by any static server: no start command of its own. */
export const staticSiteRuntime: Runtime = {
  id: 'static',
  languages: ['html'],
  detect(service) {
    return generatorOf(service) ? found({ name: 'static' as const, version: { source: 'default' }, ports: [] }) : undefined;
  },
};
