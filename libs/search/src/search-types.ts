/** `literal`: a fixed string (`rg -F`). `regex`: RE2 syntax, inline `(?i)` allowed. */
export type SearchMode = 'literal' | 'regex';

/**
 * `sensitive` as `rg`, `insensitive` as `rg -i`, `smart` as `rg -S`: insensitive unless the
 * pattern has an upper-case letter. Default: insensitive for literals, sensitive for regexes.
 */
export type CaseSensitivity = 'sensitive' | 'insensitive' | 'smart';

export interface SearchRequest {
  /** Absolute real path of the workspace, already validated by the caller (resolveWorkspaceRoot). */
  root: string;
  mode: SearchMode;
  /** Non-empty, at most MAX_PATTERN_LENGTH characters. */
  pattern: string;
  caseSensitivity?: CaseSensitivity;
  /** Search hidden files and directories (names starting with a dot) too, as `rg --hidden`. Default false, as rg. */
  hidden?: boolean;
  /** Also return the count of every matching file (`fileCounts`), as `rg -c` prints them. */
  countsPerFile?: boolean;
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
  /**
   * A NUL byte in the file, as ripgrep decides (it searches none of a file with one): found in
   * the first 8 KB of every file, and anywhere in a file with matches (whose matches are dropped).
   */
  binary: number;
  /** Over the per-file size cap (`maxFileBytes`, 64 MiB by default). */
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
  /** Whether the search folded case (the request's `caseSensitivity` applied to its pattern). */
  ignoreCase: boolean;
  /** With `countsPerFile`: every matching file and its matching lines, by path. */
  fileCounts?: FileCount[];
  elapsedMs: number;
}

/**
 * How a caller searches a workspace: `searchWorkspace` (reads every file in scope), or a
 * commit's index (@quarry/search-index) that reads only candidate files and says so in `indexed`.
 * Both give the same counts and hits.
 */
export type SearchFunction = (request: SearchRequest, options?: { maxFileBytes?: number }) => Promise<SearchResult & { indexed?: boolean }>;

export interface FileCount {
  path: string;
  /** Matching lines in the file. */
  count: number;
}
