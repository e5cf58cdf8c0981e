import type { ImportEntry } from '@quarry/code-index';
import type { CodeGraph, GraphFile } from '../graph/code-graph';
import { familyOf } from './language-family';
import { EMPTY_MODULE_CONFIG, joinPath, type ModuleConfig } from './module-config';

const TS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
const JS_EMITTED = /\.(m|c)?jsx?$/;

/**
 * Import specifiers to the files they name, per language, as the language's own rules say where
 * the tree lets us know (relative paths, TypeScript `paths`, Python packages, Go import paths,
 * Java packages, Rust `crate::`/`self::`/`super::` paths, C include directories). A specifier of
 * a package outside the tree resolves to no file: its names are not the repository's.
 */
export class ModuleResolver {
  private readonly memo = new Map<string, number[]>();
  private byBasename?: Map<string, number[]>;
  private byDirectory?: Map<string, number[]>;
  private directoriesByName?: Map<string, string[]>;
  private javaPackages?: Map<string, number[]>;
  private rustRoots = new Map<string, string | null>();

  constructor(
    private readonly graph: CodeGraph,
    private readonly config: ModuleConfig = EMPTY_MODULE_CONFIG,
  ) {}

  /** The files an import entry of `file` names (empty: outside the tree, or not found). */
  resolve(file: GraphFile, entry: ImportEntry): number[] {
    const family = familyOf(file.language);
    if (entry.module === '' && family !== 'java' && family !== 'rust') return [file.id];
    const key = `${family}\0${family === 'go' || family === 'java' ? '' : file.path}\0${entry.module}\0${entry.system ? 1 : 0}`;
    let found = this.memo.get(key);
    if (found === undefined) {
      found = this.compute(family, file, entry);
      this.memo.set(key, found);
    }
    return found;
  }

  /** The files of a module path written in `file`'s language (Python `a.b`, Rust `crate::a`): for names reached through a module. */
  resolveModule(file: GraphFile, module: string): number[] {
    return this.resolve(file, { line: 0, module, names: [] });
  }

  private compute(family: string, file: GraphFile, entry: ImportEntry): number[] {
    switch (family) {
      case 'typescript':
        return this.typescript(file, entry.module);
      case 'python':
        return this.python(file, entry.module);
      case 'go':
        return this.go(entry.module);
      case 'java':
        return this.java(entry.module);
      case 'rust':
        return this.rust(file, entry.module);
      case 'c':
        return this.include(file, entry.module, entry.system === true);
      default:
        return [];
    }
  }

  // ── TypeScript / JavaScript ──────────────────────────────────────────────────────────────

  private typescript(file: GraphFile, module: string): number[] {
    if (module.startsWith('.')) return this.typescriptPath(joinPath(file.directory, module));
    for (const { baseDirectory, patterns } of this.config.typescriptPaths) {
      for (const pattern of patterns) {
        let captured: string | undefined;
        if (!pattern.wildcard) captured = module === pattern.prefix ? '' : undefined;
        else if (module.startsWith(pattern.prefix) && module.endsWith(pattern.suffix) && module.length >= pattern.prefix.length + pattern.suffix.length) {
          captured = module.slice(pattern.prefix.length, module.length - pattern.suffix.length);
        }
        if (captured === undefined) continue;
        for (const target of pattern.targets) {
          const found = this.typescriptPath(joinPath(baseDirectory, target.replace('*', captured)));
          if (found.length > 0) return found;
        }
      }
    }
    return this.workspacePackage(module);
  }

  /** A path with the extension TypeScript would add, or the directory's index. */
  private typescriptPath(base: string): number[] {
    const exact = this.graph.file(base);
    if (exact !== undefined && familyOf(exact.language) === 'typescript') return [exact.id];
    const stem = JS_EMITTED.test(base) ? base.replace(JS_EMITTED, '') : base;
    for (const candidate of [stem, base]) {
      for (const extension of TS_EXTENSIONS) {
        const found = this.graph.file(candidate + extension);
        if (found !== undefined) return [found.id];
      }
    }
    for (const extension of TS_EXTENSIONS) {
      const found = this.graph.file(`${base}/index${extension}`);
      if (found !== undefined) return [found.id];
    }
    return [];
  }

  /**
   * A bare specifier with no `paths` rule: a package of a monorepo's workspace (`@scope/name/sub`
   * → a directory `name` with `sub` or `src/sub`, or its index), as npm workspaces link them.
   */
  private workspacePackage(module: string): number[] {
    const parts = module.split('/');
    const name = module.startsWith('@') ? parts[1] : parts[0];
    const rest = parts.slice(module.startsWith('@') ? 2 : 1).join('/');
    if (name === undefined) return [];
    for (const directory of this.directoriesNamed(name)) {
      if (directory.includes('node_modules')) continue;
      for (const prefix of ['', 'src/', 'lib/']) {
        const found = this.typescriptPath(joinPath(directory, prefix + (rest === '' ? 'index' : rest)));
        if (found.length > 0) return found;
      }
    }
    return [];
  }

