import { CONTEXT_TASK_MAX_BYTES, closestMatch, isQuarryError } from '@quarry/contracts';
import { parseSymbolQuery } from '@quarry/code-index';
import { Code, isAsciiLetter, isDigit, isSmartDoubleQuote, isWhitespace, lineEnd } from './chars';
import { parseLineRange } from './line-range';
import { readQuoted, tokenEnd, trimmedEnds, unescapeLiteral, unescapeRegex } from './tokens';
import type { MentionSyntaxError, MentionSyntaxErrorKind, ParseResult, Span } from './types';

/** Longest `@search:`/`@grep:` pattern accepted, in characters (the search library enforces the same cap). */
export const MAX_PATTERN_LENGTH = 1000;

export const MENTION_PREFIXES = ['search', 'grep', 'url', 'symbol', 'refs', 'context'] as const;
type PatternPrefix = 'search' | 'grep';

const MENTION_FORMS = '@path, @"path with spaces", @path#L10-20, @search:"text", @grep:"regex", @url:https://…, @symbol:Name, @refs:Name, @context:"task" and @codebase';

/** `@codebase` (any case) is retrieval for the prompt, not a file: `@./codebase` or `@"codebase"` mention a file of that name. */
const CODEBASE = /^codebase$/i;

/**
 * Reads the mention whose `@` is at `at` (already known to be in a position where a mention may
 * start), records it or its error in `out`, and returns where scanning resumes. An `@` that does not
 * begin a mention (`@ 5pm`, `@...`) records nothing.
 */
export function readMention(text: string, at: number, out: ParseResult): number {
  const valueAt = at + 1;
  if (valueAt >= text.length) return valueAt;
  const code = text.charCodeAt(valueAt);
  if (code === Code.DoubleQuote) return readQuotedPath(text, at, out);
  if (isSmartDoubleQuote(code)) return reportWrongQuotes(text, at, valueAt, out);
  const colon = prefixColon(text, valueAt);
  if (colon >= 0) {
    const end = readPrefixed(text, at, text.slice(valueAt, colon), colon + 1, out);
    if (end !== undefined) return end;
  }
  return readUnquotedPath(text, at, out);
}

// ── paths ────────────────────────────────────────────────────────────────────────────────────

function readUnquotedPath(text: string, at: number, out: ParseResult): number {
  const from = at + 1;
  const first = text.charCodeAt(from);
  if (isWhitespace(first) || first === Code.At || first === Code.Hash) return from;
  const end = tokenEnd(text, from, 'path');
  const hash = rangeHashIndex(text, from, end);
  if (hash >= 0) return readRange(text, at, text.slice(from, hash), false, hash, end, out);
  const ends = trimmedEnds(text, from, end);
  const last = ends[ends.length - 1];
  if (last === from) return Math.max(end, from);
  const path = text.slice(from, last);
  if (CODEBASE.test(path)) {
    out.mentions.push({ kind: 'context', raw: text.slice(at, last), span: [at, last] });
    return last;
  }
  out.mentions.push({
    kind: 'path',
    raw: text.slice(at, last),
    span: [at, last],
    path,
    directory: path.endsWith('/'),
    candidates: ends.map((candidateEnd) => text.slice(from, candidateEnd)),
    bare: !path.includes('/') && !path.includes('.'),
  });
  return last;
}

function readQuotedPath(text: string, at: number, out: ParseResult): number {
  const quoted = readQuoted(text, at + 1);
  if (!quoted.closed) return reportUnterminated(text, at, quoted.end, out);
  const path = unescapeLiteral(quoted.body);
  if (!path) {
    return report(out, 'mention_invalid', text, [at, quoted.end], 'Empty quoted path', 'Put the path between the quotes, e.g. @"docs/my notes.md"');
  }
  if (startsRange(text, quoted.end)) return readRange(text, at, path, true, quoted.end, tokenEnd(text, quoted.end + 1, 'path'), out);
  out.mentions.push({
    kind: 'path',
    raw: text.slice(at, quoted.end),
    span: [at, quoted.end],
    path,
    directory: path.endsWith('/'),
    candidates: [path],
    bare: false,
  });
  return quoted.end;
}

