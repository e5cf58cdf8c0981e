import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import * as path from 'node:path';
import { editDistance } from '@quarry/contracts/suggest';
import { walkFiles } from './file-walker';

export interface SuggestOptions {
  /** The workspace's files (walkFiles output) when the caller already has them; walked otherwise. */
  files?: readonly string[];
  /** Suggestions to return, best first. */
  limit?: number;
  /** Budget for each git command; a slow or hung git only loses the rename suggestion. */
  gitTimeoutMs?: number;
}

export const DEFAULT_SUGGESTION_LIMIT = 3;
const DEFAULT_GIT_TIMEOUT_MS = 2_000;
/** A file renamed twice (a → b → c) is followed to its current name, up to this many hops. */
const MAX_RENAME_HOPS = 3;
/** About one edit per three characters, and never more than four: beyond that it is another name, not a typo. */
const EDIT_DISTANCE_PER_CHARACTERS = 3;
const MAX_EDIT_DISTANCE = 4;

/**
 * Existing paths the user probably meant by `missing` (root-relative), best first, for a
 * "Did you mean …?" after `file_not_found`. In order of confidence:
 * 1. the same path in another case (`src/App.ts` for `src/app.ts`);
 * 2. where git says the file was renamed to (followed across several renames);
 * 3. the same name with another extension, or with one when none was given (`utils.js` → `utils.ts`);
 * 4. the same file name elsewhere in the tree (nearest path first);
 * 5. the closest paths by edit distance, within about one edit per three characters (at most 4).
 * Directories count as candidates too (derived from the files), so `@src/compnents/` finds `src/components`.
 */
export async function suggestPaths(root: string, missing: string, options: SuggestOptions = {}): Promise<string[]> {
  const limit = options.limit ?? DEFAULT_SUGGESTION_LIMIT;
  const wanted = normalizeRelative(missing);
  if (wanted === '' || limit <= 0) return [];
  const files = options.files ?? (await walkFiles(root)).files;
  const candidates = [...files, ...directoriesOf(files)];

  const suggestions = new Set<string>();
  const add = (paths: Iterable<string>) => {
    for (const candidate of paths) if (candidate !== wanted) suggestions.add(candidate);
  };
  add(caseOnlyMatches(wanted, candidates));
  add(await renamedTo(root, wanted, options.gitTimeoutMs ?? DEFAULT_GIT_TIMEOUT_MS));
  add(otherExtensions(wanted, candidates));
  add(sameNameElsewhere(wanted, candidates));
  if (suggestions.size < limit) add(closestByEditDistance(wanted, candidates, limit));
  return [...suggestions].slice(0, limit);
}

/** "Did you mean src/utils.ts?", "Did you mean one of: a, b, c?", or undefined for no suggestion. */
export function formatSuggestion(suggestions: readonly string[]): string | undefined {
  if (suggestions.length === 0) return undefined;
  if (suggestions.length === 1) return `Did you mean ${suggestions[0]}?`;
  return `Did you mean one of: ${suggestions.join(', ')}?`;
}

/** POSIX, no `./` prefix, no trailing slash: the form walkFiles reports paths in. */
function normalizeRelative(relative: string): string {
  return path.posix.normalize(relative.replaceAll('\\', '/')).replace(/^(?:\.\/)+/, '').replace(/\/+$/, '').replace(/^\.$/, '');
}

function directoriesOf(files: readonly string[]): Set<string> {
  const directories = new Set<string>();
  for (const file of files) {
    for (let slash = file.lastIndexOf('/'); slash > 0; slash = file.lastIndexOf('/', slash - 1)) {
      const directory = file.slice(0, slash);
      if (directories.has(directory)) break;
      directories.add(directory);
    }
  }
  return directories;
}

function caseOnlyMatches(wanted: string, candidates: readonly string[]): string[] {
  const lower = wanted.toLowerCase();
  return candidates.filter((candidate) => candidate.length === wanted.length && candidate.toLowerCase() === lower);
}

/** `src/utils.js` → `src/utils.ts`, `src/utils` → `src/utils.ts`: same directory, same stem. */
function otherExtensions(wanted: string, candidates: readonly string[]): string[] {
  const stem = stemOf(wanted).toLowerCase();
  const directory = path.posix.dirname(wanted).toLowerCase();
  return candidates
    .filter((candidate) => path.posix.dirname(candidate).toLowerCase() === directory && stemOf(candidate).toLowerCase() === stem)
    .sort();
}

/**
 * Nearest first: most leading directories shared with the wanted path, then shallowest. Cheap
 * where edit distance is not: a tree can hold thousands of `index.js`.
 */
