import { parseOrThrow, searchInputSchema, type SearchAnswer, type SearchInput } from '@quarry/contracts';
import { searchWorkspace, type SearchWorkspaceOptions } from './search-workspace';
import type { SearchFunction, SearchResult } from './search-types';

/**
 * `POST /v1/search` and `quarry search`: the input checked (typed errors: input_invalid,
 * pattern_invalid, regex_invalid, path_outside_root), the search run over `root` (a real path
 * the caller already admitted), the answer in the contract's shape.
 */
export async function answerSearch(
  root: string,
  rawInput: SearchInput,
  options: SearchWorkspaceOptions & { timeoutMs?: number; signal?: AbortSignal; search?: SearchFunction } = {},
): Promise<SearchAnswer> {
  const input = parseOrThrow(searchInputSchema, rawInput);
  const { timeoutMs, signal, search, ...workspaceOptions } = options;
  const result = await (search ?? searchWorkspace)(
    {
      root,
      mode: input.regex ? 'regex' : 'literal',
      pattern: input.pattern,
      caseSensitivity: input.case,
      glob: input.path,
      directory: input.directory,
      hidden: input.hidden,
      maxMatches: input.maxResults,
      contextLines: input.contextLines,
      countsPerFile: input.counts,
      timeoutMs,
      signal,
    },
    workspaceOptions,
  );
  return toAnswer(result, input.contextLines > 0);
}

function toAnswer(result: SearchResult & { indexed?: boolean }, withContext: boolean): SearchAnswer {
  return {
    total: result.totalMatches,
    files: result.filesMatched,
    indexed: result.indexed === true,
    filesSearched: result.filesSearched,
    skipped: result.skipped,
    timedOut: result.timedOut,
    truncated: result.truncated,
    ignoreCase: result.ignoreCase,
    hits: result.matches.map(({ path, line, column, text, before, after }) => (withContext ? { path, line, column, text, before, after } : { path, line, column, text })),
    ...(result.fileCounts ? { counts: result.fileCounts } : {}),
    elapsedMs: Math.round(result.elapsedMs),
  };
}
