import JSON5 from 'json5';

/**
 * What a tree's build files say about module names that the sources alone do not: TypeScript's
 * `paths` (`@quarry/contracts` → `libs/contracts/src`) and Go's module path (`github.com/x/y`).
 * Read from the tree's own `tsconfig.json`/`jsconfig.json` and `go.mod` files.
 */
export interface ModuleConfig {
  typescriptPaths: { baseDirectory: string; patterns: { prefix: string; suffix: string; wildcard: boolean; targets: string[] }[] }[];
  goModules: { directory: string; module: string }[];
}

export const EMPTY_MODULE_CONFIG: ModuleConfig = { typescriptPaths: [], goModules: [] };

const CONFIG_NAMES = /(^|\/)(tsconfig(\.[\w-]+)?\.json|jsconfig\.json|go\.mod)$/;
/** At most this many config files are read (a monorepo has one per package). */
const MAX_CONFIG_FILES = 200;

/** The build files of a tree that module resolution reads, shallowest first. */
export function moduleConfigFiles(paths: Iterable<string>): string[] {
  const found: string[] = [];
  for (const path of paths) if (CONFIG_NAMES.test(path) && !path.includes('node_modules/')) found.push(path);
  return found.sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1)).slice(0, MAX_CONFIG_FILES);
}

/** The module configuration from those files' texts (unreadable or malformed ones are skipped). */
export async function readModuleConfig(paths: Iterable<string>, read: (path: string) => Promise<string | undefined>): Promise<ModuleConfig> {
  const config: ModuleConfig = { typescriptPaths: [], goModules: [] };
  for (const path of moduleConfigFiles(paths)) {
    const text = await read(path).catch(() => undefined);
    if (text === undefined) continue;
    const slash = path.lastIndexOf('/');
    const directory = slash === -1 ? '' : path.slice(0, slash);
    if (path.endsWith('go.mod')) {
      const module = /^\s*module\s+(\S+)/m.exec(text)?.[1];
      if (module !== undefined) config.goModules.push({ directory, module: module.replace(/^"|"$/g, '') });
      continue;
    }
    try {
      const options = (JSON5.parse(text) as { compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> } }).compilerOptions;
      if (options?.paths === undefined) continue;
      const baseDirectory = joinPath(directory, options.baseUrl ?? '.');
      const patterns = Object.entries(options.paths).map(([pattern, targets]) => {
        const star = pattern.indexOf('*');
        return { prefix: star === -1 ? pattern : pattern.slice(0, star), suffix: star === -1 ? '' : pattern.slice(star + 1), wildcard: star !== -1, targets: Array.isArray(targets) ? targets : [] };
      });
      config.typescriptPaths.push({ baseDirectory, patterns });
    } catch {
      // Not JSON5: no paths from it.
    }
  }
  return config;
}

/** `a/b` + `../c` → `a/c`; `''` is the root; a path that climbs out of the root becomes `\0`, which names no file. */
export function joinPath(directory: string, relative: string): string {
  const parts = directory === '' ? [] : directory.split('/');
  for (const part of relative.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return '\0';
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}
