import { countTokens } from '@quarry/code-index/tokens';
import type { SearchAnswer, SearchInput } from '@quarry/contracts';
import { pageSearch } from './search-pages';

const hits = Array.from({ length: 700 }, (_, index) => ({ path: `src/file${Math.floor(index / 10)}.ts`, line: 1 + (index % 10), column: 3, text: `  const value${index} = lookUp(${index}); // TODO later` }));

/** A search over `hits`: the first maxResults of them, every one counted. */
function searchOver(all: typeof hits) {
  const asked: number[] = [];
  const run = async (maxResults: number): Promise<SearchAnswer> => {
    asked.push(maxResults);
    return {
      total: all.length,
      files: 70,
      indexed: false,
      filesSearched: 70,
      skipped: { binary: 0, tooLarge: 0, unreadable: 0 },
      timedOut: false,
      truncated: all.length > maxResults,
      ignoreCase: false,
      hits: all.slice(0, maxResults),
      elapsedMs: 1,
    };
  };
  return { run, asked };
}

const input: SearchInput = { root: '/r', pattern: 'TODO', maxResults: 300, maxTokens: 2_000 };

describe('pageSearch', () => {
  it('cuts the hits to maxTokens, and nextCursor continues them: every hit once, every page within the budget', async () => {
    const { run, asked } = searchOver(hits);
    const seen: typeof hits = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const answer = await pageSearch({ ...input, ...(cursor ? { cursor } : {}) }, run, { exact: true });
      expect(countTokens(JSON.stringify(answer))).toBeLessThanOrEqual(2_000);
      expect(answer.page).toMatchObject({ unit: 'hit', first: seen.length + 1, total: 700, maxTokens: 2_000, tokens: countTokens(JSON.stringify(answer)) });
      seen.push(...answer.hits);
      cursor = answer.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(hits);
    expect(pages).toBeGreaterThan(3);
    // Each search ran for the hits up to the end of its page at most.
    expect(Math.max(...asked)).toBeLessThanOrEqual(700 + 300);
  });

  it('answers a small search whole, without loading the tokenizer when the bytes already fit', async () => {
    const { run } = searchOver(hits.slice(0, 3));
    const answer = await pageSearch({ root: '/r', pattern: 'TODO' }, run);
    expect(answer.hits).toHaveLength(3);
    expect(answer.nextCursor).toBeUndefined();
    expect(answer.page).toEqual({ unit: 'hit', first: 1, last: 3, total: 3, left: 0, maxTokens: 8_000 });
  });

  it('is stale when the hits before the cursor changed, invalid for another request', async () => {
    const { run } = searchOver(hits);
    const first = await pageSearch(input, run, { exact: true });
    const changed = searchOver([{ ...hits[0], text: 'edited' }, ...hits.slice(1)]);
    await expect(pageSearch({ ...input, cursor: first.nextCursor }, changed.run)).rejects.toMatchObject({ kind: 'cursor_stale' });
    await expect(pageSearch({ ...input, pattern: 'other', cursor: first.nextCursor }, run)).rejects.toMatchObject({ kind: 'cursor_invalid' });
  });

  it('leaves counts answers and counts-only searches whole', async () => {
    const { run } = searchOver(hits);
    expect((await pageSearch({ ...input, counts: true }, run)).hits).toHaveLength(300);
    expect((await pageSearch({ ...input, maxResults: 0 }, run)).hits).toEqual([]);
  });
});
