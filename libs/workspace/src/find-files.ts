import { QuarryError } from '@quarry/contracts/errors';
import { walkFiles } from './file-walker';
import { compileGlob, isGlob, type PathMatcher } from './glob';
import { compareNames, isHiddenPath, resolveDirectory } from './list-directory';

export interface FindOptions {
  /** A glob (`*.ts`, `**\/auth*.ts`, `src/{a,b}.ts`) or a plain name (`config.json`) or path tail (`api/index.ts`). */
  pattern: string;
  /** Where to look, root-relative; the whole workspace by default. Always recursive. */
  directory?: string;
  /** Hidden files (a dot name or inside a dot directory) are found unless this is false; a pattern starting with a dot finds them either way. Default true. */
  hidden?: boolean;
  /** Paths returned; the rest are counted in `total`. Default 100. */
  maxResults?: number;
  allowSecrets?: boolean;
  /** Stops the walk (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface FoundFiles {
  /** Root-relative POSIX paths, shallowest first, then by name. */
  matches: string[];
  total: number;
  truncated: boolean;
  /** True when nothing matched with exact case and these are the case-insensitive matches. */
  caseInsensitive: boolean;
}

export const DEFAULT_MAX_RESULTS = 100;

/**
 * Finds files by name or glob below a directory of a workspace (gitignore-aware, through the
 * file walker). A plain name matches any file with that basename; one with a `/` matches paths
 * ending with it. When nothing matches exactly, letters are compared regardless of case, and the
 * result says so. A glob that matches nothing is also tried as a literal name, for names such as
 * `[id].tsx`.
 */
export async function findFiles(root: string, options: FindOptions): Promise<FoundFiles> {
  const pattern = options.pattern.trim().replace(/^(?:\.\/)+/, '');
  if (pattern === '') {
    throw new QuarryError('pattern_invalid', 'The file name or glob to find is empty.', { suggestion: 'Give a name such as "config.json" or a glob such as "**/*.test.ts".' });
  }
  const maxResults = Math.max(0, options.maxResults ?? DEFAULT_MAX_RESULTS);
  // Compiled before the walk, so that a malformed glob fails at once.
  const exact = exactMatcher(pattern);
  const directory = await resolveDirectory(root, options.directory ?? '', options.allowSecrets);
  const walked = (await walkFiles(directory.absolute, { signal: options.signal })).files;
  const files = options.hidden === false && !pattern.startsWith('.') ? walked.filter((file) => !isHiddenPath(file)) : walked;

  let caseInsensitive = false;
  let matched = files.filter(exact);
  if (matched.length === 0) {
    matched = files.filter(caseInsensitiveMatcher(pattern));
    caseInsensitive = matched.length > 0;
  }

  const prefix = directory.relative === '' ? '' : `${directory.relative}/`;
  const ordered = matched.sort(shallowestFirst).map((file) => prefix + file);
  return { matches: ordered.slice(0, maxResults), total: ordered.length, truncated: ordered.length > maxResults, caseInsensitive };
}

function exactMatcher(pattern: string): PathMatcher {
  if (!isGlob(pattern)) return literalMatcher(pattern, false);
  const glob = compileGlob(pattern);
  const literal = literalMatcher(pattern, false);
  return (file) => glob(file) || literal(file);
}

function caseInsensitiveMatcher(pattern: string): PathMatcher {
  if (!isGlob(pattern)) return literalMatcher(pattern, true);
  const glob = compileGlob(pattern, { caseInsensitive: true });
  const literal = literalMatcher(pattern, true);
  return (file) => glob(file) || literal(file);
}

/** `config.json` matches any basename equal to it; `api/index.ts` any path ending with it (whole segments). */
function literalMatcher(name: string, ignoreCase: boolean): PathMatcher {
  const wanted = ignoreCase ? name.toLowerCase() : name;
  const tail = `/${wanted}`;
  return (file) => {
    const candidate = ignoreCase ? file.toLowerCase() : file;
    return candidate === wanted || candidate.endsWith(tail);
  };
}

function shallowestFirst(a: string, b: string): number {
  const depth = segmentCount(a) - segmentCount(b);
  if (depth !== 0) return depth;
  return compareNames(a, b);
}

function segmentCount(file: string): number {
  let count = 1;
  for (let index = file.indexOf('/'); index !== -1; index = file.indexOf('/', index + 1)) count++;
  return count;
}
