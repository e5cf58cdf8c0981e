import RE2 from 're2';
import { QuarryError } from '@quarry/contracts/errors';

/** A glob tests root-relative POSIX paths. */
export type PathMatcher = (relativePath: string) => boolean;

export interface GlobOptions {
  /** Match letters regardless of case (the fallback when an exact-case search finds nothing). */
  caseInsensitive?: boolean;
}

/** Longer patterns are refused: nobody types them, and they only make the matcher bigger. */
export const MAX_GLOB_LENGTH = 1_000;
/** Braces are translated recursively; deeper nesting than this is refused rather than recursed into. */
const MAX_BRACE_DEPTH = 10;
const GLOB_CHARACTERS = /[*?[\]{}]/;

/** True when `pattern` uses glob syntax; otherwise callers treat it as a plain name. */
export function isGlob(pattern: string): boolean {
  return GLOB_CHARACTERS.test(pattern);
}

/**
 * Compiles a glob into a matcher over root-relative POSIX paths:
 * - `*` any characters within one segment, `?` one character, `[abc]`, `[a-z]`, `[!abc]`/`[^abc]`;
 * - `**` as a whole segment: any number of segments, including none (`**\/a.ts` matches `a.ts`);
 * - `{a,b}` alternatives, nestable; `\x` the character x;
 * - a pattern without `/` matches the basename at any depth (`*.ts`), one with `/` matches the
 *   whole path from the start (`src/*.ts`); a leading `/` or `./` only anchors.
 * Wildcards match dotfiles too: a search for `*.env` should find `.env`-like names.
 *
 * The glob becomes an anchored regular expression. One with a single wildcard runs as a JavaScript
 * RegExp, which cannot backtrack more than linearly with only one unbounded repetition (and is
 * ~10× quicker to call than RE2); anything with more (`*a*b`, `**\/x*`) runs on RE2, which is
 * linear for any pattern, so no user glob can stall the event loop.
 */
export function compileGlob(pattern: string, options: GlobOptions = {}): PathMatcher {
  if (pattern.length === 0) throw invalidGlob(pattern, 'the pattern is empty');
  if (pattern.length > MAX_GLOB_LENGTH) throw invalidGlob(pattern, `it is longer than ${MAX_GLOB_LENGTH} characters`);

  const translation = new GlobTranslator(pattern, pattern.replace(/^\.?\/+/, '')).translate();
  const flags = options.caseInsensitive ? 'i' : '';
  const source = `^${translation.source}$`;
  // `u` so that `?` and classes take a whole code point, as RE2 does: an emoji is one character.
  const regex = translation.unboundedRepetitions <= 1 ? new RegExp(source, `${flags}u`) : new RE2(source, flags);
  if (pattern.includes('/')) return (relativePath: string) => regex.test(relativePath);
  return (relativePath: string) => regex.test(relativePath.slice(relativePath.lastIndexOf('/') + 1));
}

interface Translation {
  source: string;
  unboundedRepetitions: number;
}

/** One pass over the glob, character by character; braces recurse through `depth`. */
class GlobTranslator {
  private index = 0;
  private unboundedRepetitions = 0;

  constructor(
    private readonly pattern: string,
    private readonly text: string,
  ) {}

  translate(): Translation {
    const source = this.sequence(0, false);
    return { source, unboundedRepetitions: this.unboundedRepetitions };
  }

  /** Translates up to the end, or (inside braces) up to the `,` or `}` that ends this alternative. */
  private sequence(depth: number, inBraces: boolean): string {
    let source = '';
    while (this.index < this.text.length) {
      const character = this.text[this.index];
      if (inBraces && (character === ',' || character === '}')) return source;
      if (character === '*') source += this.star();
      else if (character === '?') {
        source += '[^/]';
        this.index++;
      } else if (character === '[') source += this.characterClass();
      else if (character === '{') source += this.braces(depth);
      else if (character === '\\' && this.index + 1 < this.text.length) {
        source += escapeRegex(this.text[this.index + 1]);
        this.index += 2;
      } else {
        if (character === '}' || character === ']') throw invalidGlob(this.pattern, `"${character}" has no opening "${character === '}' ? '{' : '['}"`);
        source += escapeRegex(character);
        this.index++;
      }
    }
    if (inBraces) throw invalidGlob(this.pattern, 'a "{" is never closed');
    return source;
  }

  private star(): string {
    const start = this.index;
    while (this.text[this.index] === '*') this.index++;
    this.unboundedRepetitions++;
    const isWholeSegment = this.index - start >= 2 && (start === 0 || this.text[start - 1] === '/');
    if (!isWholeSegment) return '[^/]*';
    if (this.text[this.index] === '/') {
      this.index++;
      return '(?:.*/)?';
    }
    if (this.index === this.text.length) return '.*';
    return '[^/]*';
  }

  private characterClass(): string {
    const start = this.index;
    let cursor = start + 1;
    let negated = false;
    if (this.text[cursor] === '!' || this.text[cursor] === '^') {
      negated = true;
      cursor++;
    }
    let members = '';
    // A `]` right after the opening is a member, as in shells.
    if (this.text[cursor] === ']') {
      members += '\\]';
      cursor++;
    }
    for (; cursor < this.text.length && this.text[cursor] !== ']'; cursor++) {
      const character = this.text[cursor];
      if (character === '\\' && cursor + 1 < this.text.length) {
        members += escapeClassMember(this.text[++cursor]);
      } else if (character === '-') {
        members += '-';
      } else {
        members += escapeClassMember(character);
      }
    }
    if (cursor >= this.text.length) throw invalidGlob(this.pattern, 'a "[" is never closed');
    if (members === '') throw invalidGlob(this.pattern, '"[]" is an empty character class');
    this.index = cursor + 1;
    // A class never matches the separator: `[!a]` is one character of one segment.
    return negated ? `[^/${members}]` : `[${members}]`;
  }

  private braces(depth: number): string {
    if (depth >= MAX_BRACE_DEPTH) throw invalidGlob(this.pattern, `braces are nested more than ${MAX_BRACE_DEPTH} deep`);
    this.index++;
    const alternatives: string[] = [];
    for (;;) {
      alternatives.push(this.sequence(depth + 1, true));
      const closing = this.text[this.index];
      this.index++;
      if (closing === '}') break;
    }
    return `(?:${alternatives.join('|')})`;
  }
}

function escapeRegex(character: string): string {
  return /[\\^$.*+?()[\]{}|]/.test(character) ? `\\${character}` : character;
}

function escapeClassMember(character: string): string {
  return /[\\\]^[-]/.test(character) ? `\\${character}` : character;
}

function invalidGlob(pattern: string, reason: string): QuarryError {
  return new QuarryError('pattern_invalid', `Invalid glob "${pattern}": ${reason}.`, {
    suggestion: 'Use * (within a name), ** (across directories), ?, [abc] and {a,b}; escape a literal with \\.',
  });
}
