/**
 * The terms retrieval matches on, the same for code and for a task's text: every identifier
 * lower-cased whole (`solve_poly_system`), and, when it has several parts, its parts split on
 * snake_case, camelCase, digits and dots (`solve`, `poly`, `system`). Whole identifiers make an
 * exact name in a task count most; parts let prose ("poly system") meet code.
 */

export const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;
/** camelCase and acronym boundaries: `HTTPServerError` → HTTP, Server, Error; digits apart. */
const PART = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
const MAX_TERM_LENGTH = 64;
const LOWER_WORD = /^[a-z]+$/;

/**
 * Words too common in code or prose to say which code a task means. BM25's IDF would weigh them
 * near zero anyway; leaving them out keeps postings small (`self` is in every Python method).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    // English
    'a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its ' +
    'me my no not of on or our should so than that the their them then there these they this those to too us was we ' +
    'were what when where which while who why will with would you your also just like get got use used using want ' +
    // keywords and names of the indexed languages that say nothing about a place in the code
    'def self cls return none true false elif else import pass lambda yield try except finally raise with assert ' +
    'var let const function new typeof void null undefined this super extends implements public private protected ' +
    'static final int long char bool boolean string str float double byte unsigned struct func package fn mut pub ' +
    'impl use crate end begin then do args kwargs'
  ).split(' '),
);

/** The parts of one identifier, lower-cased (`parseURL2` → parse, url, 2; `snake_case` → snake, case). */
export function identifierParts(identifier: string): string[] {
  const parts: string[] = [];
  for (const piece of identifier.split(/[_.$]+/)) {
    for (const match of piece.matchAll(PART)) parts.push(match[0].toLowerCase());
  }
  return parts;
}

/**
 * Calls `emit` for each term of a text: the whole identifier, then its parts when it has more
 * than one. Stop words, one-letter parts and bare numbers are left out; `emit` gets the same term
 * again for each use, so counts are the caller's.
 */
export function forEachTerm(text: string, emit: (term: string, whole: boolean) => void): void {
  for (const match of text.matchAll(IDENTIFIER)) emitIdentifierTerms(match[0], emit);
}

/** A name as a whole-identifier term: lower-cased, outer underscores trimmed (`_Print_Helper` → `print_helper`). */
export function nameKey(name: string): string {
  return name.toLowerCase().replace(/^_+|_+$/g, '');
}

/** `whole` is true for the identifier itself (lower-cased, outer underscores trimmed), false for its parts. */
export function emitIdentifierTerms(identifier: string, emit: (term: string, whole: boolean) => void): void {
  if (identifier.length > MAX_TERM_LENGTH) return;
  // Most identifiers in code are one lower-case word (`int`, `return`, `len`): the term is the
  // identifier itself and it has no parts, so the splitting below would find nothing more.
  if (LOWER_WORD.test(identifier)) {
    if (isTerm(identifier)) emit(identifier, true);
    return;
  }
  const trimmed = nameKey(identifier);
  if (isTerm(trimmed)) emit(trimmed, true);
  const parts = identifierParts(identifier);
  if (parts.length < 2) return;
  for (const part of parts) if (part !== trimmed && isTerm(part)) emit(part, false);
}

function isTerm(term: string): boolean {
  return term.length >= 2 && !STOP_WORDS.has(term) && !/^[0-9]+$/.test(term);
}

/** Term counts of a text. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  forEachTerm(text, (term) => counts.set(term, (counts.get(term) ?? 0) + 1));
  return counts;
}

/** The terms of a path: its directories and file name split like identifiers (`src/_pytest/python.py` → pytest, python). */
export function pathTerms(path: string): string[] {
  const terms = new Set<string>();
  for (const segment of path.split('/')) {
    const withoutExtension = segment.replace(/\.[A-Za-z0-9]+$/, '');
    forEachTerm(withoutExtension.replace(/-/g, '_'), (term) => terms.add(term));
  }
  return [...terms];
}
