import { readdir as readdirCallback, readFileSync } from 'node:fs';
import * as path from 'node:path';
import JSON5 from 'json5';
import { parse as parseYaml } from 'yaml';
import { parseToml, type TomlTable } from './toml';

/*
 * Phase 1 — Scan. A bounded look at the repository: directories down to MAX_DEPTH, never into
 * dependency, build-output or VCS trees (PRUNED), nor into directories the root `.gitignore`
 * names. Detection needs manifests, which live near the top, so the bound keeps a 1,000-package
 * monorepo cheap. File contents are read lazily and cached: a manifest read by three detectors
 * costs one read.
 */

/** Directory names never entered: dependencies, vendored code, build output, VCS and tool caches. */
export const PRUNED_DIRECTORIES = new Set([
  'node_modules', 'vendor', 'bower_components', 'jspm_packages', '.git', '.hg', '.svn', '.venv', 'venv',
  '__pycache__', '.tox', '.mypy_cache', '.pytest_cache', 'target', 'dist', 'build', 'out', '.next', '.nuxt',
  '.svelte-kit', '.output', '.turbo', '.cache', '.gradle', '.idea', '.vscode', 'coverage', '.yarn', '_build',
  'deps', 'bin', 'obj', 'Pods', '.dart_tool', '.terraform',
]);
export const MAX_DEPTH = 6;
/** Directories read at most; beyond it the scan stops early and says so in `truncated`. */
export const MAX_DIRECTORIES = 20_000;

export interface RepoScan {
  /** Absolute root. */
  readonly root: string;
  /** Root-relative POSIX directory ('.' for the root) → the file names directly inside it. */
  readonly files: ReadonlyMap<string, readonly string[]>;
  /** Every directory seen, root-relative, '.' for the root. */
  readonly directories: readonly string[];
  readonly truncated: boolean;
  has(dir: string, name: string): boolean;
  /** The file's text, or undefined when missing or unreadable. */
  read(dir: string, name: string): Promise<string | undefined>;
  json<T = unknown>(dir: string, name: string): Promise<T | undefined>;
  toml(dir: string, name: string): Promise<TomlTable | undefined>;
  yaml<T = unknown>(dir: string, name: string): Promise<T | undefined>;
  /**
   * Manifests in `dir` that exist but could not be read or parsed so far, as warnings
   * ("apps/web/package.json is not valid JSON: …"). Parses are lazy: ask after detection.
   */
  problems(dir: string): string[];
}

/**
 * Where detection reads a repository: a directory on disk (the default), or any snapshot of
 * @quarry/snapshot (a git commit in the worker's cache) — the same directories and files either way.
 */
export interface RepoReader {
  /** Names the repository: its basename is the project name of a service at the root. */
  readonly root: string;
  /** Entries of a root-relative directory ('.' for the root); rejects when it cannot be read. */
  readDirectory(relative: string): Promise<readonly DirectoryEntry[]>;
  /** A root-relative file's text, or undefined when it is missing, unreadable or over `maxBytes`. */
  readText(relative: string, maxBytes: number): Promise<string | undefined>;
}

export interface DirectoryEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

/** A directory on this machine's disk. */
export function diskReader(root: string): RepoReader {
  const absolute = path.resolve(root);
  return {
    root: absolute,
    readDirectory: (relative) => readDirectory(relative === '.' ? absolute : `${absolute}/${relative}`),
    readText: async (relative, maxBytes) => readManifest(path.join(absolute, relative), maxBytes),
  };
}

/** Phase 1 of detection: the directories near the top and their file names, manifests read on demand (see above). */
export async function readManifestTree(rootOrReader: string | RepoReader, signal?: AbortSignal): Promise<RepoScan> {
  const reader = typeof rootOrReader === 'string' ? diskReader(rootOrReader) : rootOrReader;
  const files = new Map<string, string[]>();
  const ignored = await rootIgnoredNames(reader);
  let queue = ['.'];
  let truncated = false;
  for (let depth = 0; queue.length > 0 && depth <= MAX_DEPTH; depth++) {
    signal?.throwIfAborted();
    if (files.size + queue.length > MAX_DIRECTORIES) {
      truncated = true;
      queue = queue.slice(0, Math.max(0, MAX_DIRECTORIES - files.size));
    }
    const next = await Promise.all(queue.map((dir) => readLevel(reader, dir, files, ignored)));
    queue = depth < MAX_DEPTH ? next.flat() : [];
  }
  return new CachedScan(reader, files, truncated);
}

async function readLevel(reader: RepoReader, dir: string, files: Map<string, string[]>, ignored: Set<string>): Promise<string[]> {
  const names: string[] = [];
  const children: string[] = [];
  try {
    for (const entry of await reader.readDirectory(dir)) {
      if (entry.isFile()) names.push(entry.name);
      else if (entry.isDirectory() && !PRUNED_DIRECTORIES.has(entry.name) && !ignored.has(entry.name)) {
        children.push(joinPath(dir, entry.name));
      }
    }
  } catch (error) {
    if (dir === '.') throw error;
    return [];
  }
  files.set(dir, names.sort());
  return children;
}

/**
 * Plain directory names from the root `.gitignore` (`name`, `name/`, `/name`). Globs and
 * negations are left to the full walker in @quarry/workspace: here they would only ever prune
 * less, never wrongly more.
 */
