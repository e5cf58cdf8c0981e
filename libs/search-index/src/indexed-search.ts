import { requestScope, searchWorkspace, type SearchRequest, type SearchResult, type SearchWorkspaceOptions } from '@quarry/search';
import { DEFAULT_MAX_FILE_BYTES } from '@quarry/search';
import type { IndexedCommit } from './indexed-commit';
import { planQuery } from './query-plan';

export type MaybeIndexedResult = SearchResult & { indexed: boolean };

/**
 * A working tree's difference from the indexed commit: the files whose content is not the
 * commit's. `read` (changed, added, renamed to: root-relative paths) are read and matched as
 * they are now; `excluded` (every path of `read`, and the deleted and renamed-from ones) are left
 * out of what the index answers for.
 */
export interface IndexOverlay {
  read: readonly string[];
  excluded: ReadonlySet<string>;
}

/**
 * A search answered with the commit's index when the pattern has trigrams to look up: the
 * postings choose the candidate files, the cold search's own workers and matcher read and match
 * only those (so counts, hits and their order are the cold search's), and the files left out are
 * counted as the cold search would have counted them. `request.root` holds the commit's files —
 * a checkout of it, or a working tree whose differences from it `overlay` names (those files are
 * read as they are now, whatever the index says of the commit's). Without trigrams (`\w+`, a
 * two-letter word) it is the cold search, `indexed: false`.
 */
export async function searchIndexed(request: SearchRequest, commit: IndexedCommit | undefined, options: SearchWorkspaceOptions = {}, overlay?: IndexOverlay): Promise<MaybeIndexedResult> {
  const { inScope, ignoreCase } = await requestScope(request);
  const trigrams = commit && planQuery(request.mode, request.pattern, ignoreCase);
  if (!commit || !trigrams) return { ...(await searchWorkspace(request, options)), indexed: false };
  // The scope as the request states it: equal keys, equal filters (equivalent spellings merely miss the cache).
  const scope = { key: JSON.stringify([request.directory ?? '', request.glob ?? '', request.hidden === true]), inScope };
  const candidates = commit.candidates(trigrams, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, scope, overlay?.excluded);
  const files = overlay && overlay.read.length > 0 ? [...candidates.read, ...overlay.read] : candidates.read;
  const result = await searchWorkspace(request, { ...options, files });
  result.filesSearched += candidates.notRead.text;
  result.skipped.binary += candidates.notRead.binary;
  result.skipped.tooLarge += candidates.notRead.tooLarge;
  return { ...result, indexed: true };
}
