/**
 * @quarry/mentions — `@file#L10-20`, `@dir/`, `@search:"…"`, `@grep:"…"`, `@url:…`, `@symbol:…`,
 * `@context:"…"` and `@codebase` in a prompt: parsed with spans, loaded safely, and injected into an augmented prompt within a budget.
 */
export * from './parse';
export * from './augment';
export { loadMentions, formatListing, DEFAULT_MAX_URLS, type FetchedPage, type LoadOptions, type LoadedMention, type UrlFetcher } from './load/load-mentions';
export { promptTaskOf, type ContextRetriever, type ContextRetrievalRequest } from './load/load-context';
export { expandMentions, summarizeMentions, type ExpandRequest, type MentionsResult } from './expand-mentions';
