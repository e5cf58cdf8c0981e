import { Code, isTrailingPunctuation, isWhitespace, lineEnd } from './chars';

/**
 * What an unquoted mention value may contain. All end at whitespace and at a closing bracket with
 * no opener inside the value, so `(see @a.ts)` and `[@a.ts](…)` stop before the bracket while
 * `@app/[id]/page.tsx` and `@url:https://en.wikipedia.org/wiki/Foo_(bar)` keep theirs.
 */
export type TokenStyle = 'path' | 'url' | 'pattern';

const TERMINATORS: Record<TokenStyle, readonly number[]> = {
  path: [Code.DoubleQuote, Code.SingleQuote, Code.Backtick, Code.Less, Code.Greater, Code.Pipe],
  url: [Code.DoubleQuote, Code.Backtick, Code.Less, Code.Greater],
  pattern: [Code.DoubleQuote, Code.SingleQuote, Code.Backtick],
};

const OPENERS = [Code.OpenParen, Code.OpenBracket, Code.OpenBrace];
const CLOSERS = [Code.CloseParen, Code.CloseBracket, Code.CloseBrace];

/** The end of the unquoted value starting at `from`. In patterns, `\` protects the next character (`\)`). */
export function tokenEnd(text: string, from: number, style: TokenStyle): number {
  const terminators = TERMINATORS[style];
  const depth = [0, 0, 0];
  let p = from;
  while (p < text.length) {
    const code = text.charCodeAt(p);
    if (isWhitespace(code) || terminators.includes(code)) break;
    if (style === 'pattern' && code === Code.Backslash && p + 1 < text.length && !isWhitespace(text.charCodeAt(p + 1))) {
      p += 2;
      continue;
    }
    const opener = OPENERS.indexOf(code as (typeof OPENERS)[number]);
    if (opener >= 0) depth[opener]++;
    const closer = CLOSERS.indexOf(code as (typeof CLOSERS)[number]);
    if (closer >= 0) {
      if (depth[closer] === 0) break;
      depth[closer]--;
    }
    p++;
  }
  return Math.min(p, text.length);
}

/**
 * Ends of the value `[from, end)` with trailing sentence punctuation dropped one character at a
 * time, longest first: `notes.md.` gives the ends of `notes.md.` and `notes.md`. A character
 * after a backslash is kept (`\.` in a pattern). The last end may equal `from` (nothing left).
 */
export function trimmedEnds(text: string, from: number, end: number): number[] {
  const ends = [end];
  let p = end;
  while (p > from && isTrailingPunctuation(text.charCodeAt(p - 1)) && !(p - 2 >= from && text.charCodeAt(p - 2) === Code.Backslash)) {
    p--;
    ends.push(p);
  }
  return ends;
}

export interface QuotedValue {
  closed: boolean;
  /** Index after the closing quote; for an unterminated value, the end of the line. */
  end: number;
  /** The text between the quotes, escapes still in place. */
  body: string;
}

/**
 * Reads `"…"` starting at the opening quote. `\"` and `\\` are consumed as pairs so an escaped
 * quote does not close the value. A value never crosses a line: one missing quote must not swallow
 * the rest of the prompt.
 */
export function readQuoted(text: string, quoteAt: number): QuotedValue {
  const stop = lineEnd(text, quoteAt + 1);
  let p = quoteAt + 1;
  while (p < stop) {
    const code = text.charCodeAt(p);
    if (code === Code.DoubleQuote) return { closed: true, end: p + 1, body: text.slice(quoteAt + 1, p) };
    if (code === Code.Backslash && p + 1 < stop) {
      const next = text.charCodeAt(p + 1);
      if (next === Code.DoubleQuote || next === Code.Backslash) {
        p += 2;
        continue;
      }
    }
    p++;
  }
  return { closed: false, end: stop, body: text.slice(quoteAt + 1, stop) };
}

/** A quoted path or search text: `\"` → `"`, `\\` → `\`; any other backslash is literal. */
export function unescapeLiteral(body: string): string {
  return body.includes('\\') ? body.replace(/\\(["\\])/g, '$1') : body;
}

/** A quoted regex: only `\"` → `"`; `\\` stays, since it already means a backslash to RE2. */
export function unescapeRegex(body: string): string {
  return body.includes('\\"') ? body.replace(/\\(["\\])/g, (pair, char: string) => (char === '"' ? '"' : pair)) : body;
}

/** Writes a path or search text as a quoted mention value, the inverse of `unescapeLiteral`. */
export function quoteLiteral(value: string): string {
  return `"${value.replace(/(["\\])/g, '\\$1')}"`;
}

/** Writes a regex as a quoted `@grep:` value (`"` → `\"`; RE2 reads `\"` as `"` anyway). */
export function quoteRegex(pattern: string): string {
  return `"${pattern.replace(/"/g, '\\"')}"`;
}