  // ── Python ───────────────────────────────────────────────────────────────────────────────

  private python(file: GraphFile, module: string): number[] {
    const dots = /^\.*/.exec(module)![0].length;
    const parts = module.slice(dots).split('.').filter((part) => part !== '');
    if (dots > 0) {
      let directory = file.directory;
      for (let level = 1; level < dots; level++) directory = joinPath(directory, '..');
      return this.pythonModuleAt(joinPath(directory, parts.join('/')), parts.length === 0);
    }
    const tail = parts.join('/');
    const found: number[] = [];
    for (const candidate of [`${tail}.py`, `${tail}/__init__.py`, `${tail}.pyi`]) {
      const basename = candidate.slice(candidate.lastIndexOf('/') + 1);
      for (const id of this.basenames().get(basename) ?? []) {
        const path = this.graph.files[id].path;
        if (path !== candidate && !path.endsWith(`/${candidate}`)) continue;
        // Only from a source root (a directory that is not itself a package): `import json` inside
        // `flask/json/provider.py` is the standard library's, not `flask/json/__init__.py`.
        const root = path.slice(0, path.length - candidate.length - 1);
        if (root !== '' && this.graph.file(`${root}/__init__.py`) !== undefined) continue;
        found.push(id);
      }
      if (found.length > 0) break;
    }
    // The shortest source root wins (`src/flask/app.py` over `tests/…/flask/app.py`).
    return found.sort((a, b) => this.graph.files[a].path.length - this.graph.files[b].path.length).slice(0, 1);
  }

