import { custom, type BuildSystemId, type FrameworkId, type LanguageId, type RuntimeId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, FrameworkPlan, Language, Runtime, ServiceContext } from '../model';
import { joinPath } from '../scan';
import { found, versionFromFiles } from './shared';

/*
 * Ecosystems where one manifest settles language and build system and no framework is worth
 * telling apart yet: a table, so each costs one row. Rows are asked in order; the first whose
 * manifest is present wins (e.g. `stack.yaml` before a `.cabal` file).
 */

interface ManifestRow {
  language: LanguageId;
  build: BuildSystemId;
  runtime: RuntimeId;
  /** A file name, or a suffix starting with '*' (`*.cabal`). */
  manifest: string;
  install: string[];
  buildCommands: string[];
  cache: string[];
  /** Tool names in `.tool-versions` / `mise.toml`. */
  tools: string[];
  /** When the manifest serves several languages (CMake, Meson, Bazel): which one this project is. */
  languageOf?: (service: ServiceContext) => Promise<LanguageId | undefined>;
  /** Every language `languageOf` can answer. */
  languages?: LanguageId[];
}

/** Source extensions per language, C++ before C (a C++ tree holds `.c` files too). */
const MAKE_LANGUAGES: { language: LanguageId; extensions: string[] }[] = [
  { language: 'cpp', extensions: ['.cpp', '.cc', '.cxx', '.hpp'] },
  { language: 'c', extensions: ['.c'] },
];

const BAZEL_LANGUAGES: { language: LanguageId; extensions: string[] }[] = [
  ...MAKE_LANGUAGES,
  { language: 'java', extensions: ['.java'] },
  { language: 'go', extensions: ['.go'] },
  { language: 'kotlin', extensions: ['.kt'] },
  { language: 'rust', extensions: ['.rs'] },
  { language: 'python', extensions: ['.py'] },
  { language: 'typescript', extensions: ['.ts'] },
];

const ROWS: ManifestRow[] = [
  { language: 'scala', build: 'sbt', runtime: 'java', manifest: 'build.sbt', install: ['sbt update'], buildCommands: ['sbt package'], cache: ['~/.ivy2/cache', '~/.sbt', '~/.cache/coursier'], tools: ['java'] },
  { language: 'swift', build: 'swiftpm', runtime: 'swift', manifest: 'Package.swift', install: ['swift package resolve'], buildCommands: ['swift build -c release'], cache: ['.build'], tools: ['swift'] },
  { language: 'dart', build: 'dart-pub', runtime: 'dart', manifest: 'pubspec.yaml', install: ['dart pub get'], buildCommands: [], cache: ['~/.pub-cache', '.dart_tool'], tools: ['dart', 'flutter'] },
  { language: 'clojure', build: 'lein', runtime: 'java', manifest: 'project.clj', install: ['lein deps'], buildCommands: ['lein uberjar'], cache: ['~/.m2/repository'], tools: ['java'] },
  { language: 'clojure', build: 'clojure-tools', runtime: 'java', manifest: 'deps.edn', install: ['clojure -P'], buildCommands: [], cache: ['~/.m2/repository', '.cpcache'], tools: ['clojure', 'java'] },
  { language: 'haskell', build: 'stack', runtime: 'haskell', manifest: 'stack.yaml', install: ['stack setup', 'stack build --only-dependencies'], buildCommands: ['stack build'], cache: ['~/.stack', '.stack-work'], tools: ['ghc'] },
  { language: 'haskell', build: 'cabal', runtime: 'haskell', manifest: '*.cabal', install: ['cabal update', 'cabal build --only-dependencies'], buildCommands: ['cabal build'], cache: ['~/.cabal/packages', 'dist-newstyle'], tools: ['ghc'] },
  { language: 'crystal', build: 'shards', runtime: 'crystal', manifest: 'shard.yml', install: ['shards install'], buildCommands: ['shards build --release'], cache: ['lib'], tools: ['crystal'] },
  { language: 'gleam', build: 'gleam', runtime: 'erlang', manifest: 'gleam.toml', install: ['gleam deps download'], buildCommands: ['gleam build'], cache: ['build'], tools: ['gleam'] },
  {
    language: 'cpp', build: 'cmake', runtime: 'native', manifest: 'CMakeLists.txt', install: [], buildCommands: ['cmake -B build -DCMAKE_BUILD_TYPE=Release', 'cmake --build build'], cache: ['build'], tools: [],
    languageOf: (service) => declaredOrSourceLanguage(service, 'CMakeLists.txt', /\bproject\s*\(([^)]*)\)/i), languages: ['c', 'cpp'],
  },
  { language: 'zig', build: 'zig', runtime: 'native', manifest: 'build.zig', install: ['zig build --fetch'], buildCommands: ['zig build -Doptimize=ReleaseSafe'], cache: ['.zig-cache', 'zig-out', '~/.cache/zig'], tools: ['zig'] },
  {
    language: 'c', build: 'meson', runtime: 'native', manifest: 'meson.build', install: [], buildCommands: ['meson setup build', 'meson compile -C build'], cache: ['build'], tools: [],
    languageOf: (service) => declaredOrSourceLanguage(service, 'meson.build', /\bproject\s*\(([^)]*)\)/), languages: ['c', 'cpp'],
  },
  ...['MODULE.bazel', 'WORKSPACE.bazel', 'WORKSPACE', 'BUILD.bazel', 'BUILD'].map((manifest): ManifestRow => ({
    language: 'cpp', build: 'bazel', runtime: 'native', manifest, install: [], buildCommands: ['bazel build //...'], cache: ['~/.cache/bazel'], tools: ['bazel'],
    languageOf: async (service) => (await bazelRuleLanguage(service)) ?? mostCommonLanguage(service, BAZEL_LANGUAGES), languages: BAZEL_LANGUAGES.map(({ language }) => language),
  })),
];

