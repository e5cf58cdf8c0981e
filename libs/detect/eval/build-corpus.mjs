#!/usr/bin/env node
/*
 * Builds corpus.json, the detection evaluation corpus, from examples.yaml (the hand-written
 * labels) and local git snapshots of the public repositories it names.
 *
 *   node libs/detect/eval/build-corpus.mjs --mirror <dir>   # <dir>/<owner>+<name>/repo is a git dir
 *
 * What is kept of each example is what detection looks at, not the upstream's code: the file
 * names (sources become empty placeholders, a shebang line excepted), manifests regenerated from
 * the facts detection reads (names, dependency names and versions, scripts, engines, modules,
 * plugins), lock files as their one-line header, and version files. The source repository, path
 * and commit are recorded per example; the labels come from examples.yaml, never from Quarry.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import JSON5 from 'json5';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const mirror = args[args.indexOf('--mirror') + 1];
if (!mirror || args.indexOf('--mirror') < 0) {
  console.error('usage: build-corpus.mjs --mirror <dir of owner+name/repo git dirs>');
  process.exit(2);
}

const MAX_FILES = 80;
const MAX_DEPTH = 4;
const SKIPPED_DIRS = new Set([
  'node_modules', '.git', 'dist', 'target', '.next', '.nuxt', '.svelte-kit', 'coverage', '__pycache__', '.venv', 'venv',
  '.idea', '.vscode', '.cache', '.turbo', 'bower_components', '_build', 'deps', 'obj', '.gradle', 'storage', 'log', 'tmp',
]);
const BINARY = /\.(png|jpe?g|gif|ico|webp|avif|bmp|svg|woff2?|ttf|eot|otf|mp[34]|webm|wav|ogg|pdf|zip|gz|tgz|xz|bz2|7z|jar|war|class|so|dylib|dll|exe|o|a|pyc|wasm|db|sqlite3?|pkl|bin|ttc|psd|ai|sketch|mov)$/i;

/** `[language, build, framework]` or `{ expect: [...], start, services, path }`. */
function normaliseLabel(label) {
  const object = Array.isArray(label) ? { expect: label } : label;
  const [language, build_system, framework] = object.expect;
  return {
    ...(object.path ? { path: object.path } : {}),
    language,
    build_system,
    framework: framework ?? null,
    ...(object.start ? { start: object.start } : {}),
    ...(object.services ? { services: object.services } : {}),
  };
}

function selectFiles(listing) {
  const kept = listing.filter((file) => {
    const parts = file.split('/');
    if (parts.length > MAX_DEPTH + 1) return false;
    if (parts.slice(0, -1).some((dir) => SKIPPED_DIRS.has(dir))) return false;
    if (parts.slice(0, -1).join('/').startsWith('.yarn/cache')) return false;
    return !BINARY.test(file) || /bun\.lockb$/.test(file);
  });
  // Shallow files first (manifests live near the top), then by name for a stable choice.
  kept.sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  return kept.slice(0, MAX_FILES).sort();
}

// ── Reducers: what detection reads, regenerated; everything else an empty placeholder ──────────

function reduce(file, blob) {
  const name = path.posix.basename(file);
  const text = blob.toString('utf8');
  try {
    const reducer = REDUCERS[name] ?? (/^requirements.*\.txt$/.test(name) ? reduceRequirements : undefined) ?? Object.entries(SUFFIX_REDUCERS).find(([suffix]) => name.endsWith(suffix))?.[1];
    if (reducer) return reducer(text, name);
  } catch {
    return ''; // a manifest that does not parse upstream stays, as an empty file
  }
  if (VERSION_FILES.has(name)) return firstLine(text);
  const shebang = text.startsWith('#!') ? text.split('\n', 1)[0] : '';
  return shebang ? `${shebang}\n` : '';
}

const VERSION_FILES = new Set([
  '.nvmrc', '.node-version', '.python-version', '.ruby-version', '.java-version', '.go-version', '.php-version', '.bun-version',
  '.dvmrc', '.tool-versions', 'runtime.txt', 'rust-toolchain', '.sdkmanrc', '.swift-version', '.terraform-version', 'build.properties',
]);

const firstLine = (text) => `${text.split(/\r?\n/).filter((line) => line.trim()).slice(0, 5).join('\n')}\n`;
const json = (value) => `${JSON.stringify(value, null, 2)}\n`;
const pick = (object, keys) => Object.fromEntries(keys.filter((key) => object?.[key] !== undefined).map((key) => [key, object[key]]));
const lines = (text, pattern) => `${text.split(/\r?\n/).filter((line) => pattern.test(line)).join('\n')}\n`;

