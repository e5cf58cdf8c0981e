/** A line range as typed after `#L`: 1-based and inclusive; `end` undefined means "to the end of the file". */
export interface LineRange {
  start: number;
  end?: number;
}

export type Span = [start: number, end: number];

interface MentionBase {
  /** The mention exactly as written: `text.slice(span[0], span[1]) === raw`. */
  raw: string;
  span: Span;
}

export interface PathMention extends MentionBase {
  kind: 'path';
  /** The path as typed (quotes and escapes removed), trailing sentence punctuation dropped. */
  path: string;
  range?: LineRange;
  /** Written with a trailing slash (`@src/`). */
  directory: boolean;
  /**
   * Spellings for the loader to try, in order: the literal text first, then with trailing
   * sentence punctuation and unbalanced closing brackets dropped one by one; the last one is `path`.
   * `@notes.md.` → ['notes.md.', 'notes.md']. Only unquoted paths without a range have more than one.
   */
  candidates: string[];
  /** Unquoted, with no '/' and no '.' (`@alice`): the loader ignores it unless such a file exists. */
  bare: boolean;
}

export interface SearchMention extends MentionBase {
  kind: 'search';
  /** Literal text, searched case-insensitively. */
  query: string;
}

export interface GrepMention extends MentionBase {
  kind: 'grep';
  /** RE2 source, case-sensitive (inline `(?i)` allowed). Only `\"` is unescaped; other backslashes stay. */
  pattern: string;
}

export interface UrlMention extends MentionBase {
  kind: 'url';
  url: string;
}

export interface SymbolMention extends MentionBase {
  kind: 'symbol';
  /** The name as written (`Server.start`, `Ns::fn`), quotes and a trailing `()` removed: the loader looks it up. */
  symbol: string;
  /** Its last part: the name to define. */
  name: string;
  /** The part before it (`Server` in `Server.start`), when qualified. */
  container?: string;
}

export interface ReferencesMention extends MentionBase {
  kind: 'refs';
  /**
   * What the uses are of, quotes and a trailing `()` removed: a name (`Server.start`, `Ns::fn`), or
   * a place `path:line[:column]` — the definition on that line, or the one a use there names.
   */
  target: string;
  /** The target is a place, not a name. */
  place: boolean;
}

/**
 * `@codebase` (the name Continue's users know) or `@context:"task"`: the code task-aware retrieval
 * ranks for a task, within the prompt's budget.
 */
export interface ContextMention extends MentionBase {
  kind: 'context';
  /** The quoted task of `@context:"…"`; absent for `@codebase`, whose task is the prompt itself. */
  task?: string;
}

export type ParsedMention = PathMention | SearchMention | GrepMention | UrlMention | SymbolMention | ReferencesMention | ContextMention;
export type MentionKind = ParsedMention['kind'];

export type MentionSyntaxErrorKind = 'mention_invalid' | 'range_invalid' | 'pattern_invalid' | 'symbol_invalid' | 'task_empty' | 'task_too_large';

/** Something that was meant as a mention but cannot be used; never dropped silently. */
export interface MentionSyntaxError extends MentionBase {
  kind: MentionSyntaxErrorKind;
  message: string;
  suggestion?: string;
}

export interface ParseResult {
  /** In text order. */
  mentions: ParsedMention[];
  /** In text order. */
  errors: MentionSyntaxError[];
}