/**
 * A Makefile settles the build system but not the language: that comes from the sources next to
 * it (or in src/). Asked after every manifest row, so a CMake or Meson project that also ships a
 * Makefile stays what its manifest says.
 */
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];

/**
 * A Makefile makes its directory a C or C++ project when sources sit beside it or one level down,
 * or anywhere below it when the tree is one build (Kconfig, or sub-Makefiles it descends into):
 * a Kbuild tree like Linux is one project, its subsystem Makefiles are part of the root's build.
 */
function makeLanguage(service: ServiceContext): LanguageId | undefined {
  if (!MAKEFILES.some((name) => service.has(name))) return undefined;
  return sourceLanguage(service, MAKE_LANGUAGES) ?? (service.has('Kconfig') || service.has('Kbuild') ? mostCommonLanguage(service, MAKE_LANGUAGES) : undefined);
}


/**
 * The first language (in list order: C++ before C, since a C++ tree also holds `.c` files) whose
 * sources sit in the directory or one level down (`src/`, `main/`, `lib/`). Headers alone (a
 * header-only library) count as C.
 */
function sourceLanguage(service: ServiceContext, languages: { language: LanguageId; extensions: string[] }[]): LanguageId | undefined {
  const prefix = service.dir === '.' ? '' : `${service.dir}/`;
  const nearby = [service.dir, ...service.scan.directories.filter((dir) => dir.startsWith(prefix) && dir !== service.dir && !dir.slice(prefix.length).includes('/'))];
  const names = nearby.flatMap((dir) => service.scan.files.get(dir) ?? []);
  const language = languages.find(({ extensions }) => names.some((name) => extensions.some((extension) => name.endsWith(extension))))?.language;
  return language ?? (names.some((name) => name.endsWith('.h')) && languages.some((entry) => entry.language === 'c') ? 'c' : undefined);
}

/** The language of the rules a BUILD file declares (`java_binary`, `cc_library`, `go_binary`), the most frequent first. */
const BAZEL_RULE_LANGUAGES: Record<string, LanguageId> = { cc: 'cpp', java: 'java', go: 'go', py: 'python', rust: 'rust', kt_jvm: 'kotlin', ts: 'typescript', scala: 'scala' };

