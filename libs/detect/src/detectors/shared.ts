import type { ServiceContext, Verdict } from '../model';
import { tomlString } from '../toml';

/** A manifest fact: confidence 1 unless the caller says it guessed. */
export function found<T>(value: T, confidence = 1, warnings?: string[]): Verdict<T> {
  return { value, confidence, detectedBy: 'static', ...(warnings?.length ? { warnings } : {}) };
}

/** The service directory first, then the workspace root, then the repository root: nearest wins. */
export function searchDirs(service: ServiceContext): string[] {
  return [...new Set([service.dir, service.workspace?.root ?? service.dir, '.'])];
}

/** True when `name` is in the service directory or any directory above it that search reaches. */
export function hasNearby(service: ServiceContext, name: string): boolean {
  return searchDirs(service).some((dir) => service.scan.has(dir, name));
}

export interface RequestedVersion {
  requested?: string;
  source: string;
}

/**
 * The version files of one tool, in the issue's precedence after the manifest: dedicated files
 * (`.nvmrc`, `.python-version`…) then `.tool-versions` then `mise.toml`, nearest directory first.
 */
export async function versionFromFiles(service: ServiceContext, files: string[], toolNames: string[]): Promise<RequestedVersion | undefined> {
  // Only files that exist are read: most directories have none, and a thousand services would
  // otherwise await a thousand empty reads each.
  for (const dir of searchDirs(service)) {
    const has = (name: string) => service.scan.has(dir, name);
    for (const file of files) {
      if (!has(file)) continue;
      const text = await service.scan.read(dir, file);
      const version = text?.split(/\r?\n/).map((line) => line.trim()).find((line) => line && !line.startsWith('#'));
      if (version) return { requested: version.replace(/^v(?=\d)/, ''), source: file };
    }
    const asdf = has('.tool-versions') ? toolVersion(await service.scan.read(dir, '.tool-versions'), toolNames) : undefined;
    if (asdf) return { requested: asdf, source: '.tool-versions' };
    const mise = has('mise.toml') ? await service.scan.toml(dir, 'mise.toml') : undefined;
    const miseVersion = toolNames.map((tool) => tomlString(mise, 'tools', tool)).find(Boolean);
    if (miseVersion) return { requested: miseVersion, source: 'mise.toml' };
  }
  return undefined;
}

function toolVersion(text: string | undefined, toolNames: string[]): string | undefined {
  for (const line of text?.split(/\r?\n/) ?? []) {
    const [tool, version] = line.trim().split(/\s+/);
    if (tool && version && toolNames.includes(tool)) return version;
  }
  return undefined;
}

/** The first whole number in a version or range (">=18 <21" → "18"), for image tags. */
export function majorOf(version: string | undefined): string | undefined {
  return version?.match(/\d+(\.\d+)?/)?.[0];
}

/** `packages/*`, `apps/**`, `crates/foo` → matching directories under `base` that hold `manifest`. */
export function expandMembers(service: ServiceContext, patterns: string[], manifest: string | ((dir: string) => boolean)): string[] {
  const base = service.dir;
  const include = patterns.filter((pattern) => !pattern.startsWith('!')).map((pattern) => globToRegExp(base, pattern));
  const exclude = patterns.filter((pattern) => pattern.startsWith('!')).map((pattern) => globToRegExp(base, pattern.slice(1)));
  const holdsManifest = typeof manifest === 'string' ? (dir: string) => service.scan.has(dir, manifest) : manifest;
  return service.scan.directories.filter(
    (dir) => dir !== base && include.some((re) => re.test(dir)) && !exclude.some((re) => re.test(dir)) && holdsManifest(dir),
  );
}

function globToRegExp(base: string, pattern: string): RegExp {
  const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  const full = base === '.' ? clean : `${base}/${clean}`;
  const source = full
    .split('/')
    .map((segment) => (segment === '**' ? '.*' : segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
    .join('/');
  return new RegExp(`^${source.replace(/\/\.\*$/, '(/.*)?')}$`);
}

export function basename(dir: string): string {
  return dir.slice(dir.lastIndexOf('/') + 1);
}

/** The `web:` process of a Procfile (Heroku convention), the most explicit start command a repo can give. */
export async function procfileWeb(service: ServiceContext): Promise<string | undefined> {
  const text = await service.read('Procfile');
  return text?.split(/\r?\n/).find((line) => line.startsWith('web:'))?.slice('web:'.length).trim() || undefined;
}

/** Immediate subdirectories of the service, root-relative. */
export function childDirectories(service: ServiceContext): string[] {
  const prefix = service.dir === '.' ? '' : `${service.dir}/`;
  return service.scan.directories.filter((dir) => dir !== '.' && dir.startsWith(prefix) && !dir.slice(prefix.length).includes('/'));
}
