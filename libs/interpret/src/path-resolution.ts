import * as path from 'node:path';
import { editDistance } from '@quarry/contracts';
import { isInside } from '@quarry/workspace';
import { directoriesOf, type WorkspaceView } from './workspace-view';

/**
 * Turning what a user or a model wrote as a path into a root-relative path that exists, or an
 * honest "outside the root" / "not found" / "could be any of these".
 */

export type RelativePath = { ok: true; path: string } | { ok: false; reason: string };

/** `src/app.ts`, `./src/`, `/abs/root/src` → root-relative POSIX; anything that leaves the root is refused. */
export function toRelative(raw: string, root: string): RelativePath {
  const value = raw.trim().replace(/^["'`]|["'`]$/g, '');
  if (value === '' || value === '.' || value === './') return { ok: true, path: '.' };
  if (value.startsWith('~')) return { ok: false, reason: `"${raw}" is in a home directory, outside the workspace root` };
  if (path.isAbsolute(value)) {
    if (!isInside(root, value)) return { ok: false, reason: `"${raw}" is outside the workspace root` };
    return { ok: true, path: toPosix(path.relative(root, value)) || '.' };
  }
  const normalized = path.posix.normalize(value.replace(/\\/g, '/')).replace(/\/+$/, '');
  if (normalized === '..' || normalized.startsWith('../')) return { ok: false, reason: `"${raw}" climbs out of the workspace root with ".."` };
  return { ok: true, path: normalized === '' ? '.' : normalized };
}

export type Resolution =
  | { status: 'exact'; path: string }
  | { status: 'resolved'; path: string; how: string }
  | { status: 'ambiguous'; path: string; choices: string[] }
  | { status: 'missing' }
  | { status: 'wrong_kind'; kind: 'file' | 'directory' };

/**
 * Finds the existing path the user most likely meant: the path itself, the path below the current
 * directory, a path with the same name elsewhere (closest first), or a name one or two typos away.
 */
export function resolvePath(relative: string, want: 'file' | 'directory', view: WorkspaceView, cwd?: string): Resolution {
  const actual = relative === '.' ? 'directory' : view.kind(relative);
  if (actual === want) return { status: 'exact', path: relative };
  if (cwd && cwd !== '.' && relative !== '.') {
    const joined = path.posix.join(cwd, relative);
    if (view.kind(joined) === want) return { status: 'resolved', path: joined, how: `relative to the current directory ${cwd}` };
  }
  if (actual !== undefined) return { status: 'wrong_kind', kind: actual };

  const index = nameIndex(view, want);
  const name = path.posix.basename(relative).toLowerCase();
  const sameName = index.get(name) ?? [];
  const pool = sameName.length > 0 ? sameName : closeNames(name, index);
  if (pool.length === 0) return { status: 'missing' };
  const ranked = rankByDistance(relative, pool);
  const how = sameName.length > 0 ? 'same name' : 'closest name';
  if (ranked.length > 1 && ranked[0].distance === ranked[1].distance) {
    const best = ranked.filter((entry) => entry.distance === ranked[0].distance).map((entry) => entry.path);
    return { status: 'ambiguous', path: best[0], choices: best.slice(0, 5) };
  }
  return { status: 'resolved', path: ranked[0].path, how };
}

type NameIndex = Map<string, string[]>;
const indexes = new WeakMap<WorkspaceView, Record<'file' | 'directory', NameIndex | undefined>>();

/** Lower-cased base name → paths, built once per view and kind, so a miss costs one pass over names, not paths. */
function nameIndex(view: WorkspaceView, kind: 'file' | 'directory'): NameIndex {
  let perView = indexes.get(view);
  if (!perView) indexes.set(view, (perView = { file: undefined, directory: undefined }));
  let index = perView[kind];
  if (!index) {
    index = new Map();
    for (const candidate of kind === 'file' ? view.files() : directoriesOf(view)) {
      const key = path.posix.basename(candidate).toLowerCase();
      const list = index.get(key);
      if (list) list.push(candidate);
      else index.set(key, [candidate]);
    }
    perView[kind] = index;
  }
  return index;
}

/** Paths whose name is within a typo budget that grows with the name's length (the closest ones only). */
function closeNames(name: string, index: NameIndex): string[] {
  const limit = Math.max(1, Math.floor(name.length / 4));
  const histogram = letterCounts(name);
  let best = Infinity;
  let found: string[] = [];
  for (const [other, paths] of index) {
    if (Math.abs(other.length - name.length) > limit) continue;
    // Cheap lower bound before the quadratic distance: each edit fixes at most two letter counts.
    if (countDifference(histogram, other) > 2 * limit) continue;
    const distance = editDistance(name, other);
    if (distance > limit || distance > best) continue;
    if (distance < best) {
      best = distance;
      found = [];
    }
    found.push(...paths);
  }
  return found;
}

function letterCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  return counts;
}

function countDifference(counts: Map<string, number>, other: string): number {
  const remaining = new Map(counts);
  let extra = 0;
  for (const char of other) {
    const left = remaining.get(char) ?? 0;
    if (left > 0) remaining.set(char, left - 1);
    else extra++;
  }
  let missing = 0;
  for (const left of remaining.values()) missing += left;
  return extra + missing;
}

function rankByDistance(target: string, pool: readonly string[]): Array<{ path: string; distance: number }> {
  const lower = target.toLowerCase();
  return pool
    .map((candidate) => ({ path: candidate, distance: editDistance(lower, candidate.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || a.path.localeCompare(b.path));
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}
