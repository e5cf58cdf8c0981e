/**
 * @quarry/search — literal search and RE2 grep over a workspace, in worker threads, with match
 * caps and a time budget (the `@search:` and `@grep:` mentions).
 */
export type { SearchMode, SearchRequest, SearchMatch, SearchResult, SearchSkipped, SearchFunction } from './search-types';
export {
  searchWorkspace,
  resolveSearchScope,
  requestScope,
  scopeFilter,
  foldsCase,
  DEFAULT_MAX_MATCHES,
  DEFAULT_CONTEXT_LINES,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_MAX_FILE_BYTES,
  type SearchWorkspaceOptions,
} from './search-workspace';
export { validatePattern, compileUserRegex, MAX_PATTERN_LENGTH } from './pattern-rules';
export { formatMatches, type FormatOptions } from './format-matches';
export { requiredLiteral } from './required-literal';
export { SearchWorkerPool, sharedSearchPool, closeSharedSearchPool, MAX_POOL_SIZE } from './worker-pool';
export { answerSearch } from './search-answer';
