/** `literal`: case-insensitive substring. `regex`: RE2 syntax, case-sensitive, inline `(?i)` allowed. */
export type SearchMode = 'literal' | 'regex';

export interface SearchRequest {
  /** Absolute real path of the workspace, already validated by the caller (resolveWorkspaceRoot). */
  root: string;
  mode: SearchMode;
  /** Non-empty, at most MAX_PATTERN_LENGTH characters. */
  pattern: string;
  /** Root-relative POSIX sub-directory to search in; must stay inside the root. */
  directory?: string;
  /** File filter: `*.ts` (any depth, matched on the name) or `src/**\/*.tsx` (matched on the root-relative path). */
  glob?: string;
  /** Matches returned with their text and context (default 50); every match is still counted. */
  maxMatches?: number;
  /** Lines of context before and after each match (default 2). */
  contextLines?: number;
  /** Time budget for the whole search, walk included (default 10 s); past it the partial result comes back. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface SearchMatch {
  /** Root-relative POSIX path. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** 1-based column of the first match on the line, in UTF-16 code units of `text`. */
  column: number;
  /** The matching line without its line terminator (long lines are shortened around the match). */
  text: string;
  before: string[];
  after: string[];
}

export interface SearchSkipped {
  /** A NUL byte in the first 8 KB, as ripgrep and git decide. */
  binary: number;
  /** Over the per-file size cap. */
  tooLarge: number;
  /** Gone, unreadable or no longer a regular file since the walk listed it. */
  unreadable: number;
}

export interface SearchResult {
  /** The first `maxMatches` matches by path, then line. */
  matches: SearchMatch[];
  /** Matching lines in every searched file (one per line, like `rg -c`). */
  totalMatches: number;
  filesSearched: number;
  filesMatched: number;
  skipped: SearchSkipped;
  /** More matches were counted than are returned. */
  truncated: boolean;
  /** The time budget ran out: the counts cover only the files searched before it did. */
  timedOut: boolean;
  elapsedMs: number;
}
