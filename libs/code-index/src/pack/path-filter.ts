import picomatch from 'picomatch';
import RE2 from 're2';
import { QuarryError } from '@quarry/contracts';

/** Tests a root-relative POSIX path. */
export type PathTest = (path: string) => boolean;

export interface PathFilterOptions {
  include?: readonly string[];
  ignore?: readonly string[];
}

export const MAX_PATTERN_LENGTH = 1_000;
export const MAX_PATTERNS = 100;
/** Wildcards after which a pattern with look-arounds (negated extglobs) is refused: its regex could backtrack. */
const MAX_BACKTRACKING_WILDCARDS = 2;

/**
 * `include`/`ignore` globs with fast-glob's semantics (picomatch, `dot: true`): patterns match
 * whole root-relative paths, so `*.ts` is a top-level file and `**\/*.ts` any; `{a,b}`, `[a-z]`,
 * `?(x)`, `!(x)` work as in fast-glob. An ignore pattern also drops everything under a directory
 * it matches (`dist`, `**\/node_modules`), as fast-glob's `ignore` does. No include = everything.
 *
 * picomatch compiles to a backtracking RegExp, and file names are not ours to choose: its
 * look-aheads only guard `.`/`..` segments and empty names, which a file path never has, so they
 * are dropped and the rest runs on RE2 (linear time). A pattern that keeps a real look-around
 * (`!(…)`) runs on RegExp only when it has at most two wildcards; otherwise it is refused.
 */
export function compilePathFilter(options: PathFilterOptions): PathTest {
  const include = (options.include ?? []).map((pattern) => compileGlob(pattern, 'include'));
  const ignore = (options.ignore ?? []).map((pattern) => compileGlob(pattern, 'ignore'));
  return (path) => {
    if (include.length > 0 && !include.some((test) => test(path))) return false;
    if (ignore.length === 0) return true;
    // The file itself, or any directory above it.
    for (let end = path.length; end > 0; end = path.lastIndexOf('/', end - 1)) {
      const prefix = path.slice(0, end);
      if (ignore.some((test) => test(prefix))) return false;
    }
    return true;
  };
}

/** Refuses malformed lists before any compiling (too many, not strings). */
export function validatePatterns(patterns: readonly unknown[] | undefined, role: 'include' | 'ignore'): string[] {
  if (patterns === undefined) return [];
  if (patterns.length > MAX_PATTERNS) throw invalid(String(patterns.length), role, `at most ${MAX_PATTERNS} patterns are accepted`);
  return patterns.map((pattern) => {
    if (typeof pattern !== 'string') throw invalid(String(pattern), role, 'a pattern must be a string');
    return pattern;
  });
}

function compileGlob(pattern: string, role: 'include' | 'ignore'): PathTest {
  if (pattern.trim().length === 0) throw invalid(pattern, role, 'the pattern is empty');
  if (pattern.length > MAX_PATTERN_LENGTH) throw invalid(pattern, role, `it is longer than ${MAX_PATTERN_LENGTH} characters`);
  if (/[\u0000-\u001f]/.test(pattern)) throw invalid(pattern, role, 'it contains a control character');
  if (pattern.startsWith('/') || /^[A-Za-z]:/.test(pattern)) throw invalid(pattern, role, 'patterns are relative to the repository root');
  if (unbalanced(pattern)) throw invalid(pattern, role, 'a bracket or brace is not closed');
  const normalized = pattern.replace(/^\.\//, '');
  let source: string;
  try {
    source = picomatch.makeRe(normalized, { dot: true }).source;
  } catch (error) {
    throw invalid(pattern, role, (error as Error).message);
  }
  const linear = source
    .replaceAll('(?!(?:^|\\/)\\.{1,2}(?:\\/|$))', '')
    .replaceAll('(?!\\.{1,2}(?:\\/|$))', '')
    .replaceAll('(?=.)', '');
  if (!/\(\?[=!<]/.test(linear)) {
    const regex = new RE2(linear);
    return (path) => regex.test(path);
  }
  const wildcards = (normalized.match(/\*+|\?|[+@!]\(/g) ?? []).length;
  if (wildcards > MAX_BACKTRACKING_WILDCARDS) {
    throw invalid(pattern, role, `a negated group (!(…)) with more than ${MAX_BACKTRACKING_WILDCARDS} wildcards could take exponential time to match`);
  }
  const regex = new RegExp(source);
  return (path) => regex.test(path);
}

/** `[abc` or `{a,b` would be read by picomatch as literal text, silently matching nothing. */
function unbalanced(pattern: string): boolean {
  let square = 0;
  let curly = 0;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      index++;
      continue;
    }
    if (char === '[') square++;
    else if (char === ']' && square > 0) square--;
    else if (char === '{') curly++;
    else if (char === '}') {
      if (curly === 0) return true;
      curly--;
    }
  }
  return square > 0 || curly > 0;
}

function invalid(pattern: string, role: 'include' | 'ignore', reason: string): QuarryError {
  return new QuarryError('pattern_invalid', `The ${role} pattern "${pattern.slice(0, 80)}" is not a valid glob: ${reason}.`, {
    suggestion: 'Globs match paths from the repository root: src/**/*.ts, **/*.md, docs/*, !(*.d).ts.',
  });
}
