import RE2 from 're2';
import { requiredLiteral } from './required-literal';
import type { SearchMatch, SearchMode } from './search-types';

// Runs inside the search workers: relative imports and node built-ins only (no path aliases),
// and no QuarryError — patterns were validated on the main thread before any worker saw them.

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** Displayed lines are cut to this many characters, so one minified line cannot flood a prompt. */
export const MAX_LINE_CHARS = 400;
/** How much of a long line is kept before the match when it has to be cut. */
const LEAD_CHARS = 80;

/**
 * Finds matching lines in one file's bytes. `next(from)` takes a line start and returns a byte
 * offset inside the first matching line at or after it (not necessarily where the match starts),
 * or -1.
 */
type LineFinder = (from: number) => number;

export interface Matcher {
  forContent(content: Buffer): LineFinder;
  /** Where the first match on the line [start, end) starts, given the offset `next` returned. Only asked for described matches. */
  matchStart?(content: Buffer, start: number, end: number, at: number): number;
}

/**
 * A matcher for a validated pattern; built once per worker and pattern, reused for every file.
 * `ignoreCase` folds case the way `rg -i` does (Unicode simple case folding), for literals and
 * regexes alike.
 */
export function createMatcher(mode: SearchMode, pattern: string, ignoreCase = mode === 'literal'): Matcher {
  if (mode === 'regex') return regexMatcher(ignoreCase ? `(?i)${pattern}` : pattern);
  if (!ignoreCase || !hasCase(pattern)) return literalScan(new RE2(escapeLiteral(pattern), 'g'), Buffer.byteLength(pattern));
  return foldedLiteralMatcher(pattern);
}

/**
 * Characters whose case folding reaches outside ASCII: `s`/`S` fold with `ſ` (U+017F) and
 * `k`/`K` with the Kelvin sign (U+212A). RE2 cannot run its fast literal scan on a folded
 * pattern that holds one (the fold is no longer a byte pair), so they are kept out of the prefilter.
 */
const WIDE_FOLDS = /[sSkK]|[^\x00-\x7f]/;
/** Shorter prefilter runs hit too many lines to pay for the second, verifying pass. */
const MIN_PREFILTER_CHARS = 3;

/**
 * A case-insensitive literal, through RE2's `(?i)` (exact Unicode folding, as `rg -i`) over the
 * whole file. RE2 scans for a folded literal almost as fast as memchr unless the literal holds a
 * letter that folds outside ASCII; then the longest run without one is the prefilter, and only
 * the lines it finds are checked against the whole literal.
 */
function foldedLiteralMatcher(pattern: string): Matcher {
  const whole = regexMatcher(`(?i)${escapeLiteral(pattern)}`);
  const run = longestRun(pattern, WIDE_FOLDS);
  // ASCII without s or k: every match is the pattern's length in bytes.
  if (run === pattern) return literalScan(new RE2(`(?i)${escapeLiteral(pattern)}`, 'g'), pattern.length);
  if (run.length < MIN_PREFILTER_CHARS) return whole;
  const prefilter = new RE2(`(?i)${escapeLiteral(run)}`, 'g');
  const verify = new RE2(`(?i)${escapeLiteral(pattern)}`);
  return {
    matchStart: whole.matchStart,
    forContent: prefilteredLines(prefilter, verify),
  };
}

/**
 * A literal whose matches are all `length` bytes long, scanned for with RE2's `test()` over the
 * whole file: `lastIndex` (a byte offset for a Buffer) ends the match, so the match starts
 * `length` bytes before it. RE2 looks for a literal at least as fast as `Buffer.indexOf`, and
 * much faster when its first byte is common (`_error(`): measured on Linux's `fs/` and
 * `drivers/net/`, 86 vs 96 ms for `_error(` and 48 vs 89 ms for `spin_lock`.
 */
function literalScan(scan: RE2, length: number): Matcher {
  return {
    forContent: (content) => (from) => {
      if (from >= content.length) return -1;
      scan.lastIndex = from;
      return scan.test(content) ? scan.lastIndex - length : -1;
    },
  };
}