const PACKAGE_KEYS = ['name', 'version', 'private', 'type', 'main', 'module', 'bin', 'scripts', 'dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies', 'engines', 'packageManager', 'workspaces', 'volta'];

const REDUCERS = {
  'package.json': (text) => json(pick(JSON5.parse(text), PACKAGE_KEYS)),
  'package.json5': (text) => json(pick(JSON5.parse(text), PACKAGE_KEYS)),
  'deno.json': (text) => json(pick(JSON5.parse(text), ['name', 'version', 'tasks', 'imports', 'exports', 'workspace', 'nodeModulesDir'])),
  'deno.jsonc': (text) => json(pick(JSON5.parse(text), ['name', 'version', 'tasks', 'imports', 'exports', 'workspace', 'nodeModulesDir'])),
  'composer.json': (text) => json(pick(JSON5.parse(text), ['name', 'type', 'require', 'require-dev', 'scripts'])),
  'lerna.json': (text) => json(pick(JSON5.parse(text), ['packages', 'npmClient', 'useWorkspaces'])),
  'rush.json': (text) => json(pick(JSON5.parse(text), ['pnpmVersion', 'yarnVersion', 'npmVersion', 'projects'])),
  'nx.json': (text) => json(pick(JSON5.parse(text), ['workspaceLayout'])),
  'turbo.json': () => '{}\n',
  'tsconfig.json': () => '{}\n',
  'jsconfig.json': () => '{}\n',
  'angular.json': (text) => json({ projects: Object.fromEntries(Object.entries(JSON5.parse(text).projects ?? {}).map(([k, v]) => [k, pick(v, ['projectType', 'root'])])) }),
  'package-lock.json': (text) => json(pick(JSON5.parse(text), ['lockfileVersion'])),
  'npm-shrinkwrap.json': (text) => json(pick(JSON5.parse(text), ['lockfileVersion'])),
  'bun.lock': (text) => json(pick(JSON5.parse(text), ['lockfileVersion'])),
  'bun.lockb': () => '',
  'yarn.lock': (text) => (/^__metadata:/m.test(text) ? `__metadata:\n  version: ${text.match(/^\s+version:\s*(\S+)/m)?.[1] ?? '6'}\n` : '# yarn lockfile v1\n'),
  'pnpm-lock.yaml': (text) => `lockfileVersion: ${text.match(/^lockfileVersion:\s*(.+)$/m)?.[1] ?? "'9.0'"}\n`,
  'pnpm-workspace.yaml': (text) => json(pick(parseYaml(text), ['packages'])).replace(/^/, '# regenerated as JSON, which is YAML\n'),
  '.yarnrc.yml': (text) => lines(text, /^(nodeLinker|yarnPath|pnpMode)\s*:/),
  'go.mod': reduceGoMod,
  'go.work': (text) => lines(text, /^\s*(go\s|use\b|\)|\.\/|[\w.-]+\/?\s*$)/),
  'Cargo.toml': reduceCargo,
  'pyproject.toml': reducePyproject,
  'Pipfile': (text) => stringifyToml(pick(parseToml(text), ['packages', 'dev-packages', 'requires'])),
  'requirements.txt': reduceRequirements,
  'Gemfile': reduceGemfile,
  'gems.rb': reduceGemfile,
  'mix.exs': reduceMix,
  'pom.xml': reducePom,
  'build.gradle': (text) => reduceGradle(text, false),
  'build.gradle.kts': (text) => reduceGradle(text, true),
  'settings.gradle': (text) => lines(text, /^\s*(rootProject\.name|include)\b/),
  'settings.gradle.kts': (text) => lines(text, /^\s*(rootProject\.name|include)\b/),
  'build.sbt': (text) => lines(text, /^\s*(name\s*:=|scalaVersion|ThisBuild|libraryDependencies|enablePlugins|lazy val|\s*"[\w.-]+"\s*%%?)/),
  'plugins.sbt': (text) => lines(text, /addSbtPlugin/),
  'project.clj': reduceProjectClj,
  'deps.edn': (text) => `{:deps {${[...text.matchAll(/([\w.\-]+\/[\w.\-]+|[\w.\-]+)\s+\{:mvn\/version\s+"([^"]+)"\}/g)].map((m) => `${m[1]} {:mvn/version "${m[2]}"}`).join('\n        ')}}}\n`,
  'Package.swift': reducePackageSwift,
  'pubspec.yaml': (text) => json(pick(parseYaml(text), ['name', 'environment', 'dependencies', 'dev_dependencies', 'flutter'])).replace(/^/, '# regenerated as JSON, which is YAML\n'),
  'shard.yml': (text) => json(pick(parseYaml(text), ['name', 'version', 'dependencies', 'targets', 'crystal'])).replace(/^/, '# regenerated as JSON, which is YAML\n'),
  'environment.yml': (text) => json(pick(parseYaml(text), ['name', 'dependencies'])).replace(/^/, '# regenerated as JSON, which is YAML\n'),
  'environment.yaml': (text) => json(pick(parseYaml(text), ['name', 'dependencies'])).replace(/^/, '# regenerated as JSON, which is YAML\n'),
  'gleam.toml': (text) => stringifyToml(pick(parseToml(text), ['name', 'version', 'target', 'dependencies'])),
  'CMakeLists.txt': (text) => keepCalls(text, /^\s*(cmake_minimum_required|project|add_subdirectory|add_executable|add_library|enable_language|set\s*\(\s*CMAKE_(C|CXX)_STANDARD)\s*\(/i),
  'meson.build': (text) => keepCalls(text, /^\s*(project|subdir|executable|library|shared_library|static_library)\s*\(/),
  'Makefile': (text) => lines(text, /^([\w.\-]+\s*:(?!=)|obj-[ym]\s*[+:]?=|SUBDIRS\s*[+:]?=)/),
  'GNUmakefile': (text) => lines(text, /^([\w.\-]+\s*:(?!=)|obj-[ym]\s*[+:]?=|SUBDIRS\s*[+:]?=)/),
  'makefile': (text) => lines(text, /^([\w.\-]+\s*:(?!=)|obj-[ym]\s*[+:]?=|SUBDIRS\s*[+:]?=)/),
  'Kbuild': (text) => lines(text, /^(obj-[ym]\s*[+:]?=|subdir-[ym])/),
  'MODULE.bazel': (text) => keepCalls(text, /^\s*(module|bazel_dep)\s*\(/),
  'WORKSPACE': (text) => keepCalls(text, /^\s*workspace\s*\(/),
  'BUILD': reduceBuildFile,
  'BUILD.bazel': reduceBuildFile,
  'Procfile': (text) => lines(text, /^\w[\w-]*:/),
  'app.yaml': (text) => lines(text, /^(runtime|entrypoint)\s*:/),
  '.gitignore': (text) => lines(text, /^\/?[\w.-]+\/?\s*$/),
  'Dockerfile': (text) => lines(text, /^\s*(FROM|CMD|ENTRYPOINT|EXPOSE)\b/i),
};

const SUFFIX_REDUCERS = {
  '.csproj': reduceMsbuild,
  '.fsproj': reduceMsbuild,
  '.vbproj': reduceMsbuild,
  '.cabal': (text) => lines(text, /^(name|cabal-version|executable|library)\b/i),
  '.gemspec': () => '',
  '.sln': (text) => lines(text, /^Project\(/),
};

function reduceGoMod(text) {
  const out = [];
  let block = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (block) {
      if (line === ')') { out.push(')'); block = false; } else if (line) out.push(`\t${line.split(/\s+/).slice(0, 2).join(' ')}`);
      continue;
    }
    if (/^(module|go|toolchain)\s/.test(line)) out.push(line);
    else if (line === 'require (') { out.push(line); block = true; }
    else if (/^require\s+\S+\s+\S+/.test(line)) out.push(line.split(/\s+/).slice(0, 3).join(' '));
  }
  return `${out.join('\n')}\n`;
}

function simplifyDependencies(table) {
  if (!table || typeof table !== 'object') return undefined;
  return Object.fromEntries(Object.entries(table).map(([name, spec]) => [name, typeof spec === 'string' ? spec : pick(spec, ['version', 'path', 'workspace', 'features', 'optional'])]));
}

function reduceCargo(text) {
  const toml = parseToml(text);
  const out = {};
  if (toml.package) out.package = pick(toml.package, ['name', 'version', 'edition', 'rust-version', 'default-run']);
  if (toml.workspace) out.workspace = pick(toml.workspace, ['members', 'exclude', 'resolver']);
  if (Array.isArray(toml.bin)) out.bin = toml.bin.map((bin) => pick(bin, ['name', 'path']));
  if (toml.lib) out.lib = pick(toml.lib, ['name', 'path', 'crate-type']);
  for (const key of ['dependencies', 'dev-dependencies', 'build-dependencies']) {
    const deps = simplifyDependencies(toml[key]);
    if (deps) out[key] = deps;
  }
  return stringifyToml(out);
}

function reducePyproject(text) {
  const toml = parseToml(text);
  const out = {};
  if (toml.project) out.project = pick(toml.project, ['name', 'version', 'requires-python', 'dependencies', 'optional-dependencies', 'scripts']);
  if (toml['build-system']) out['build-system'] = pick(toml['build-system'], ['requires', 'build-backend']);
  if (toml['dependency-groups']) out['dependency-groups'] = toml['dependency-groups'];
  const tool = toml.tool ?? {};
  const tools = {};
  if (tool.poetry) tools.poetry = pick(tool.poetry, ['name', 'version', 'dependencies', 'dev-dependencies', 'group', 'scripts', 'packages', 'package-mode']);
  if (tool.uv) tools.uv = pick(tool.uv, ['workspace', 'sources', 'dev-dependencies', 'package']);
  if (tool.pdm) tools.pdm = pick(tool.pdm, ['distribution', 'dev-dependencies']);
  if (tool.hatch) tools.hatch = {};
  if (tool.setuptools) tools.setuptools = {};
  if (tool.flit) tools.flit = {};
  if (Object.keys(tools).length) out.tool = tools;
  return stringifyToml(out);
}

function reduceRequirements(text) {
  return `${text.split(/\r?\n/).map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line && !line.startsWith('#')).join('\n')}\n`;
}

function reduceGemfile(text) {
  const out = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const gem = line.match(/^gem\s+["']([^"']+)["'](\s*,\s*["']([^"']+)["'])?/);
    if (gem) out.push(`gem "${gem[1]}"${gem[3] ? `, "${gem[3]}"` : ''}`);
    else if (/^(source|ruby|gemspec)\b/.test(line)) out.push(line.replace(/\s+#.*$/, ''));
  }
  return `${out.join('\n')}\n`;
}

function reduceMix(text) {
  const app = text.match(/app:\s*:(\w+)/)?.[1] ?? 'app';
  const elixir = text.match(/elixir:\s*"([^"]+)"/)?.[1];
  const module = text.match(/defmodule\s+([\w.]+)/)?.[1] ?? 'App.MixProject';
  const deps = [...text.matchAll(/\{\s*:(\w+)\s*,\s*("[^"]*")?/g)].map((match) => `{:${match[1]}${match[2] ? `, ${match[2]}` : ''}}`);
  return [
    `defmodule ${module} do`,
    '  use Mix.Project',
    `  def project, do: [app: :${app}, ${elixir ? `elixir: "${elixir}", ` : ''}deps: deps()]`,
    `  defp deps, do: [${[...new Set(deps)].join(', ')}]`,
    'end',
    '',
  ].join('\n');
}

const tag = (xml, name) => xml.match(new RegExp(`<${name}>\\s*([^<]*?)\\s*</${name}>`))?.[1];

function reducePom(text) {
  const xml = text.replace(/<!--[\s\S]*?-->/g, '');
  const parent = xml.match(/<parent>([\s\S]*?)<\/parent>/)?.[1];
  const own = xml.replace(/<parent>[\s\S]*?<\/parent>|<dependencies>[\s\S]*?<\/dependencies>|<build>[\s\S]*?<\/build>|<dependencyManagement>[\s\S]*?<\/dependencyManagement>|<profiles>[\s\S]*?<\/profiles>/g, '');
  const coordinates = (block) => `<groupId>${tag(block, 'groupId') ?? ''}</groupId><artifactId>${tag(block, 'artifactId') ?? ''}</artifactId>`;
  const properties = own.match(/<properties>([\s\S]*?)<\/properties>/)?.[1] ?? '';
  const keptProperties = [...properties.matchAll(/<((?:java|maven\.compiler|kotlin|quarkus|micronaut|spring-boot)[\w.-]*)>([^<]*)<\/\1>/g)].map((m) => `    <${m[1]}>${m[2]}</${m[1]}>`);
  const deps = [...xml.matchAll(/<dependency>([\s\S]*?)<\/dependency>/g)].map((m) => `    <dependency>${coordinates(m[1])}</dependency>`);
  const plugins = [...xml.matchAll(/<plugin>([\s\S]*?)<\/plugin>/g)].map((m) => `      <plugin>${coordinates(m[1])}</plugin>`);
  const modules = [...own.matchAll(/<module>\s*([^<\s]+)\s*<\/module>/g)].map((m) => `    <module>${m[1]}</module>`);
  return [
    '<project>',
    parent ? `  <parent>${coordinates(parent)}<version>${tag(parent, 'version') ?? ''}</version></parent>` : '',
    `  <groupId>${tag(own, 'groupId') ?? ''}</groupId>`,
    `  <artifactId>${tag(own, 'artifactId') ?? ''}</artifactId>`,
    tag(own, 'packaging') ? `  <packaging>${tag(own, 'packaging')}</packaging>` : '',
    keptProperties.length ? `  <properties>\n${keptProperties.join('\n')}\n  </properties>` : '',
    modules.length ? `  <modules>\n${modules.join('\n')}\n  </modules>` : '',
    deps.length ? `  <dependencies>\n${deps.join('\n')}\n  </dependencies>` : '',
    plugins.length ? `  <build><plugins>\n${plugins.join('\n')}\n  </plugins></build>` : '',
    '</project>',
    '',
  ].filter((line) => line !== '').join('\n');
}

function reduceGradle(text, kotlin) {
  const q = (value) => (kotlin ? `"${value}"` : `'${value}'`);
  const plugins = new Set();
  for (const m of text.matchAll(/\bid\s*\(?\s*["']([\w.\-]+)["']\s*\)?(\s*version\s*\(?\s*["']([^"']+)["'])?/g)) plugins.add(kotlin ? `id("${m[1]}")${m[3] ? ` version "${m[3]}"` : ''}` : `id '${m[1]}'${m[3] ? ` version '${m[3]}'` : ''}`);
  for (const m of text.matchAll(/\bkotlin\s*\(\s*"([\w.\-]+)"\s*\)(\s*version\s*"([^"]+)")?/g)) plugins.add(`kotlin("${m[1]}")${m[3] ? ` version "${m[3]}"` : ''}`);
  for (const m of text.matchAll(/^\s*(java|application|war|`java-library`|groovy|scala)\s*$/gm)) plugins.add(m[1]);
  const applied = [...text.matchAll(/apply\s+plugin\s*:\s*["']([\w.\-]+)["']/g)].map((m) => `apply plugin: ${q(m[1])}`);
  const deps = [...text.matchAll(/^\s*(implementation|api|compile|runtimeOnly|compileOnly|testImplementation|developmentOnly|annotationProcessor|kapt)\s*\(?\s*(?:platform\s*\(\s*)?["']([\w.\-]+:[\w.\-]+(?::[^"']*)?)["']/gm)].map((m) => `    ${m[1]}${kotlin ? `("${m[2]}")` : ` '${m[2]}'`}`);
  const settings = text.split(/\r?\n/).filter((line) => /(sourceCompatibility|targetCompatibility|JavaVersion\.VERSION_|jvmToolchain|JavaLanguageVersion\.of|mainClass|mainClassName)/.test(line)).map((line) => line.trim());
  return [
    plugins.size ? `plugins {\n${[...plugins].map((p) => `    ${p}`).join('\n')}\n}` : '',
    ...applied,
    deps.length ? `dependencies {\n${deps.join('\n')}\n}` : '',
    ...settings,
    '',
  ].filter((line, index, all) => line !== '' || index === all.length - 1).join('\n');
}

function reduceProjectClj(text) {
  const head = text.match(/\(defproject\s+([\w.\-/]+)\s+"([^"]*)"/);
  const deps = [...text.matchAll(/\[([\w.\-]+(?:\/[\w.\-]+)?)\s+"([^"]+)"/g)].map((m) => `[${m[1]} "${m[2]}"]`);
  const main = text.match(/:main\s+([\w.\-^:]+)/)?.[1];
  const uberjar = text.match(/:uberjar-name\s+"([^"]+)"/)?.[1];
  return `(defproject ${head?.[1] ?? 'app'} "${head?.[2] ?? '0.1.0'}"\n  :dependencies [${deps.join('\n                 ')}]${main ? `\n  :main ${main}` : ''}${uberjar ? `\n  :uberjar-name "${uberjar}"` : ''})\n`;
}

function reducePackageSwift(text) {
  const tools = text.match(/^\/\/\s*swift-tools-version:?\s*([\d.]+)/m)?.[1] ?? '5.9';
  const name = text.match(/name:\s*"([^"]+)"/)?.[1] ?? 'App';
  const urls = [...text.matchAll(/\.package\(\s*url:\s*"([^"]+)"/g)].map((m) => `        .package(url: "${m[1]}", from: "1.0.0"),`);
  return `// swift-tools-version:${tools}\nimport PackageDescription\n\nlet package = Package(\n    name: "${name}",\n    dependencies: [\n${urls.join('\n')}\n    ]\n)\n`;
}

function reduceMsbuild(text) {
  const sdk = text.match(/<Project\s+Sdk="([^"]+)"/)?.[1];
  const props = ['TargetFramework', 'TargetFrameworks', 'OutputType', 'AssemblyName', 'RootNamespace'].map((name) => [name, tag(text, name)]).filter(([, value]) => value);
  const refs = [...text.matchAll(/<(PackageReference|ProjectReference|FrameworkReference)\s+Include="([^"]+)"(?:\s+Version="([^"]+)")?/g)].map((m) => `    <${m[1]} Include="${m[2]}"${m[3] ? ` Version="${m[3]}"` : ''} />`);
  return [
    sdk ? `<Project Sdk="${sdk}">` : '<Project>',
    `  <PropertyGroup>\n${props.map(([name, value]) => `    <${name}>${value}</${name}>`).join('\n')}\n  </PropertyGroup>`,
    refs.length ? `  <ItemGroup>\n${refs.join('\n')}\n  </ItemGroup>` : '',
    '</Project>',
    '',
  ].filter((line) => line !== '').join('\n');
}

function reduceBuildFile(text) {
  return lines(text, /^\s*(\w+\(|name\s*=)/);
}

/** Keeps whole calls (`project(\n  foo\n  LANGUAGES CXX)`) whose first line matches. */
function keepCalls(text, start) {
  const out = [];
  const all = text.split(/\r?\n/);
  for (let i = 0; i < all.length; i++) {
    if (!start.test(all[i])) continue;
    let call = all[i];
    let depth = (call.match(/\(/g) ?? []).length - (call.match(/\)/g) ?? []).length;
    while (depth > 0 && i + 1 < all.length && out.length < 500) {
      const next = all[++i];
      call += `\n${next}`;
      depth += (next.match(/\(/g) ?? []).length - (next.match(/\)/g) ?? []).length;
    }
    out.push(call);
  }
  return `${out.join('\n')}\n`;
}

// Last, so every reducer above is initialised before the first example is read.
const labels = parseYaml(readFileSync(path.join(here, 'examples.yaml'), 'utf8'));
const corpus = [];
for (const group of labels.sources) {
  const gitDir = path.join(mirror, group.repo.replace('/', '+'), 'repo');
  if (!existsSync(gitDir)) throw new Error(`no snapshot of ${group.repo} under ${mirror}`);
  const git = (...argv) => execFileSync('git', ['--git-dir', gitDir, ...argv], { encoding: 'buffer', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  const commit = git('rev-parse', 'HEAD').toString().trim();
  for (const [relative, label] of Object.entries(group.examples)) {
    const examplePath = [group.base, relative].filter((part) => part && part !== '.').join('/') || '.';
    const expect = normaliseLabel(label);
    // Blobs only: submodules (gitlinks) have no content here.
    const listing = git('ls-tree', '-r', '-z', `${commit}:${examplePath === '.' ? '' : examplePath}`)
      .toString()
      .split('\0')
      .filter((entry) => entry.includes(' blob '))
      .map((entry) => entry.slice(entry.indexOf('\t') + 1));
    const files = {};
    const only = label.only ? new RegExp(label.only) : undefined;
    for (const file of selectFiles(only ? listing.filter((name) => only.test(name)) : listing)) {
      // Files of 4 MiB and more are absent from snapshots; none of them is a manifest.
      let blob;
      try {
        blob = git('show', `${commit}:${examplePath === '.' ? file : `${examplePath}/${file}`}`);
      } catch {
        blob = Buffer.alloc(0);
      }
      files[file] = reduce(file, blob);
    }
    corpus.push({ id: `${group.repo}:${examplePath}`, source: { repo: group.repo, path: examplePath, commit }, expect, files });
  }
}
corpus.sort((a, b) => (a.id < b.id ? -1 : 1));
writeFileSync(path.join(here, 'corpus.json'), `${JSON.stringify({ generatedBy: 'libs/detect/eval/build-corpus.mjs', examples: corpus }, null, 1)}\n`);
console.log(`${corpus.length} examples, ${corpus.reduce((n, e) => n + Object.keys(e.files).length, 0)} files`);
