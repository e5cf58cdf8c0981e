/**
 * The string literals of a source text that a task may quote: error and warning messages, option
 * names. Found with a quote scanner rather than a parse, the same for every language with C-like
 * or Python strings: `'…'`, `"…"`, `` `…` ``, `'''…'''`, `"""…"""`, escapes honoured.
 */

export interface StringLiteral {
  /** 1-based line where the literal starts. */
  line: number;
  /** The literal's words (lower-cased letters, digits and `_`) per fixed fragment, placeholders (`%s`, `{}`, `${x}`) splitting fragments. */
  fragments: string[][];
}

/** Messages are short; a longer literal is a docstring or a template, not what a task quotes. */
const MAX_LITERAL_CHARACTERS = 400;
/** A message names a place when it has this many fixed words; fewer match too much by chance. */
export const MIN_LITERAL_WORDS = 4;
const MAX_LITERALS_PER_BLOB = 4000;
/** Four words take at least this many characters ("a is not b"). */
const MIN_MESSAGE_CHARACTERS = 10;
const PLACEHOLDER = /%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifgexXoc%]|\{[^{}]{0,40}\}|\$\{[^}]{0,80}\}|\\[nrt]/g;
const WORD = /[A-Za-z0-9_]+/g;
/** Command-line options in literals (`"--collect-only"`) are matched whole, as the task writes them. */
const OPTION = /^--?[A-Za-z][A-Za-z0-9-]{2,}$/;

export interface LiteralScan {
  messages: StringLiteral[];
  /** Option names (`--collect-only`), lower-cased, with their lines. */
  options: [option: string, line: number][];
}

/** What can start a literal or a comment; everything else is skipped by one regex search. */
const INTERESTING = /["'`#/]/g;

export function scanStringLiterals(text: string): LiteralScan {
  const messages: StringLiteral[] = [];
  const options: [string, number][] = [];
  let line = 1;
  // Lines are counted lazily: newlines between where the count stands and where a literal starts.
  let counted = 0;
  const lineAt = (position: number) => {
    for (let next = text.indexOf('\n', counted); next !== -1 && next < position; next = text.indexOf('\n', next + 1)) line++;
    counted = Math.max(counted, position);
    return line;
  };
  const length = text.length;
  const search = new RegExp(INTERESTING.source, 'g');
  let index = 0;
  while (index < length && messages.length < MAX_LITERALS_PER_BLOB) {
    search.lastIndex = index;
    const found = search.exec(text);
    if (found === null) break;
    index = found.index;
    const char = text[index];
    if (char === '#') {
      index = lineCommentStarts(text, index) ? skipToLineEnd(text, index) : index + 1;
      continue;
    }
    if (char === '/') {
      index = text.charCodeAt(index + 1) === 47 ? skipToLineEnd(text, index) : index + 1;
      continue;
    }
    // A quote in an identifier is an apostrophe (Rust lifetimes, `don't` in a comment we did not skip).
    if (char === "'" && index > 0 && /[A-Za-z0-9]/.test(text[index - 1]) && !/[rbfuRBFU]/.test(text[index - 1])) {
      index++;
      continue;
    }
    const triple = text.startsWith(char.repeat(3), index);
    const quote = triple ? char.repeat(3) : char;
    const start = index + quote.length;
    const startLine = lineAt(index);
    const multiline = triple || char === '`';
    let end = start;
    // Jump from one quote, backslash or newline to the next.
    while (end < length) {
      const next = nextOf(text, end, char);
      if (next === -1) {
        end = length;
        break;
      }
      const current = text.charCodeAt(next);
      if (current === 92) {
        end = next + 2;
        continue;
      }
      if (current === 10) {
        end = next;
        if (!multiline) break; // an unclosed quote ends at the line's end
        end = next + 1;
        continue;
      }
      if (text.startsWith(quote, next)) {
        end = next;
        break;
      }
      end = next + 1;
    }
    const content = text.slice(start, Math.min(end, length));
    index = end < length && text.startsWith(quote, end) ? end + quote.length : end;
    if (content.length > MAX_LITERAL_CHARACTERS || content.length < 4) continue;
    const trimmed = content.trim();
    if (OPTION.test(trimmed)) {
      options.push([trimmed.toLowerCase(), startLine]);
      continue;
    }
    if (content.length < MIN_MESSAGE_CHARACTERS) continue;
    const fragments = messageFragments(content);
    if (fragments.reduce((sum, words) => sum + words.length, 0) >= MIN_LITERAL_WORDS) messages.push({ line: startLine, fragments });
  }
  return { messages, options };
}

const STOPS: Record<string, RegExp> = { '"': /["\\\n]/g, "'": /['\\\n]/g, '`': /[`\\\n]/g };

/** The next position at or after `from` holding the quote character, a backslash or a newline. */
function nextOf(text: string, from: number, quote: string): number {
  const stop = STOPS[quote];
  stop.lastIndex = from;
  return stop.exec(text)?.index ?? -1;
}

/** The fixed words of a message, split where a value is formatted in. */
export function messageFragments(content: string): string[][] {
  const fragments: string[][] = [];
  for (const piece of content.split(PLACEHOLDER)) {
    const words = [...piece.matchAll(WORD)].map((match) => match[0].toLowerCase());
    if (words.length > 0) fragments.push(words);
  }
  return fragments;
}

/** `#` starts a comment in Python, Ruby, shell; not inside C's `#include` (a directive, with no strings we need). */
function lineCommentStarts(text: string, index: number): boolean {
  const before = text.lastIndexOf('\n', index - 1);
  return text.slice(before + 1, index).trim() === '' ? !/^#\s*(include|define|if|ifdef|ifndef|endif|else|pragma|undef|error)\b/.test(text.slice(index, index + 12)) : /\s/.test(text[index - 1] ?? ' ');
}

function skipToLineEnd(text: string, index: number): number {
  const end = text.indexOf('\n', index);
  return end === -1 ? text.length : end;
}
