import ignore, { type Ignore } from 'ignore';
import { RulePrefilter } from './rule-prefilter';

/** What one ignore file says about one path: nothing, "ignore it", or "re-include it" (`!rule`). */
export type Verdict = typeof UNDECIDED | typeof IGNORED | typeof INCLUDED;
export const UNDECIDED = 0;
export const IGNORED = 1;
export const INCLUDED = 2;

/** A line of spaces only is blank to git (it trims trailing spaces). */
const BLANK = /^ *$/;
/** A glob-free name with no slash: `node_modules`, `.env`, `build/`. */
const LITERAL_NAME = /^([^\s!#*?[\]\\/]+)(\/?)$/;
/** `*` followed by a glob-free suffix that starts with a dot: `*.log`, `*.tar.gz`. */
const STAR_DOT_SUFFIX = /^\*(\.[^\s!#*?[\]\\/]+)$/;

/**
 * The rules of one ignore file (`.gitignore`, `.git/info/exclude`), answering for paths relative
 * to the directory the file sits in, the way git reads them.
 *
 * `ignore` does the matching, but asking it about every path is most of a naive walk's time, so
 * the rules are sorted first:
 * - in a file with no negation, a plain name (`node_modules`, `dist/`) or a plain `*.ext` decides
 *   alone, whatever the order: a Set lookup on the basename;
 * - every other rule goes to an `ignore` instance, which is only asked about a path that one of
 *   those rules could match (see RulePrefilter).
 * A file with negations keeps all its rules, in order, in the `ignore` instance (last match wins).
 */
export class IgnoreRules {
  /** Length of the prefix to cut from a root-relative path to get one relative to this file. */
  readonly prefixLength: number;
  private readonly names = new Set<string>();
  private readonly directoryNames = new Set<string>();
  private readonly suffixes = new Set<string>();
  private readonly matcher: Ignore | undefined;
  /** Paths the matcher could say something about; undefined means any path. */
  private readonly prefilter: RulePrefilter | undefined;

  /**
   * @param directory POSIX path of the ignore file's directory, relative to the walk root ('' for the root).
   * @param lines the file's lines, in order.
   */
  private constructor(
    readonly directory: string,
    private readonly lines: readonly string[],
    allInMatcher: boolean,
    /** For an ignore file above the walk root: the walk root's path relative to the file's directory. */
    private readonly outerPath?: string,
  ) {
    this.prefixLength = directory === '' ? 0 : directory.length + 1;
    const patterns = lines.map(stripLineEnd).filter((line) => !BLANK.test(line) && !line.startsWith('#'));
    const hasNegation = patterns.some((line) => line.startsWith('!'));

    const matcherPatterns: string[] = [];
    for (const pattern of patterns) {
      if (allInMatcher || hasNegation || !this.takeFastRule(pattern)) matcherPatterns.push(pattern);
    }
    if (matcherPatterns.length > 0) {
      this.matcher = ignore({ ignorecase: false }).add(matcherPatterns);
      this.prefilter = allInMatcher ? undefined : RulePrefilter.of(matcherPatterns);
    }
  }

  /** Parses the text of an ignore file found in `directory` (root-relative POSIX, '' for the root). */
  static parse(directory: string, text: string): IgnoreRules {
    const withoutBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    return new IgnoreRules(directory, withoutBom.split('\n'), false);
  }

  /**
   * Parses an ignore file that sits above the walk root, in the same repository (`outerPath` is the
   * walk root relative to that file's directory, e.g. "apps/web"): git applies it when you look at
   * a subdirectory, and so does ripgrep.
   */
  static parseOuter(outerPath: string, text: string): IgnoreRules {
    const withoutBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    return new IgnoreRules('', withoutBom.split('\n'), false, outerPath);
  }

  /** A walk-root-relative path as these rules see it (relative to the ignore file's directory). */
  localPath(relative: string): string {
    if (this.outerPath !== undefined) return relative === '' ? this.outerPath : `${this.outerPath}/${relative}`;
    return this.prefixLength === 0 ? relative : relative.slice(this.prefixLength);
  }

  /** True when the file holds no rule at all (empty, or only comments): the walker drops it. */
  get isEmpty(): boolean {
    return this.matcher === undefined && this.names.size === 0 && this.directoryNames.size === 0 && this.suffixes.size === 0;
  }

  /**
   * What these rules alone say about `path` (relative to this file's directory; `basename` is its
   * last segment). Only the path itself is matched: whether its parent directories are excluded is
   * the walker's business, since it never descends into an excluded one.
   */
  verdict(path: string, basename: string, isDirectory: boolean): Verdict {
    if (this.names.has(basename) || (isDirectory && this.directoryNames.has(basename))) return IGNORED;
    if (this.suffixes.size > 0 && this.hasIgnoredSuffix(basename)) return IGNORED;
    if (this.matcher === undefined || (this.prefilter !== undefined && !this.prefilter.mayMatch(path, basename))) return UNDECIDED;
    const result = this.matcher.test(isDirectory ? `${path}/` : path);
    return result.ignored ? IGNORED : result.unignored ? INCLUDED : UNDECIDED;
  }

  /**
   * The same rules, for use beneath `directory` (relative to this file) after a deeper ignore file
   * re-included it although these rules exclude it. `ignore` treats a path under an excluded
   * directory as excluded, which is git's rule within one file but not across files: there each
   * path is matched on its own. Anchored negations of the directory and its ancestors, added last,
   * tell `ignore` those directories are not excluded, and match nothing else. Rare, so it skips
   * the prefilter.
   */
  reincluding(directory: string): IgnoreRules {
    const negations: string[] = [];
    let ancestor = '';
    for (const segment of directory.split('/')) {
      ancestor = ancestor === '' ? escapeGlob(segment) : `${ancestor}/${escapeGlob(segment)}`;
      negations.push(`!/${ancestor}/`);
    }
    return new IgnoreRules(this.directory, [...this.lines, ...negations], true, this.outerPath);
  }

  /** Records `pattern` in the lookup sets if it is one they decide alone; false if it is not. */
  private takeFastRule(pattern: string): boolean {
    const literal = LITERAL_NAME.exec(pattern);
    if (literal !== null) {
      (literal[2] === '/' ? this.directoryNames : this.names).add(literal[1]);
      return true;
    }
    const suffix = STAR_DOT_SUFFIX.exec(pattern);
    if (suffix !== null) {
      this.suffixes.add(suffix[1]);
      return true;
    }
    return false;
  }

  /** `*.ext` rules match a basename ending with `.ext`; every dotted tail is a candidate. */
  private hasIgnoredSuffix(basename: string): boolean {
    for (let dot = basename.indexOf('.'); dot !== -1; dot = basename.indexOf('.', dot + 1)) {
      if (this.suffixes.has(dot === 0 ? basename : basename.slice(dot))) return true;
    }
    return false;
  }
}

/** Git drops one CR before each LF; a lone final CR too. */
function stripLineEnd(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** A path segment as a gitignore pattern that matches exactly that name. */
function escapeGlob(segment: string): string {
  return segment.replace(/[\\*?[ ]/g, '\\$&');
}