  private pythonModuleAt(base: string, packageOnly: boolean): number[] {
    const candidates = packageOnly ? [`${base}/__init__.py`] : [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`];
    for (const candidate of candidates) {
      const found = this.graph.file(candidate.replace(/^\//, ''));
      if (found !== undefined) return [found.id];
    }
    return [];
  }

  // ── Go ───────────────────────────────────────────────────────────────────────────────────

  private go(module: string): number[] {
    for (const { directory, module: root } of this.config.goModules) {
      if (module === root) return this.goFiles(directory);
      if (module.startsWith(`${root}/`)) return this.goFiles(joinPath(directory, module.slice(root.length + 1)));
    }
    // No go.mod: the directory whose path is the longest tail of the import path.
    const segments = module.split('/');
    for (let start = 0; start < segments.length; start++) {
      const found = this.goFiles(segments.slice(start).join('/'));
      if (found.length > 0) return found;
    }
    return [];
  }

  private goFiles(directory: string): number[] {
    return (this.directories().get(directory) ?? []).filter((id) => this.graph.files[id].language === 'Go');
  }

  // ── Java ─────────────────────────────────────────────────────────────────────────────────

  /** A package (`a.b`: its files) or a class (`a.b.C`: the file defining it). */
  private java(module: string): number[] {
    const packages = this.packages();
    const files = packages.get(module);
    if (files !== undefined) return files;
    const dot = module.lastIndexOf('.');
    if (dot === -1) return [];
    const className = module.slice(dot + 1);
    return (packages.get(module.slice(0, dot)) ?? []).filter((id) => this.graph.files[id].definitions.some((definition) => definition.name === className && definition.container === undefined));
  }

  // ── Rust ─────────────────────────────────────────────────────────────────────────────────

  /**
   * `crate::a::b` from the crate root, `self::`/`super::` from the file's module, `a::b` from the
   * crate root when `a` is one of its modules (else another crate). A path whose tail names no
   * file stops at the last module file found: the rest are items (or inline modules) inside it.
   */
  private rust(file: GraphFile, module: string): number[] {
    const segments = module.split('::').filter((segment) => segment !== '');
    let directory: string;
    let current: number | undefined;
    let index = 0;
    const relative = segments[0] === 'self' || segments[0] === 'super';
    if (relative) {
      directory = this.rustModuleDirectory(file);
      current = file.id;
      for (; index < segments.length && (segments[index] === 'self' || segments[index] === 'super'); index++) {
        if (segments[index] === 'super') {
          directory = joinPath(directory, '..');
          current = this.rustModuleFileOf(directory);
        }
      }
    } else {
      const root = this.rustRoot(file);
      if (root === undefined) return [];
      directory = root;
      current = this.rustRootFile(root);
      if (segments[0] === 'crate') index = 1;
    }
    const external = !relative && segments[0] !== 'crate';
    for (; index < segments.length; index++) {
      const segment = segments[index];
      const next = this.graph.file(joinPath(directory, `${segment}.rs`)) ?? this.graph.file(joinPath(directory, `${segment}/mod.rs`));
      if (next === undefined) break;
      current = next.id;
      directory = joinPath(directory, segment);
    }
    if (external && index === 0) return [];
    return current === undefined ? [] : [current];
  }

  /** The directory of the crate root (`lib.rs`/`main.rs`) above a file. */
  private rustRoot(file: GraphFile): string | undefined {
    let directory = file.directory;
    for (;;) {
      const cached = this.rustRoots.get(directory);
      if (cached !== undefined) return cached ?? undefined;
      if (this.graph.file(joinPath(directory, 'lib.rs')) || this.graph.file(joinPath(directory, 'main.rs'))) {
        this.rustRoots.set(file.directory, directory);
        return directory;
      }
      if (directory === '') {
        this.rustRoots.set(file.directory, null);
        return undefined;
      }
      directory = joinPath(directory, '..');
    }
  }

  private rustRootFile(directory: string): number | undefined {
    return (this.graph.file(joinPath(directory, 'lib.rs')) ?? this.graph.file(joinPath(directory, 'main.rs')))?.id;
  }

  /** Where a file's child modules live: beside `mod.rs`/`lib.rs`/`main.rs`, else in a directory named after the file. */
  private rustModuleDirectory(file: GraphFile): string {
    const base = file.path.slice(file.path.lastIndexOf('/') + 1);
    return ['mod.rs', 'lib.rs', 'main.rs'].includes(base) ? file.directory : joinPath(file.directory, base.replace(/\.rs$/, ''));
  }

  private rustModuleFileOf(directory: string): number | undefined {
    return (this.graph.file(joinPath(directory, 'mod.rs')) ?? this.graph.file(`${directory}.rs`) ?? this.graph.file(joinPath(directory, 'lib.rs')))?.id;
  }

  // ── C / C++ ──────────────────────────────────────────────────────────────────────────────

  private include(file: GraphFile, module: string, system: boolean): number[] {
    if (!system) {
      const beside = this.graph.file(joinPath(file.directory, module));
      if (beside !== undefined) return [beside.id];
    }
    const basename = module.slice(module.lastIndexOf('/') + 1);
    const matches = (this.basenames().get(basename) ?? []).filter((id) => {
      const path = this.graph.files[id].path;
      return path === module || path.endsWith(`/${module}`);
    });
    if (matches.length <= 1) return matches;
    // Several: an `include/` directory first, then the one nearest the including file.
    const score = (id: number) => {
      const path = this.graph.files[id].path;
      const prefix = path.slice(0, path.length - module.length);
      return (prefix.endsWith('include/') ? 0 : 1000) + commonPrefixPenalty(prefix, file.directory);
    };
    return matches.sort((a, b) => score(a) - score(b)).slice(0, 1);
  }

  // ── Path indexes, built on first use ─────────────────────────────────────────────────────

  private basenames(): Map<string, number[]> {
    if (this.byBasename === undefined) {
      this.byBasename = new Map();
      for (const file of this.graph.files) push(this.byBasename, file.path.slice(file.path.lastIndexOf('/') + 1), file.id);
    }
    return this.byBasename;
  }

  private directories(): Map<string, number[]> {
    if (this.byDirectory === undefined) {
      this.byDirectory = new Map();
      for (const file of this.graph.files) push(this.byDirectory, file.directory, file.id);
    }
    return this.byDirectory;
  }

  private directoriesNamed(name: string): string[] {
    if (this.directoriesByName === undefined) {
      this.directoriesByName = new Map();
      for (const directory of this.directories().keys()) {
        const parts = directory.split('/');
        for (let depth = 1; depth <= parts.length; depth++) {
          const prefix = parts.slice(0, depth).join('/');
          const list = this.directoriesByName.get(parts[depth - 1]);
          if (list === undefined) this.directoriesByName.set(parts[depth - 1], [prefix]);
          else if (!list.includes(prefix)) list.push(prefix);
        }
      }
    }
    return this.directoriesByName.get(name) ?? [];
  }

  private packages(): Map<string, number[]> {
    if (this.javaPackages === undefined) {
      this.javaPackages = new Map();
      for (const file of this.graph.files) if (file.language === 'Java') push(this.javaPackages, file.package ?? '', file.id);
    }
    return this.javaPackages;
  }
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** How far apart two directories are: 0 when one contains the other's path entirely. */
function commonPrefixPenalty(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  let common = 0;
  while (common < left.length && common < right.length && left[common] === right[common]) common++;
  return left.length + right.length - 2 * common;
}
