import { countTokens } from '@quarry/code-index/tokens';
import { answerTokenBudget, type PageInfo, type SearchAnswer, type SearchInput } from '@quarry/contracts';
import { callKey, decodeCursor, encodeCursor, itemsKey, staleCursor } from './answer-cursor';
import { fitCount } from './paged-answer';

/** The most hits one search returns (searchInputSchema's maxResults cap): a page deeper than it cannot be cut. */
const MAX_HITS = 10_000;
const DEFAULT_MAX_RESULTS = 50;
/** What a cursor of these answers says it continues. */
const SEARCH = 'search';

/**
 * `POST /v1/search` and `quarry search --json` within a token budget, as the MCP tools' answers
 * are: the hits from the cursor's on (at most maxResults), as many as fit `maxTokens` with the
 * rest of the answer, `page` and `nextCursor`. `run` searches for at least that many hits from
 * the first (the hits before the cursor prove the answer unchanged, else cursor_stale).
 * `counts` answers are not cut (every matching file is what was asked for). With `exact` false
 * an answer of fewer bytes than the budget is not counted (a token is at least one byte), so a
 * small answer does not load the tokenizer.
 */
export async function pageSearch(input: SearchInput, run: (maxResults: number) => Promise<SearchAnswer>, options: { exact?: boolean } = {}): Promise<SearchAnswer> {
  const { maxTokens: asked, cursor: given, ...request } = input;
  const maxTokens = answerTokenBudget(asked);
  const perPage = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const key = callKey(request as Record<string, unknown>);
  const cursor = given === undefined ? undefined : decodeCursor(given, SEARCH, key);
  const at = cursor === undefined ? 0 : Number(cursor.at);
  if (!Number.isInteger(at) || at < 0 || at >= MAX_HITS) throw staleCursor(SEARCH, 'answer');
  const answer = await run(Math.min(MAX_HITS, at + perPage));
  if (request.counts || perPage === 0) return answer;
  if (cursor && (answer.hits.length < at || itemsKey(answer.hits.slice(0, at)) !== cursor.version)) throw staleCursor(SEARCH, 'answer');

  const candidates = answer.hits.slice(at, at + perPage);
  const assemble = (count: number, tokens: number) => {
    const end = at + count;
    const more = end < answer.total && end < MAX_HITS;
    const nextCursor = more ? encodeCursor({ tool: SEARCH, call: key, at: end, version: itemsKey(answer.hits.slice(0, end)) }) : undefined;
    const page: PageInfo = { unit: 'hit', first: count ? at + 1 : 0, last: count ? end : 0, total: answer.total, left: answer.total - end, tokens, maxTokens };
    const body: SearchAnswer = { ...answer, hits: candidates.slice(0, count), truncated: more, page, ...(nextCursor ? { nextCursor } : {}) };
    const json = JSON.stringify(body);
    if (!options.exact && Buffer.byteLength(json) <= maxTokens) return { result: { ...body, page: withoutTokens(page) }, tokens: 0 };
    return { result: body, tokens: countTokens(json) };
  };
  // Fewer bytes than the budget: it fits, uncounted (the tokenizer is not even loaded).
  const whole = options.exact ? undefined : assemble(candidates.length, 0);
  if (whole?.tokens === 0) return whole.result;
  const costs = candidates.map((hit) => countTokens(JSON.stringify(hit)) + 1);
  return fitCount(costs, maxTokens, 'hit', assemble).result;
}

function withoutTokens(page: PageInfo): PageInfo {
  const { tokens: _tokens, ...rest } = page;
  return rest;
}