/** A `#` followed by `L`, `l` or a digit starts a line range; any other `#` belongs to the path (`@c#/`). */
function startsRange(text: string, hash: number): boolean {
  if (text.charCodeAt(hash) !== Code.Hash) return false;
  const next = text.charCodeAt(hash + 1);
  return next === 76 /* L */ || next === 108 /* l */ || isDigit(next);
}

function rangeHashIndex(text: string, from: number, end: number): number {
  for (let hash = text.indexOf('#', from); hash >= 0 && hash < end; hash = text.indexOf('#', hash + 1)) {
    if (startsRange(text, hash)) return hash;
  }
  return -1;
}

/** The mention `@<path>#<range>` where `#` is at `hash` and the range text runs to `tokenStop` (trailing punctuation dropped). */
function readRange(text: string, at: number, path: string, quoted: boolean, hash: number, tokenStop: number, out: ParseResult): number {
  const ends = trimmedEnds(text, hash + 1, tokenStop);
  const end = ends[ends.length - 1];
  const head = text.slice(at, hash);
  if (path.endsWith('/')) {
    return report(out, 'range_invalid', text, [at, end], `${head} is a directory: it has no lines to select`, `Mention the directory as ${head}, or a file in it with a range`);
  }
  const parsed = parseLineRange(text.slice(hash + 1, end), head);
  if ('message' in parsed) return report(out, 'range_invalid', text, [at, end], parsed.message, parsed.suggestion);
  out.mentions.push({
    kind: 'path',
    raw: text.slice(at, end),
    span: [at, end],
    path,
    range: parsed.range,
    directory: false,
    candidates: [path],
    bare: !quoted && !path.includes('/') && !path.includes('.'),
  });
  return end;
}

// ── prefixed mentions ────────────────────────────────────────────────────────────────────────

/** Index of the `:` ending a word like `search` right after the `@`, or -1. */
function prefixColon(text: string, from: number): number {
  if (!isAsciiLetter(text.charCodeAt(from))) return -1;
  let p = from + 1;
  while (p < text.length) {
    const code = text.charCodeAt(p);
    if (!(isAsciiLetter(code) || isDigit(code) || code === 95 /* _ */ || code === 45 /* - */)) break;
    p++;
  }
  return text.charCodeAt(p) === Code.Colon ? p : -1;
}

/**
 * `@<name>:<value>`. Returns undefined when `name:` is not meant as a prefix after all, so the
 * caller reads a path instead (`@bob: hi`, `@C:notes` are paths for the loader to judge).
 */
function readPrefixed(text: string, at: number, name: string, valueAt: number, out: ParseResult): number | undefined {
  if (name === 'search' || name === 'grep') return readPattern(text, at, name, valueAt, out);
  if (name === 'url') return readUrl(text, at, valueAt, out);
  if (name === 'symbol' || name === 'refs') return readSymbol(text, at, valueAt, out, name);
  if (name === 'context') return readContextTask(text, at, valueAt, out);
  const lower = name.toLowerCase();
  if ((lower === 'http' || lower === 'https') && text.startsWith('//', valueAt)) {
    const end = lastTrimmedEnd(text, at + 1, tokenEnd(text, at + 1, 'url'));
    return report(out, 'mention_invalid', text, [at, end], 'A web page is mentioned with @url:', `Did you mean @url:${text.slice(at + 1, end)}?`);
  }
  const next = text.charCodeAt(valueAt);
  const quoted = next === Code.DoubleQuote || isSmartDoubleQuote(next);
  const known = closestMatch(name, MENTION_PREFIXES);
  if (!quoted && !(known && valueAt < text.length && !isWhitespace(next))) return undefined;
  const end = quoted ? quotedEnd(text, valueAt) : lastTrimmedEnd(text, valueAt, tokenEnd(text, valueAt, 'pattern'));
  const value = text.slice(valueAt, end);
  const message = known && known === lower ? `Mention prefixes are lowercase: @${name}:` : `Unknown mention prefix @${name}:`;
  const suggestion = known
    ? `Did you mean @${known}:${value}?`
    : `Mentions are ${MENTION_FORMS}. For a file whose name has a colon, quote it: @"${name}:${value.replace(/^"|"$/g, '')}"`;
  return report(out, 'mention_invalid', text, [at, end], message, suggestion);
}

