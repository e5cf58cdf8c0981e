/**
 * A cheap "could any of these gitignore rules match this path?" test, asked before the exact
 * (and much slower) `ignore` matcher. It may say yes too often, never too rarely: every glob is
 * widened (a `*` may cross a slash, a bracket expression is any one character, a `**` may match
 * nothing), so a no is always right and the matcher only sees paths that have a chance.
 */
export class RulePrefilter {
  private constructor(
    /** Rules without a slash: git matches them against the basename, at any depth. */
    private readonly basenames: RegExp | undefined,
    /** Rules with a slash: matched against the whole path relative to the ignore file. */
    private readonly paths: RegExp | undefined,
  ) {}

  /**
   * Undefined when some pattern is too unusual to widen safely (POSIX classes, escaped slashes,
   * an escaped trailing space): the caller then asks the matcher about every path.
   */
  static of(patterns: readonly string[]): RulePrefilter | undefined {
    const basenames = new Set<string>();
    const paths = new Set<string>();
    for (const pattern of patterns) {
      const widened = widen(pattern);
      if (widened === undefined) return undefined;
      if (widened !== null) (widened.anchored ? paths : basenames).add(widened.source);
    }
    return new RulePrefilter(anyOf(basenames), anyOf(paths));
  }

  /** `path` is relative to the ignore file's directory, with no trailing slash. */
  mayMatch(path: string, basename: string): boolean {
    return (this.basenames !== undefined && this.basenames.test(basename)) || (this.paths !== undefined && this.paths.test(path));
  }
}

/** A segment of two or more stars: git's `**`. */
const GLOBSTAR = /^\*\*+$/;

function anyOf(sources: Set<string>): RegExp | undefined {
  return sources.size === 0 ? undefined : new RegExp(`^(?:${[...sources].join('|')})$`);
}

/**
 * One gitignore line as a widened regular expression source; null for a line that is no rule
 * (blank, comment), undefined for one that cannot be widened safely.
 */
function widen(line: string): { anchored: boolean; source: string } | null | undefined {
  if (line.startsWith('#')) return null;
  // Git trims trailing spaces unless the last one is escaped; that case is left to the matcher.
  let body = (line.startsWith('!') ? line.slice(1) : line).replace(/ +$/, '');
  if (body.endsWith('\\') || body.includes('\\/')) return undefined;
  if (body.endsWith('/')) body = body.slice(0, -1);
  if (body === '') return line.trim() === '' ? null : undefined;

  // A slash anywhere but at the end anchors the rule to the ignore file's directory.
  const anchored = body.includes('/');
  if (body.startsWith('/')) body = body.slice(1);

  // Consecutive `**` segments mean no more than one does.
  const segments = body.split('/').filter((segment, index, all) => !(index > 0 && GLOBSTAR.test(segment) && GLOBSTAR.test(all[index - 1])));
  let source = '';
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    const last = index === segments.length - 1;
    if (GLOBSTAR.test(segment)) {
      // `**` alone matches everything; leading `**/` any (or no) directories; `/**/` and `/**` likewise.
      source += index === 0 ? (last ? '.*' : '(?:.*/)?') : '(?:/.*)?';
      continue;
    }
    const widenedSegment = widenSegment(segment);
    if (widenedSegment === undefined) return undefined;
    if (index > 0 && !(index === 1 && GLOBSTAR.test(segments[0]))) source += '/';
    source += widenedSegment;
  }
  return { anchored, source };
}

/** One path segment of a glob, widened; undefined if it cannot be read with confidence. */
function widenSegment(segment: string): string | undefined {
  let source = '';
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index];
    if (char === '*') {
      if (!source.endsWith('.*')) source += '.*';
    } else if (char === '?') {
      source += '.';
    } else if (char === '\\') {
      index++;
      source += escapeRegExp(segment[index]);
    } else if (char === '[') {
      const close = closingBracket(segment, index);
      if (close === -1) return undefined;
      source += '.';
      index = close;
    } else {
      source += escapeRegExp(char);
    }
  }
  return source;
}

/** Index of the `]` closing the bracket expression opened at `open`, or -1 if unsure. */
function closingBracket(segment: string, open: number): number {
  let index = open + 1;
  if (segment[index] === '!' || segment[index] === '^') index++;
  if (segment[index] === ']') index++;
  const close = segment.indexOf(']', index);
  // POSIX classes (`[[:alpha:]]`) hold a `]` of their own: not worth reading precisely here.
  if (close === -1 || segment.slice(open, close).includes('[:') || segment.slice(open, close).includes('\\')) return -1;
  return close;
}

function escapeRegExp(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}