function sameNameElsewhere(wanted: string, candidates: readonly string[]): string[] {
  const name = path.posix.basename(wanted).toLowerCase();
  const wantedSegments = wanted.split('/');
  const matches = candidates.filter((candidate) => path.posix.basename(candidate).toLowerCase() === name);
  const nearness = (candidate: string) => {
    const segments = candidate.split('/');
    let shared = 0;
    while (shared < segments.length - 1 && segments[shared] === wantedSegments[shared]) shared++;
    return { shared, depth: segments.length };
  };
  return matches
    .map((candidate) => ({ candidate, ...nearness(candidate) }))
    .sort((a, b) => b.shared - a.shared || a.depth - b.depth || a.candidate.localeCompare(b.candidate))
    .map(({ candidate }) => candidate);
}

/**
 * Edit distance is quadratic per pair, so two cheap lower bounds of it (the difference in length,
 * then in character counts) keep almost all of a large tree from being compared at all.
 */
function closestByEditDistance(wanted: string, candidates: readonly string[], limit: number): string[] {
  const maxDistance = Math.min(MAX_EDIT_DISTANCE, Math.max(1, Math.floor(wanted.length / EDIT_DISTANCE_PER_CHARACTERS)));
  const scored: Scored[] = [];
  const lower = wanted.toLowerCase();
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - wanted.length) > maxDistance) continue;
    const lowerCandidate = candidate.toLowerCase();
    if (characterCountBound(lower, lowerCandidate) > maxDistance) continue;
    const distance = editDistance(lower, lowerCandidate);
    if (distance <= maxDistance) scored.push({ candidate, distance });
  }
  return nearestFirst(scored).slice(0, limit);
}

interface Scored {
  candidate: string;
  distance: number;
}

function nearestFirst(scored: Scored[]): string[] {
  return scored.sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate)).map(({ candidate }) => candidate);
}

/** Per UTF-16 unit counts, reused between calls and left zeroed after each. */
const characterCounts = new Int32Array(0x10000);

/**
 * A lower bound of the edit distance from character counts alone: a substitution changes the
 * counts' total difference by at most 2, an insertion or deletion by 1, a swap by 0. Linear.
 */
function characterCountBound(a: string, b: string): number {
  for (let index = 0; index < a.length; index++) characterCounts[a.charCodeAt(index)]++;
  for (let index = 0; index < b.length; index++) characterCounts[b.charCodeAt(index)]--;
  let difference = 0;
  for (const text of [a, b]) {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      difference += Math.abs(characterCounts[code]);
      characterCounts[code] = 0;
    }
  }
  return Math.ceil(difference / 2);
}

function stemOf(relative: string): string {
  const name = path.posix.basename(relative);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/**
 * Where git recorded `wanted` being renamed to, following later renames, if the result exists.
 * Two cheap, path-limited questions: which commit deleted the path (a rename shows as a deletion
 * when the log is limited to the old name), then what that commit renamed it to. Not a git
 * repository, no git, or a timeout: no suggestion.
 */
async function renamedTo(root: string, wanted: string, timeoutMs: number): Promise<string[]> {
  let current = wanted;
  for (let hop = 0; hop < MAX_RENAME_HOPS; hop++) {
    const commit = (await git(root, ['log', '-M', '--diff-filter=D', '--format=%H', '-n', '1', '--', current], timeoutMs)).trim();
    if (!/^[0-9a-f]{40,64}$/.test(commit)) return [];
    const renames = await git(root, ['show', '-M', '--name-status', '--format=', '--relative', '--diff-filter=R', commit, '--'], timeoutMs);
    const target = renameTargetOf(renames, current);
    if (target === undefined) return [];
    if (await exists(path.join(root, target))) return [target];
    current = target;
  }
  return [];
}

/** From `R095\told\tnew` lines, the new name of `source`. */
function renameTargetOf(nameStatus: string, source: string): string | undefined {
  for (const line of nameStatus.split('\n')) {
    const [status, from, to] = line.split('\t');
    if (status?.startsWith('R') && from === source && to) return to;
  }
  return undefined;
}

/** Runs git without a shell; literal pathspecs so a name like `:(glob)*` is only a name. Empty on any failure. */
function git(root: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'core.quotePath=false', '--literal-pathspecs', ...args],
      { cwd: root, timeout: timeoutMs, maxBuffer: 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } },
      (error, stdout) => resolve(error ? '' : stdout),
    );
  });
}

async function exists(absolute: string): Promise<boolean> {
  try {
    await access(absolute);
    return true;
  } catch {
    return false;
  }
}