function readPattern(text: string, at: number, prefix: PatternPrefix, valueAt: number, out: ParseResult): number {
  const what = prefix === 'search' ? 'text to search for' : 'regular expression';
  const next = text.charCodeAt(valueAt);
  if (valueAt >= text.length || isWhitespace(next)) {
    return report(out, 'pattern_invalid', text, [at, valueAt], `@${prefix}: has no pattern`, `Put the ${what} right after the colon, in quotes: @${prefix}:"${prefix === 'search' ? 'TODO' : 'TODO\\(\\w+\\)'}"`);
  }
  if (isSmartDoubleQuote(next) || next === Code.SingleQuote) return reportWrongQuotes(text, at, valueAt, out);
  let end: number;
  let pattern: string;
  if (next === Code.DoubleQuote) {
    const quoted = readQuoted(text, valueAt);
    if (!quoted.closed) return reportUnterminated(text, at, quoted.end, out);
    end = quoted.end;
    pattern = prefix === 'grep' ? unescapeRegex(quoted.body) : unescapeLiteral(quoted.body);
  } else {
    end = lastTrimmedEnd(text, valueAt, tokenEnd(text, valueAt, 'pattern'));
    pattern = text.slice(valueAt, end);
  }
  if (!pattern) return report(out, 'pattern_invalid', text, [at, end], `Empty @${prefix}: pattern`, `Put the ${what} between the quotes, e.g. @${prefix}:"TODO"`);
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return report(out, 'pattern_invalid', text, [at, end], `The @${prefix}: pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}`, 'Search for a shorter, distinctive part of it');
  }
  const raw = text.slice(at, end);
  const span: Span = [at, end];
  out.mentions.push(prefix === 'search' ? { kind: 'search', raw, span, query: pattern } : { kind: 'grep', raw, span, pattern });
  return end;
}

function readUrl(text: string, at: number, valueAt: number, out: ParseResult): number {
  const next = text.charCodeAt(valueAt);
  if (valueAt >= text.length || isWhitespace(next)) {
    return report(out, 'mention_invalid', text, [at, valueAt], '@url: has no address', 'Write the address right after the colon, e.g. @url:https://example.com/page');
  }
  if (isSmartDoubleQuote(next)) return reportWrongQuotes(text, at, valueAt, out);
  let end: number;
  let url: string;
  if (next === Code.DoubleQuote) {
    const quoted = readQuoted(text, valueAt);
    if (!quoted.closed) return reportUnterminated(text, at, quoted.end, out);
    end = quoted.end;
    url = unescapeLiteral(quoted.body).trim();
  } else {
    end = lastTrimmedEnd(text, valueAt, tokenEnd(text, valueAt, 'url'));
    url = text.slice(valueAt, end);
  }
  const problem = urlProblem(url);
  if (problem) return report(out, 'mention_invalid', text, [at, end], problem.message, problem.suggestion);
  out.mentions.push({ kind: 'url', raw: text.slice(at, end), span: [at, end], url });
  return end;
}

/**
 * `@symbol:Name`, `@symbol:Class.method`, `@symbol:"Ns::fn"`; a trailing `()` is allowed
 * (`@symbol:start()`). `@refs:` takes the same names, and also a place (`@refs:src/app.ts:12`).
 * The name's syntax is checked here (`symbol_invalid`); whether it is defined is the loader's
 * question.
 */
