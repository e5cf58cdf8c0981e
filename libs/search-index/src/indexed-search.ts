import { requestScope, searchWorkspace, type SearchRequest, type SearchResult, type SearchWorkspaceOptions } from '@quarry/search';
import { DEFAULT_MAX_FILE_BYTES } from '@quarry/search';
import type { IndexedCommit } from './indexed-commit';
import { planQuery } from './query-plan';

export type MaybeIndexedResult = SearchResult & { indexed: boolean };

/**
 * A search answered with the commit's index when the pattern has trigrams to look up: the
 * postings choose the candidate files, the cold search's own workers and matcher read and match
 * only those (so counts, hits and their order are the cold search's), and the files left out are
 * counted as the cold search would have counted them. `request.root` is a checkout of the commit.
 * Without trigrams (`\w+`, a two-letter word) it is the cold search, `indexed: false`.
 */
export async function searchIndexed(request: SearchRequest, commit: IndexedCommit | undefined, options: SearchWorkspaceOptions = {}): Promise<MaybeIndexedResult> {
  const { inScope, ignoreCase } = await requestScope(request);
  const trigrams = commit && planQuery(request.mode, request.pattern, ignoreCase);
  if (!commit || !trigrams) return { ...(await searchWorkspace(request, options)), indexed: false };
  // The scope as the request states it: equal keys, equal filters (equivalent spellings merely miss the cache).
  const scope = { key: JSON.stringify([request.directory ?? '', request.glob ?? '', request.hidden === true]), inScope };
  const candidates = commit.candidates(trigrams, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, scope);
  const result = await searchWorkspace(request, { ...options, files: candidates.read });
  result.filesSearched += candidates.notRead.text;
  result.skipped.binary += candidates.notRead.binary;
  result.skipped.tooLarge += candidates.notRead.tooLarge;
  return { ...result, indexed: true };
}
