import { universalBuildSchema } from '@quarry/contracts';
import type { UniversalBuild } from './assemble';
import type { RepoScan } from './scan';

/*
 * `.quarry/stack.json` — the repository's own word, which always wins. Its top-level fields
 * (any subset of a UniversalBuild) apply to every service; `services: { "<path>": {…} }` applies
 * to one service and wins over the top level. Objects merge, arrays and scalars replace. A pinned
 * runtime version without a source gets source "override".
 */

export const OVERRIDE_FILE = '.quarry/stack.json';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface StackOverride {
  common: JsonObject;
  services: Record<string, JsonObject>;
  warnings: string[];
}

export async function readOverride(scan: RepoScan): Promise<StackOverride | undefined> {
  if (!scan.has('.quarry', 'stack.json')) return undefined;
  const parsed = await scan.json<Json>('.quarry', 'stack.json');
  if (!isObject(parsed)) return { common: {}, services: {}, warnings: [`${OVERRIDE_FILE} is not a JSON object: ignored`] };
  const { services, ...common } = parsed;
  const perService: Record<string, JsonObject> = {};
  for (const [dir, value] of Object.entries(isObject(services) ? services : {})) {
    if (isObject(value)) perService[normaliseDir(dir)] = value;
  }
  return { common, services: perService, warnings: [] };
}

export function applyOverride(build: UniversalBuild, override: StackOverride | undefined): UniversalBuild {
  if (!override) return build;
  const pinned = merge(merge(build as unknown as JsonObject, override.common), override.services[build.metadata.path] ?? {});
  markOverriddenVersion(pinned, [override.common, override.services[build.metadata.path] ?? {}]);
  const checked = universalBuildSchema.safeParse(pinned);
  if (!checked.success) {
    return withWarning(build, `${OVERRIDE_FILE} would make an invalid result (${checked.error.issues[0]?.path.join('.')}): ignored`);
  }
  return override.warnings.reduce(withWarning, checked.data);
}

function markOverriddenVersion(pinned: JsonObject, sources: JsonObject[]): void {
  const pinsVersion = sources.some((source) => isObject(source.runtime) && isObject(source.runtime.version) && 'requested' in source.runtime.version);
  const pinsSource = sources.some((source) => isObject(source.runtime) && isObject(source.runtime.version) && 'source' in source.runtime.version);
  const version = isObject(pinned.runtime) ? pinned.runtime.version : undefined;
  if (pinsVersion && !pinsSource && isObject(version)) version.source = 'override';
}

function withWarning(build: UniversalBuild, warning: string): UniversalBuild {
  return { ...build, metadata: { ...build.metadata, warnings: [...build.metadata.warnings, warning] } };
}

function merge(base: JsonObject, patch: JsonObject): JsonObject {
  const result: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = result[key];
    result[key] = isObject(current) && isObject(value) ? merge(current, value) : value;
  }
  return result;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normaliseDir(dir: string): string {
  const trimmed = dir.replace(/^\.\//, '').replace(/\/+$/, '');
  return trimmed === '' ? '.' : trimmed;
}