function readSymbol(text: string, at: number, valueAt: number, out: ParseResult, prefix: 'symbol' | 'refs'): number {
  const next = text.charCodeAt(valueAt);
  if (valueAt >= text.length || isWhitespace(next)) {
    return report(out, 'symbol_invalid', text, [at, valueAt], `@${prefix}: has no name`, `Write the name right after the colon, e.g. @${prefix}:parseMentions or @${prefix}:Server.start`);
  }
  if (isSmartDoubleQuote(next) || next === Code.SingleQuote) return reportWrongQuotes(text, at, valueAt, out);
  let end: number;
  let value: string;
  if (next === Code.DoubleQuote) {
    const quoted = readQuoted(text, valueAt);
    if (!quoted.closed) return reportUnterminated(text, at, quoted.end, out);
    end = quoted.end;
    value = unescapeLiteral(quoted.body).trim();
  } else {
    end = lastTrimmedEnd(text, valueAt, tokenEnd(text, valueAt, 'path'));
    value = text.slice(valueAt, end);
  }
  const symbol = value.endsWith('()') ? value.slice(0, -2) : value;
  const raw = text.slice(at, end);
  const span: Span = [at, end];
  if (prefix === 'refs' && PLACE.test(symbol)) {
    out.mentions.push({ kind: 'refs', raw, span, target: symbol, place: true });
    return end;
  }
  try {
    const query = parseSymbolQuery(symbol);
    if (prefix === 'refs') out.mentions.push({ kind: 'refs', raw, span, target: symbol, place: false });
    else out.mentions.push({ kind: 'symbol', raw, span, symbol, name: query.name, ...(query.container === undefined ? {} : { container: query.container }) });
  } catch (error) {
    if (!isQuarryError(error)) throw error;
    // The name rules are written for @symbol:; the same hold for @refs:.
    const reword = (message: string) => message.replaceAll('@symbol:', `@${prefix}:`);
    return report(out, 'symbol_invalid', text, span, reword(error.message), reword(error.suggestion ?? 'e.g. @symbol:Server.start'));
  }
  return end;
}

/** A place in a file, `path:line[:column]`: the path has a `/` or an extension. */
const PLACE = /^[^:\s]*(?:\/|\.\w+)[^:\s]*:\d+(?::\d+)?$/;

/**
 * `@context:"where is rate limiting handled?"`: the task retrieval ranks code for, quoted (one
 * unquoted word is taken too, as for @search:). Emptiness and the 64 KiB cap are checked here
 * (`task_empty`, `task_too_large`), with the retrieval's own limit.
 */
function readContextTask(text: string, at: number, valueAt: number, out: ParseResult): number {
  const next = text.charCodeAt(valueAt);
  const example = '@context:"where is rate limiting handled?"';
  if (valueAt >= text.length || isWhitespace(next)) {
    return report(out, 'task_empty', text, [at, valueAt], '@context: has no task', `Put the task in quotes right after the colon, e.g. ${example}, or write @codebase to use the prompt itself`);
  }
  if (isSmartDoubleQuote(next) || next === Code.SingleQuote) return reportWrongQuotes(text, at, valueAt, out);
  let end: number;
  let task: string;
  if (next === Code.DoubleQuote) {
    const quoted = readQuoted(text, valueAt);
    if (!quoted.closed) return reportUnterminated(text, at, quoted.end, out);
    end = quoted.end;
    task = unescapeLiteral(quoted.body).trim();
  } else {
    end = lastTrimmedEnd(text, valueAt, tokenEnd(text, valueAt, 'pattern'));
    task = text.slice(valueAt, end);
  }
  if (!task) return report(out, 'task_empty', text, [at, end], 'Empty @context: task', `Put the task between the quotes, e.g. ${example}`);
  const bytes = Buffer.byteLength(task);
  if (bytes > CONTEXT_TASK_MAX_BYTES) {
    return report(out, 'task_too_large', text, [at, end], `The @context: task is ${bytes.toLocaleString('en-US')} bytes; at most ${CONTEXT_TASK_MAX_BYTES.toLocaleString('en-US')} (64 KiB) are read`, 'Keep the sentence that says what is wrong or wanted, with the names and the error message');
  }
  out.mentions.push({ kind: 'context', raw: text.slice(at, end), span: [at, end], task });
  return end;
}