async function bazelRuleLanguage(service: ServiceContext): Promise<LanguageId | undefined> {
  const prefix = service.dir === '.' ? '' : `${service.dir}/`;
  const counts = new Map<LanguageId, number>();
  const buildFiles = service.scan.directories.filter((dir) => dir === service.dir || dir.startsWith(prefix)).slice(0, 200);
  for (const dir of buildFiles) {
    for (const name of ['BUILD', 'BUILD.bazel']) {
      const text = service.scan.has(dir, name) ? await service.scan.read(dir, name) : undefined;
      for (const match of text?.matchAll(/\b(cc|java|go|py|rust|kt_jvm|ts|scala)_(binary|library|test|image)\s*\(/g) ?? []) {
        const language = BAZEL_RULE_LANGUAGES[match[1]];
        counts.set(language, (counts.get(language) ?? 0) + 1);
      }
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** Bazel trees keep sources deep (`src/main/java/…`): the language with the most files anywhere below the service. */
function mostCommonLanguage(service: ServiceContext, languages: { language: LanguageId; extensions: string[] }[]): LanguageId | undefined {
  const prefix = service.dir === '.' ? '' : `${service.dir}/`;
  const counts = new Map<LanguageId, number>();
  for (const dir of service.scan.directories) {
    if (dir !== service.dir && !dir.startsWith(prefix)) continue;
    for (const name of service.scan.files.get(dir) ?? []) {
      const language = languages.find(({ extensions }) => extensions.some((extension) => name.endsWith(extension)))?.language;
      if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/**
 * C or C++ for CMake and Meson: the languages `project()` declares (`LANGUAGES C`, `'c'`), else
 * the sources. CMake's default (no LANGUAGES) enables both, so the sources decide.
 */
async function declaredOrSourceLanguage(service: ServiceContext, manifest: string, project: RegExp): Promise<LanguageId | undefined> {
  const call = ((await service.read(manifest)) ?? '').match(project)?.[1] ?? '';
  const tokens = new Set(call.split(/[\s,'"[\]]+/).map((token) => token.toLowerCase()));
  if (tokens.has('cxx') || tokens.has('cpp')) return 'cpp';
  if (tokens.has('c')) return 'c';
  return sourceLanguage(service, MAKE_LANGUAGES);
}

const makeOnly = (service: ServiceContext) => matchingRow(service) === undefined ? makeLanguage(service) : undefined;

const MAKE_LANGUAGE_DETECTORS: Language[] = MAKE_LANGUAGES.map(({ language }) => ({
  id: language,
  detect(service) {
    return makeOnly(service) === language ? found(language) : undefined;
  },
}));

const MAKE_BUILD: BuildSystem = {
  id: 'make',
  languages: MAKE_LANGUAGES.map(({ language }) => language),
  detect(service) {
    if (makeOnly(service) === undefined) return undefined;
    return found<BuildPlan>({ id: 'make', install: [], build: ['make'], cache: [] });
  },
};

const MAKE_RUNTIME: Runtime = {
  id: 'native',
  languages: MAKE_LANGUAGES.map(({ language }) => language),
  detect(_service, stack) {
    return stack.build.id === 'make' ? found({ name: 'native', version: { source: 'default' }, ports: [] }) : undefined;
  },
};

function rowMatches(service: ServiceContext, row: ManifestRow): boolean {
  if (!row.manifest.startsWith('*')) return service.has(row.manifest);
  const suffix = row.manifest.slice(1);
  return service.files().some((name) => name.endsWith(suffix));
}

/**
 * The first matching row: a directory with both `stack.yaml` and a `.cabal` file is a stack project.
 * Every row's language, build and runtime detector asks it of the same service: found once per service.
 */
function matchingRow(service: ServiceContext): ManifestRow | undefined {
  if (matchedRows.has(service)) return matchedRows.get(service);
  const row = ROWS.find((candidate) => rowMatches(service, candidate));
  matchedRows.set(service, row);
  return row;
}
const matchedRows = new WeakMap<ServiceContext, ManifestRow | undefined>();

function rowLanguage(row: ManifestRow): Language {
  return {
    id: row.language,
    detect(service) {
      if (matchingRow(service) !== row) return undefined;
      return row.languageOf ? row.languageOf(service).then((language) => found(language ?? row.language)) : found(row.language);
    },
  };
}

function rowBuild(row: ManifestRow): BuildSystem {
  return {
    id: row.build,
    languages: row.languages ?? [row.language],
    detect(service) {
      if (matchingRow(service) !== row) return undefined;
      return found<BuildPlan>({ id: row.build, install: row.install, build: row.buildCommands, cache: row.cache });
    },
  };
}

function rowRuntime(row: ManifestRow): Runtime {
  return {
    id: row.runtime,
    languages: row.languages ?? [row.language],
    async detect(service, stack) {
      if (stack.build.id !== row.build) return undefined;
      const version = (row.tools.length ? await versionFromFiles(service, [], row.tools) : undefined) ?? { source: 'default' };
      return found({ name: row.runtime, version, ports: [] });
    },
  };
}

/** Frameworks of the table's ecosystems, by a marker in the build files they read (most specific first). */
const TABLE_FRAMEWORKS: { build: BuildSystemId; files: string[]; rules: { id: FrameworkId; marker: RegExp; port: number }[] }[] = [
  {
    build: 'sbt',
    files: ['build.sbt', 'project/plugins.sbt'],
    rules: [
      { id: custom('play'), marker: /org\.playframework|com\.typesafe\.play|PlayScala|PlayJava/, port: 9000 },
      { id: custom('akka-http'), marker: /akka-http|pekko-http/, port: 8080 },
      { id: custom('http4s'), marker: /http4s/, port: 8080 },
    ],
  },
  ...(['lein', 'clojure-tools'] as const).map((build) => ({
    build,
    files: ['project.clj', 'deps.edn'],
    rules: [
      { id: custom('luminus'), marker: /luminus/, port: 3000 },
      { id: custom('pedestal'), marker: /io\.pedestal/, port: 8080 },
      { id: custom('compojure'), marker: /\bcompojure\b/, port: 3000 },
      { id: custom('ring'), marker: /\bring\/ring-/, port: 3000 },
    ],
  })),
  {
    build: 'swiftpm',
    files: ['Package.swift'],
    rules: [
      { id: custom('vapor'), marker: /vapor\/vapor/, port: 8080 },
      { id: custom('hummingbird'), marker: /hummingbird-project\/hummingbird/, port: 8080 },
      { id: custom('kitura'), marker: /Kitura/, port: 8080 },
    ],
  },
  {
    build: 'shards',
    files: ['shard.yml'],
    rules: [
      { id: custom('lucky'), marker: /luckyframework\/lucky\b/, port: 3000 },
      { id: custom('amber'), marker: /amberframework\/amber\b/, port: 3000 },
      { id: custom('kemal'), marker: /kemalcr\/kemal\b/, port: 3000 },
    ],
  },
  {
    build: 'dart-pub',
    files: ['pubspec.yaml'],
    rules: [
      { id: custom('dart-frog'), marker: /\bdart_frog\b/, port: 8080 },
      { id: custom('flutter'), marker: /sdk:\s*flutter/, port: 8080 },
    ],
  },
];

export const TABLE_FRAMEWORK_DETECTORS: Framework[] = TABLE_FRAMEWORKS.map(({ build, files, rules }) => ({
  id: custom(`${build}-frameworks`),
  languages: [...new Set(ROWS.filter((row) => row.build === build).map((row) => row.language))],
  async detect(service, stack) {
    if (stack.build.id !== build) return undefined;
    const texts = await Promise.all(files.map((file) => readNested(service, file)));
    const text = texts.filter(Boolean).join('\n');
    const rule = rules.find(({ marker }) => marker.test(text));
    return rule ? found<FrameworkPlan>({ id: rule.id, ports: [rule.port] }) : undefined;
  },
}));

/** `project/plugins.sbt` and other files one directory down. */
function readNested(service: ServiceContext, file: string): Promise<string | undefined> {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? service.read(file) : service.scan.read(joinPath(service.dir, file.slice(0, slash)), file.slice(slash + 1));
}

export const TABLE_LANGUAGES: Language[] = [...ROWS.map(rowLanguage), ...MAKE_LANGUAGE_DETECTORS];
export const TABLE_BUILD_SYSTEMS: BuildSystem[] = [...ROWS.map(rowBuild), MAKE_BUILD];
export const TABLE_RUNTIMES: Runtime[] = [...ROWS.map(rowRuntime), MAKE_RUNTIME];