/**
 * The RE2 pattern that finds a regex's required literal. RE2 finds a literal's first byte with
 * memchr, which is slow when that byte is everywhere (`_` in C); for a folded literal it runs a
 * small DFA over the whole prefix instead. So a literal starting with punctuation (whose fold is
 * itself) is searched folded: more candidate lines, which the regex then checks, but a faster
 * scan (`_error(` on Linux's fs/ and drivers/net/: 44 instead of 60 ms).
 */
function prefilterPattern(literal: string): string {
  const folded = /^[!-\/:-@\[-`{-~ ]/.test(literal) && !WIDE_FOLDS.test(literal);
  return `${folded ? '(?i)' : ''}${escapeLiteral(literal)}`;
}

/** Whether upper- and lower-casing change the text: a pattern of digits and punctuation is searched byte for byte. */
function hasCase(text: string): boolean {
  return text.toLowerCase() !== text || text.toUpperCase() !== text;
}

/** The longest substring of `text` without a character matching `stop` (a one-character regex). */
function longestRun(text: string, stop: RegExp): string {
  let best = '';
  let start = 0;
  for (let index = 0; index <= text.length; index++) {
    if (index === text.length || stop.test(text[index])) {
      if (index - start > best.length) best = text.slice(start, index);
      start = index + 1;
    }
  }
  return best;
}

function regexMatcher(pattern: string): Matcher {
  const literal = requiredLiteral(pattern);
  // 'm': `^` and `$` match at line boundaries, because the regex runs over the whole file.
  const wholeFile = new RE2(pattern, 'gm');
  const oneLine = new RE2(pattern, 'm');
  const firstInLine = (content: Buffer, start: number, end: number): number => {
    const found = oneLine.exec(content.subarray(start, end));
    return found === null ? -1 : start + found.index;
  };
  const matchStart = (content: Buffer, start: number, end: number) => firstInLine(content, start, end);
  if (literal !== undefined) {
    const prefilter = new RE2(prefilterPattern(literal), 'g');
    return {
      forContent: prefilteredLines(prefilter, oneLine),
      matchStart,
    };
  }
  return {
    matchStart,
    forContent: (content) => (from) => {
      for (let position = from; position <= content.length; ) {
        wholeFile.lastIndex = position;
        const found = wholeFile.exec(content);
        if (found === null) return -1;
        const start = lineStart(content, found.index);
        const end = lineEnd(content, found.index);
        if (wholeFile.lastIndex <= end) return found.index;
        // The match ran over a line break (`\s`, `[^x]`, `(?s).`): lines are matched one by one,
        // so only a match inside this line counts.
        const match = firstInLine(content, start, end);
        if (match !== -1) return match;
        position = end + 1;
      }
      return -1;
    },
  };
}

export interface FileMatches {
  /** Matching lines in the file. */
  count: number;
  /** The first `keep` of them, with text and context. */
  matches: SearchMatch[];
  /** `shouldStop` cut the file short: `count` covers only its first part. */
  stopped: boolean;
}

/** How many matching lines go by between two looks at `shouldStop`: a file dense with matches costs microseconds a line. */
const STOP_CHECK_INTERVAL = 256;

/**
 * Every matching line of `content` counted, the first `keep` described with `contextLines` of
 * context. `shouldStop` is asked every few hundred matching lines; when it says yes the count so
 * far comes back with `stopped`.
 */
export function searchContent(content: Buffer, path: string, matcher: Matcher, keep: number, contextLines: number, shouldStop: () => boolean = () => false): FileMatches {
  const next = matcher.forContent(content);
  const matches: SearchMatch[] = [];
  const lines = new LineCounter(content);
  let count = 0;
  for (let from = 0; from <= content.length; ) {
    const at = next(from);
    if (at === -1) break;
    const start = lineStart(content, at);
    const end = lineEnd(content, at);
    // A zero-length match after the last '\n' (or in an empty file) is on no line.
    if (start === content.length) break;
    count++;
    if (count % STOP_CHECK_INTERVAL === 0 && shouldStop()) return { count, matches, stopped: true };
    if (matches.length < keep) {
      const matchAt = matcher.matchStart?.(content, start, end, at) ?? at;
      matches.push(describeMatch(content, path, matchAt === -1 ? start : matchAt, start, end, lines.lineOf(start), contextLines));
    }
    from = end + 1;
  }
  return { count, matches, stopped: false };
}

function describeMatch(content: Buffer, path: string, at: number, start: number, end: number, line: number, contextLines: number): SearchMatch {
  const prefix = content.toString('utf8', start, at);
  const { text, column } = shorten(lineText(content, start, end), prefix.length);
  const before: string[] = [];
  for (let cursor = start; before.length < contextLines && cursor > 0; ) {
    const previousStart = lineStart(content, cursor - 1);
    before.unshift(shorten(lineText(content, previousStart, cursor - 1), 0).text);
    cursor = previousStart;
  }
  const after: string[] = [];
  for (let cursor = end + 1; after.length < contextLines && cursor < content.length; ) {
    const nextEnd = lineEnd(content, cursor);
    after.push(shorten(lineText(content, cursor, nextEnd), 0).text);
    cursor = nextEnd + 1;
  }
  return { path, line, column: column + 1, text, before, after };
}

/** A long line cut to MAX_LINE_CHARS around `column` (0-based), with … marking what was cut. */
function shorten(text: string, column: number): { text: string; column: number } {
  if (text.length <= MAX_LINE_CHARS) return { text, column };
  const from = Math.max(0, Math.min(column - LEAD_CHARS, text.length - MAX_LINE_CHARS));
  const head = from > 0 ? '…' : '';
  const tail = from + MAX_LINE_CHARS < text.length ? '…' : '';
  return { text: head + text.slice(from, from + MAX_LINE_CHARS) + tail, column: column - from + head.length };
}

/** The line's text without its terminator (`\n` or `\r\n`). */
function lineText(content: Buffer, start: number, end: number): string {
  const stop = end > start && content[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
  return content.toString('utf8', start, stop);
}

function lineStart(content: Buffer, offset: number): number {
  return offset === 0 ? 0 : content.lastIndexOf(NEWLINE, offset - 1) + 1;
}

/** Offset of the line's '\n', or the content's length for a last line without one. */
function lineEnd(content: Buffer, offset: number): number {
  const end = content.indexOf(NEWLINE, offset);
  return end === -1 ? content.length : end;
}

/** 1-based line numbers for increasing offsets, counting each '\n' once per file. */
class LineCounter {
  private offset = 0;
  private line = 1;

  constructor(private readonly content: Buffer) {}

  lineOf(lineStartOffset: number): number {
    for (let at = this.content.indexOf(NEWLINE, this.offset); at !== -1 && at < lineStartOffset; at = this.content.indexOf(NEWLINE, at + 1)) {
      this.line++;
    }
    this.offset = lineStartOffset;
    return this.line;
  }
}

/** Every ASCII punctuation mark escaped: RE2 reads an escaped one as itself. */
function escapeLiteral(text: string): string {
  return text.replace(/[!-\/:-@\[-`{-~]/g, '\\$&');
}

/**
 * Finds the next line holding a match: `prefilter` (global, a required literal) finds candidate
 * lines, `verify` runs only on those, and as test(), several times cheaper than exec(), which
 * builds a result. Returns the prefilter's hit on the first verified line, or -1.
 */
function prefilteredLines(prefilter: RE2, verify: RE2): (content: Buffer) => (from: number) => number {
  return (content) => (from) => {
    for (let position = from; position < content.length; ) {
      prefilter.lastIndex = position;
      if (!prefilter.test(content)) return -1;
      const hit = prefilter.lastIndex - 1;
      const start = lineStart(content, hit);
      const end = lineEnd(content, hit);
      if (verify.test(content.subarray(start, end))) return hit;
      position = end + 1;
    }
    return -1;
  };
}
