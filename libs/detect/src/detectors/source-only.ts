import { custom, type BuildSystemId, type LanguageId, type RuntimeId } from '../ids';
import type { BuildPlan, BuildSystem, Language, Runtime, ServiceContext } from '../model';
import { joinPath } from '../scan';
import { found, procfileWeb, versionFromFiles } from './shared';

/*
 * Directories with sources but no manifest: a lone `main.go`, `index.php`, `main.py` (with a
 * `.python-version`), `server.js`, `start.sh`, COBOL programs, a static `index.html`. Their
 * language comes from the file names, the start command from the entry point convention of each
 * runtime, and the confidence is lower than a manifest's. These detectors are registered after
 * every manifest detector and flagged `fromSources`, so service discovery asks them only when no
 * manifest names a service anywhere near the top (a `scripts/deploy.sh` never becomes a service
 * beside a real one).
 */

export const SOURCE_CONFIDENCE = 0.6;

interface SourceRule {
  language: LanguageId;
  build: BuildSystemId;
  runtime: RuntimeId;
  /** Source files of the language (test files excluded by the caller's pattern). */
  sources: RegExp;
  /** Entry points in preference order; the first source file otherwise. */
  entries: string[];
  /** Directories that may hold the entry instead (PHP document roots). */
  roots?: string[];
  build_commands?: (entry: string) => string[];
  start?: (entry: string, root: string) => string | undefined;
  versionFiles?: [string[], string[]];
}

/** In priority order: a server language beside static pages or helper scripts is the service. */
const RULES: SourceRule[] = [
  {
    language: 'go', build: 'go', runtime: 'go', sources: /^(?!.*_test\.go$).+\.go$/, entries: ['main.go', 'server.go', 'app.go'],
    build_commands: () => ['go build -o app .'], start: () => './app', versionFiles: [['.go-version'], ['golang', 'go']],
  },
  {
    language: 'php', build: 'none', runtime: 'php', sources: /\.php$/, entries: ['index.php', 'app.php', 'server.php'], roots: ['public', 'htdocs', 'web', 'www'],
    start: (_entry, root) => `php -S 0.0.0.0:8080 -t ${root}`, versionFiles: [['.php-version'], ['php']],
  },
  {
    language: 'python', build: 'none', runtime: 'python', sources: /\.py$/, entries: ['main.py', 'app.py', 'server.py', 'wsgi.py', 'run.py', '__main__.py'],
    start: (entry) => `python ${entry}`, versionFiles: [['.python-version', 'runtime.txt'], ['python']],
  },
  {
    language: 'ruby', build: 'none', runtime: 'ruby', sources: /\.rb$/, entries: ['app.rb', 'main.rb', 'server.rb'],
    start: (entry) => `ruby ${entry}`, versionFiles: [['.ruby-version'], ['ruby']],
  },
  {
    language: 'javascript', build: 'none', runtime: 'node', sources: /\.(m|c)?js$/, entries: ['server.js', 'index.js', 'app.js', 'main.js', 'server.mjs', 'index.mjs'],
    start: (entry) => `node ${entry}`, versionFiles: [['.nvmrc', '.node-version'], ['nodejs', 'node']],
  },
  {
    language: 'typescript', build: 'none', runtime: 'node', sources: /^(?!.*\.d\.ts$).+\.(m|c)?ts$/, entries: ['server.ts', 'index.ts', 'main.ts', 'app.ts'],
    start: (entry) => `npx tsx ${entry}`, versionFiles: [['.nvmrc', '.node-version'], ['nodejs', 'node']],
  },
  {
    language: custom('cobol'), build: 'none', runtime: 'native', sources: /\.(cob|cbl|cobol)$/i, entries: ['main.cob', 'main.cbl', 'app.cob', 'hello.cob'],
    build_commands: (entry) => [`cobc -x -o app ${entry}`], start: () => './app',
  },
  {
    language: custom('shell'), build: 'none', runtime: custom('bash'), sources: /\.(sh|bash)$/, entries: ['start.sh', 'run.sh', 'main.sh', 'app.sh', 'server.sh', 'entrypoint.sh'],
    start: (entry) => `bash ${entry}`,
  },
  { language: custom('html'), build: 'none', runtime: custom('static'), sources: /\.html?$/, entries: ['index.html', 'index.htm'] },
];

interface SourceMatch {
  rule: SourceRule;
  /** Root-relative POSIX path of the entry, relative to the service. */
  entry: string;
  /** The directory served or run from, relative to the service ('.' for itself). */
  root: string;
}

/** The sources of a directory without a manifest; undefined when it has none we know. */
export function sourceMatch(service: ServiceContext): SourceMatch | undefined {
  const files = service.files();
  for (const rule of RULES) {
    const sources = files.filter((name) => rule.sources.test(name));
    const entry = rule.entries.find((name) => sources.includes(name)) ?? sources[0];
    if (entry) return { rule, entry, root: '.' };
    for (const root of rule.roots ?? []) {
      const nested = service.scan.files.get(joinPath(service.dir, root)) ?? [];
      const inRoot = rule.entries.find((name) => nested.includes(name));
      if (inRoot) return { rule, entry: `${root}/${inRoot}`, root };
    }
  }
  return undefined;
}

export const sourceOnlyLanguage: Language = {
  id: custom('sources'),
  fromSources: true,
  detect(service) {
    const match = sourceMatch(service);
    return match ? found(match.rule.language, SOURCE_CONFIDENCE, [`no manifest: ${match.rule.language} guessed from ${match.entry}`]) : undefined;
  },
};

export const sourceOnlyBuild: BuildSystem = {
  id: 'none',
  languages: [...new Set(RULES.map((rule) => rule.language))],
  detect(service, language) {
    const match = sourceMatch(service);
    if (!match || match.rule.language !== language) return undefined;
    const build = match.rule.build_commands?.(match.entry) ?? [];
    return found<BuildPlan>({ id: match.rule.build, install: [], build, cache: [], start: match.rule.start?.(match.entry, match.root) }, SOURCE_CONFIDENCE);
  },
};

/** Asked before the manifest runtimes: it answers only for services the source rules built. */
export const sourceOnlyRuntime: Runtime = {
  id: custom('sources'),
  languages: [],
  async detect(service, stack) {
    const match = stack.build.start !== undefined || stack.build.id === 'none' ? sourceMatch(service) : undefined;
    if (!match || match.rule.language !== stack.language) return undefined;
    const [files, tools] = match.rule.versionFiles ?? [[], []];
    const version = (files.length || tools.length ? await versionFromFiles(service, files, tools) : undefined) ?? { source: 'default' };
    const command = (await procfileWeb(service)) ?? stack.build.start;
    return found({ name: match.rule.runtime, version, command, ports: [] }, SOURCE_CONFIDENCE);
  },
};
