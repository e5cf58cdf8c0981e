import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { QuarryError, closestMatch } from '@quarry/contracts';
import { compileGlob, isInside, walkFiles } from '@quarry/workspace';
import { validatePattern } from './pattern-rules';
import type { CaseSensitivity, FileCount, SearchMatch, SearchMode, SearchRequest, SearchResult } from './search-types';
import { BatchRunner } from './batch-runner';
import { sharedSearchPool, type SearchWorkerPool } from './worker-pool';
import { comparePaths, type TaskResult } from './worker-protocol';

export const DEFAULT_MAX_MATCHES = 50;
export const DEFAULT_CONTEXT_LINES = 2;
export const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * Files above this are skipped and counted in `skipped.tooLarge`: a prompt never wants a match
 * from a 1 GB dump. High enough for generated sources (Linux's largest header is 23 MB), so the
 * counts equal ripgrep's, which has no cap.
 */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_CONTEXT_LINES = 20;

let nextSearchId = 1;

export interface SearchWorkspaceOptions {
  /** Defaults to the process-wide pool (min(cores, 4) threads). */
  pool?: SearchWorkerPool;
  maxFileBytes?: number;
  /**
   * Search these root-relative files instead of walking the root (an index chose them). They go
   * through the same scope filter (directory, hidden, glob) as the walk's, so the caller may pass
   * more than the scope holds.
   */
  files?: readonly string[];
}

/**
 * Searches the workspace's text files for a literal or an RE2 regex, in worker threads so the
 * event loop stays free. Counts every matching line, as `rg -c` does on the same files (gitignore
 * honoured, hidden files only with `hidden`, binary files skipped), and returns the first
 * `maxMatches` by path then line, with context. When the time budget runs out the partial result
 * comes back with `timedOut: true`; an abort rejects with the signal's reason.
 */
export async function searchWorkspace(request: SearchRequest, options: SearchWorkspaceOptions = {}): Promise<SearchResult> {
  const started = performance.now();
  validatePattern(request.mode, request.pattern);
  const maxMatches = wholeNumber(request.maxMatches, DEFAULT_MAX_MATCHES, Number.MAX_SAFE_INTEGER);
  const contextLines = wholeNumber(request.contextLines, DEFAULT_CONTEXT_LINES, MAX_CONTEXT_LINES);
  const timeoutMs = wholeNumber(request.timeoutMs, DEFAULT_TIMEOUT_MS, Number.MAX_SAFE_INTEGER);
  // Surrounding blanks (a planner's " *.ts") are dropped; a filter of blanks only stays an error.
  const accept = request.glob === undefined || request.glob === '' ? undefined : compileGlob(request.glob.trim());
  const ignoreCase = foldsCase(request.mode, request.pattern, request.caseSensitivity);
  request.signal?.throwIfAborted();
  const scope = await resolveSearchScope(request.root, request.directory);
  const pool = options.pool ?? sharedSearchPool();
  // The threads start (and load RE2) while the main thread walks.
  pool.warm();

  const budget = new Budget(timeoutMs, request.signal);
  try {
    const runner = new BatchRunner(pool, {
      searchId: nextSearchId++,
      root: request.root,
      mode: request.mode,
      pattern: request.pattern,
      ignoreCase,
      countsPerFile: request.countsPerFile === true,
      keep: maxMatches,
      contextLines,
      maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      deadline: Date.now() + timeoutMs,
      cancel: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
    });
    const inScope = scopeFilter(scope.relative, request.hidden === true, accept);
    try {
      if (options.files) {
        const files = inScope(options.files);
        if (files.length > 0) runner.add(files);
      } else {
        await listFiles(request.root, scope, budget.signal, (found) => {
          const files = inScope(found);
          if (files.length > 0) runner.add(files);
        });
      }
      runner.flush();
    } catch (error) {
      // Out of time during the walk: what was searched so far is the partial result.
      if (!budget.timedOut) {
        runner.stop();
        throw budget.aborted ? budget.reason : error;
      }
    }
    const batches = await runner.collect(budget.stopped, () => budget.stopping);
    if (budget.aborted) throw budget.reason;
    return summarize(batches, maxMatches, budget.timedOut || batches.some((batch) => batch.stopped), ignoreCase, started, request.countsPerFile === true);
  } finally {
    budget.dispose();
  }
}

function summarize(batches: TaskResult[], maxMatches: number, timedOut: boolean, ignoreCase: boolean, started: number, countsPerFile = false): SearchResult {
  const result: SearchResult = {
    matches: [],
    totalMatches: 0,
    filesSearched: 0,
    filesMatched: 0,
    skipped: { binary: 0, tooLarge: 0, unreadable: 0 },
    truncated: false,
    timedOut,
    ignoreCase,
    elapsedMs: 0,
  };
  const kept: SearchMatch[] = [];
  const counts: FileCount[] = [];
  for (const batch of batches) {
    result.totalMatches += batch.totalMatches;
    result.filesSearched += batch.filesSearched;
    result.filesMatched += batch.filesMatched;
    result.skipped.binary += batch.skipped.binary;
    result.skipped.tooLarge += batch.skipped.tooLarge;
    result.skipped.unreadable += batch.skipped.unreadable;
    for (const match of batch.matches) kept.push(match);
    for (const count of batch.fileCounts ?? []) counts.push(count);
  }
  if (countsPerFile) result.fileCounts = counts.sort((a, b) => comparePaths(a.path, b.path));
  result.matches = kept.sort((a, b) => comparePaths(a.path, b.path) || a.line - b.line).slice(0, maxMatches);
  result.truncated = result.totalMatches > result.matches.length;
  result.elapsedMs = performance.now() - started;
  return result;
}

/**
 * Whether the search folds case: `smart` (as `rg -S`) folds unless the pattern has an upper-case
 * letter. In a regex, escapes (`\W`, `\pL`, `\p{Greek}`) and group names are not letters of the
 * pattern.
 */
export function foldsCase(mode: SearchMode, pattern: string, sensitivity: CaseSensitivity | undefined): boolean {
  const chosen = sensitivity ?? (mode === 'literal' ? 'insensitive' : 'sensitive');
  if (chosen !== 'smart') return chosen === 'insensitive';
  const letters = mode === 'literal' ? pattern : pattern.replace(/\\[pP]\{[^}]*\}|\\[A-Za-z]|\(\?P?<[^>]*>/g, '');
  return letters.toLowerCase() === letters;
}

/**
 * The request's scope as a filter on root-relative paths: under the directory, not hidden unless
 * asked, matching the glob. The walk's files pass through it, and so do an index's.
 */
export function scopeFilter(directory: string, hidden: boolean, accept: ((path: string) => boolean) | undefined): (files: readonly string[]) => string[] {
  const prefix = directory === '' ? '' : `${directory}/`;
  return (found) => {
    let files = prefix === '' ? [...found] : found.filter((file) => file.startsWith(prefix));
    if (!hidden) files = withoutHidden(files, directory);
    if (accept) files = files.filter(accept);
    return files;
  };
}

/**
 * What searchWorkspace would look at for this request, resolved once: the scope filter and
 * whether case is folded. An index uses it to count the files it did not need to read.
 */
export async function requestScope(request: SearchRequest): Promise<{ inScope: (files: readonly string[]) => string[]; ignoreCase: boolean }> {
  validatePattern(request.mode, request.pattern);
  const accept = request.glob === undefined || request.glob === '' ? undefined : compileGlob(request.glob.trim());
  const scope = await resolveSearchScope(request.root, request.directory);
  return { inScope: scopeFilter(scope.relative, request.hidden === true, accept), ignoreCase: foldsCase(request.mode, request.pattern, request.caseSensitivity) };
}

/** Files outside hidden directories and not hidden themselves, below the searched directory (which may be hidden: it was named). */
function withoutHidden(files: string[], scope: string): string[] {
  const from = scope === '' ? 0 : scope.length + 1;
  return files.filter((file) => file.charCodeAt(from) !== 0x2e && file.indexOf('/.', from) === -1);
}

interface SearchScope {
  absolute: string;
  /** Root-relative POSIX path, '' for the root. */
  relative: string;
}

/** The directory to search, checked on its real path to be inside the root. */
export async function resolveSearchScope(root: string, directory: string | undefined): Promise<SearchScope> {
  const requested = (directory ?? '').trim();
  if (requested === '' || requested === '.' || requested === './') return { absolute: root, relative: '' };
  const normalized = path.posix.normalize(requested.replace(/\\/g, '/'));
  if (path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')) throw outsideRoot(directory as string);
  const absolute = path.resolve(root, normalized);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch {
    throw await directoryNotFound(root, normalized);
  }
  if (!isInside(root, real)) throw outsideRoot(directory as string);
  if (!(await stat(real)).isDirectory()) {
    throw new QuarryError('input_invalid', `"${normalized}" is a file, not a directory.`, {
      suggestion: `Search its directory with a file filter instead: directory "${path.posix.dirname(normalized)}", glob "${path.posix.basename(normalized)}".`,
    });
  }
  return { absolute: real, relative: path.relative(root, real).split(path.sep).join('/') };
}

function outsideRoot(directory: string): QuarryError {
  return new QuarryError('path_outside_root', `The search directory "${directory}" is outside the workspace.`, {
    suggestion: 'Give a directory relative to the workspace root, without ".." or symlinks that lead out of it.',
  });
}

async function directoryNotFound(root: string, relative: string): Promise<QuarryError> {
  const parent = path.posix.dirname(relative);
  const siblings = await readdir(path.resolve(root, parent), { withFileTypes: true }).catch(() => []);
  const closest = closestMatch(
    path.posix.basename(relative),
    siblings.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
  );
  return new QuarryError('file_not_found', `The search directory "${relative}" does not exist.`, {
    suggestion: closest === undefined ? 'Check the directory name; it is relative to the workspace root.' : `Did you mean "${path.posix.join(parent, closest)}"?`,
  });
}

/**
 * Hands the root-relative paths of the files in scope to `onFiles` as the walk finds them. A
 * sub-directory is walked on its own when a repository encloses it (walkFiles then applies the
 * ignore files above it); outside a repository the root's own ignore files would be missed, so
 * the root is walked and filtered.
 */
async function listFiles(root: string, scope: SearchScope, signal: AbortSignal, onFiles: (files: string[]) => void): Promise<void> {
  if (scope.relative === '') {
    await walkFiles(root, { signal, onFiles });
    return;
  }
  const prefix = `${scope.relative}/`;
  if (!(await insideRepository(root))) {
    await walkFiles(root, { signal, onFiles: (files) => onFiles(files.filter((file) => file.startsWith(prefix))) });
    return;
  }
  await walkFiles(scope.absolute, { signal, onFiles: (files) => onFiles(files.map((file) => prefix + file)) });
}

async function insideRepository(directory: string): Promise<boolean> {
  for (let current = directory; ; current = path.dirname(current)) {
    if (await lstat(path.join(current, '.git')).then(() => true, () => false)) return true;
    if (path.dirname(current) === current) return false;
  }
}

/** The time budget and the caller's signal as one: `stopped` settles on whichever comes first. */
class Budget {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: () => void;
  timedOut = false;
  readonly stopped: Promise<void>;

  constructor(timeoutMs: number, private readonly caller: AbortSignal | undefined) {
    this.stopped = new Promise((resolve) => this.controller.signal.addEventListener('abort', () => resolve(), { once: true }));
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new QuarryError('search_timeout', `The search ran out of its ${timeoutMs} ms budget.`, { permanent: false }));
    }, timeoutMs);
    this.onAbort = () => this.controller.abort(caller?.reason);
    caller?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get stopping(): boolean {
    return this.controller.signal.aborted;
  }

  /** The caller aborted (as opposed to the budget running out). */
  get aborted(): boolean {
    return this.stopping && !this.timedOut;
  }

  get reason(): unknown {
    return this.caller?.reason;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}

function wholeNumber(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(0, Math.floor(value)));
}