async function rootIgnoredNames(reader: RepoReader): Promise<Set<string>> {
  const text = (await reader.readText('.gitignore', MAX_MANIFEST_BYTES).catch(() => undefined)) ?? '';
  const names = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^\//, '').replace(/\/$/, '');
    if (line && !line.startsWith('#') && !line.startsWith('!') && /^[\w.-]+$/.test(line)) names.add(line);
  }
  return names;
}

/** The callback API: fs/promises' readdir costs a fifth more per directory (measured on a 2,000-directory monorepo). */
function readDirectory(directory: string): Promise<readonly DirectoryEntry[]> {
  return new Promise((resolve, reject) => {
    readdirCallback(directory, { withFileTypes: true }, (error, entries) => (error ? reject(error) : resolve(entries)));
  });
}

export function joinPath(dir: string, name: string): string {
  return dir === '.' ? name : `${dir}/${name}`;
}

export function parentPath(dir: string): string {
  const slash = dir.lastIndexOf('/');
  return dir === '.' ? '.' : slash < 0 ? '.' : dir.slice(0, slash);
}

class CachedScan implements RepoScan {
  private readonly texts = new Map<string, Promise<string | undefined>>();
  /** Parsed manifests by format and path: every detector asks for package.json, one parse serves all. */
  private readonly parsed = new Map<string, Promise<unknown>>();
  readonly directories: readonly string[];
  readonly root: string;

  constructor(
    private readonly reader: RepoReader,
    readonly files: ReadonlyMap<string, readonly string[]>,
    readonly truncated: boolean,
  ) {
    this.root = reader.root;
    this.directories = [...files.keys()].sort();
  }

  private readonly nameSets = new Map<string, ReadonlySet<string>>();

  has(dir: string, name: string): boolean {
    let names = this.nameSets.get(dir);
    if (!names) {
      names = new Set(this.files.get(dir));
      this.nameSets.set(dir, names);
    }
    return names.has(name);
  }

  read(dir: string, name: string): Promise<string | undefined> {
    const key = joinPath(dir, name);
    let text = this.texts.get(key);
    if (!text) {
      text = this.has(dir, name) ? this.reader.readText(key, MAX_MANIFEST_BYTES).catch(() => undefined) : Promise.resolve(undefined);
      this.texts.set(key, text);
    }
    return text;
  }

  /** JSON, and its relatives manifests use: comments (deno.jsonc, tsconfig) and JSON5 (package.json5). */
  json<T>(dir: string, name: string): Promise<T | undefined> {
    return this.parseOnce('json', dir, name, (raw) => {
      try {
        return JSON.parse(raw) as T;
      } catch (error) {
        try {
          return JSON5.parse(raw) as T;
        } catch {
          throw error;
        }
      }
    });
  }

  toml(dir: string, name: string): Promise<TomlTable | undefined> {
    return this.parseOnce('toml', dir, name, parseToml);
  }

  yaml<T>(dir: string, name: string): Promise<T | undefined> {
    return this.parseOnce('yaml', dir, name, (raw) => parseYaml(raw) as T);
  }

  problems(dir: string): string[] {
    if (this.failures.size === 0) return [];
    return [...this.failures.entries()].filter(([file]) => parentPath(file) === dir).map(([, problem]) => problem);
  }

  /** Root-relative file → why it could not be used; the first failure per file is kept. */
  private readonly failures = new Map<string, string>();

  private parseOnce<T>(format: 'json' | 'toml' | 'yaml', dir: string, name: string, parse: (text: string) => T): Promise<T | undefined> {
    const key = `${format}:${joinPath(dir, name)}`;
    let value = this.parsed.get(key) as Promise<T | undefined> | undefined;
    if (!value) {
      value = this.has(dir, name) ? this.read(dir, name).then((text) => this.parseQuietly(joinPath(dir, name), format, text, parse)) : Promise.resolve(undefined);
      this.parsed.set(key, value);
    }
    return value;
  }

  /**
   * A manifest that does not parse is treated as absent — detection goes on with the others —
   * and remembered, so the service it belongs to carries a warning instead of a silent gap.
   */
  private parseQuietly<T>(file: string, format: string, text: string | undefined, parse: (text: string) => T): T | undefined {
    if (text === undefined) {
      if (!this.failures.has(file)) this.failures.set(file, `${file} could not be read (unreadable, or larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB): ignored`);
      return undefined;
    }
    try {
      return parse(text) ?? undefined;
    } catch (error) {
      if (!this.failures.has(file)) this.failures.set(file, `${file} is not valid ${format.toUpperCase()} (${firstLine(error)}): ignored`);
      return undefined;
    }
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 160);
}

/**
 * Manifests are small and a monorepo has a thousand of them: one synchronous read costs a few
 * microseconds, where fs/promises' readFile makes four trips through the thread pool (open, fstat,
 * read, close) — measured 3x slower for detection of a 1,000-package workspace. Anything large is
 * not a manifest worth parsing and is treated as unreadable.
 */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

function readManifest(file: string, maxBytes: number): string | undefined {
  try {
    const buffer = readFileSync(file);
    return buffer.length > maxBytes ? undefined : buffer.toString('utf8');
  } catch {
    return undefined;
  }
}