/**
 * Only what the parser can judge: a scheme, http or https, and a URL that parses. Everything else
 * (hosts, ports, addresses) is the fetcher's gate.
 */
function urlProblem(url: string): { message: string; suggestion: string } | undefined {
  if (!url) return { message: '@url: has no address', suggestion: 'Write the address between the quotes, e.g. @url:"https://example.com/page"' };
  const separator = url.indexOf('://');
  const scheme = separator > 0 ? url.slice(0, separator) : /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(url)?.[1];
  if (scheme === undefined) return { message: `"${url}" has no scheme`, suggestion: `Did you mean @url:https://${url}?` };
  if (!/^https?$/i.test(scheme)) return { message: `Only http and https addresses can be fetched, not ${scheme}:`, suggestion: 'Mention a web page as @url:https://…' };
  try {
    if (new URL(url).hostname) return undefined;
  } catch {
    // falls through to the error below
  }
  return { message: `"${url}" is not a valid URL`, suggestion: 'Check the address, e.g. @url:https://example.com/page' };
}

// ── errors ───────────────────────────────────────────────────────────────────────────────────

function reportUnterminated(text: string, at: number, end: number, out: ParseResult): number {
  const raw = text.slice(at, end);
  return report(out, 'mention_invalid', text, [at, end], `Unterminated quote in ${raw}`, `Close the quote: ${raw}"`);
}

/** `@search:'x'`, `@“my file.md”`: only straight double quotes delimit values. */
function reportWrongQuotes(text: string, at: number, quoteAt: number, out: ParseResult): number {
  const closer = matchingWrongQuote(text, quoteAt);
  const end = closer >= 0 ? closer + 1 : lastTrimmedEnd(text, quoteAt + 1, tokenEnd(text, quoteAt + 1, 'pattern'));
  const body = text.slice(quoteAt + 1, closer >= 0 ? closer : end);
  const head = text.slice(at, quoteAt);
  return report(out, 'mention_invalid', text, [at, Math.max(end, quoteAt + 1)], 'Mention values are quoted with straight double quotes (")', `Did you mean ${head}"${body.replace(/"/g, '\\"')}"?`);
}

function matchingWrongQuote(text: string, quoteAt: number): number {
  const single = text.charCodeAt(quoteAt) === Code.SingleQuote;
  const stop = lineEnd(text, quoteAt + 1);
  for (let p = quoteAt + 1; p < stop; p++) {
    const code = text.charCodeAt(p);
    if (single ? code === Code.SingleQuote : isSmartDoubleQuote(code) || code === Code.DoubleQuote) return p;
  }
  return -1;
}

function quotedEnd(text: string, quoteAt: number): number {
  if (text.charCodeAt(quoteAt) === Code.DoubleQuote) return readQuoted(text, quoteAt).end;
  const closer = matchingWrongQuote(text, quoteAt);
  return closer >= 0 ? closer + 1 : lineEnd(text, quoteAt);
}

function lastTrimmedEnd(text: string, from: number, end: number): number {
  const ends = trimmedEnds(text, from, end);
  const last = ends[ends.length - 1];
  return last > from ? last : end;
}

function report(out: ParseResult, kind: MentionSyntaxErrorKind, text: string, span: Span, message: string, suggestion: string): number {
  const error: MentionSyntaxError = { kind, raw: text.slice(span[0], span[1]), span, message, suggestion };
  out.errors.push(error);
  return span[1];
}
