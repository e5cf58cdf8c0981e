import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callKey, decodeCursor } from './answer-cursor';
import { answerTokens, fitPage, fitWhole, type ListAnswer, type PageContext, type StreamAnswer } from './paged-answer';

const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
/** Lines of varied length, some long. */
const lines = Array.from({ length: 3_000 }, (_, index) => `${index + 1}: ${words.slice(0, 1 + (index % words.length)).join(' ').repeat(1 + (index % 7))}`);

function listOf(items: readonly string[]): ListAnswer<string> {
  return {
    paged: true,
    kind: 'list',
    unit: 'line',
    items,
    textOf: (line) => line,
    build: (slice) => ({ text: slice.items.join('\n'), structured: { lines: slice.items } }),
  };
}

const call = callKey({ path: 'x' });
const context = (maxTokens: number, cursor?: string): PageContext => ({ tool: 'read_file', call, maxTokens, cursor: cursor === undefined ? undefined : decodeCursor(cursor, 'read_file', call) });
const structured = (result: CallToolResult) => result.structuredContent as { lines: string[]; nextCursor?: string; page: { first: number; last: number; left?: number; tokens: number } };

/** Every page of a list answer, following the cursors. */
function everyPage(items: readonly string[], maxTokens: number): CallToolResult[] {
  const pages: CallToolResult[] = [];
  let cursor: string | undefined;
  do {
    const page = fitPage(listOf(items), context(maxTokens, cursor));
    pages.push(page);
    cursor = structured(page).nextCursor;
  } while (cursor && pages.length < 1_000);
  return pages;
}

describe('fitPage', () => {
  it.each([1_000, 8_000, 24_000])('cuts a long list into pages of at most %i tokens that hold every item once, in order', (maxTokens) => {
    const pages = everyPage(lines, maxTokens);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flatMap((page) => structured(page).lines)).toEqual(lines);
    for (const page of pages) {
      const measured = answerTokens(page);
      expect(measured).toBeLessThanOrEqual(maxTokens);
      // The page reports its own size, as measured; and is not wastefully small.
      expect(structured(page).page.tokens).toBe(measured);
      if (structured(page).nextCursor) expect(measured).toBeGreaterThan(maxTokens * 0.8);
    }
  });

  it('says what each page left out, with the cursor in the text as well', () => {
    const [first] = everyPage(lines, 2_000);
    const text = (first.content[0] as { text: string }).text;
    const { page, nextCursor } = structured(first);
    expect(page).toMatchObject({ first: 1, left: lines.length - page.last });
    expect(text).toContain(`lines 1-${page.last} of 3,000 shown; left out: ${(lines.length - page.last).toLocaleString('en-US')} more lines`);
    expect(text).toContain(`"cursor": "${nextCursor}"`);
  });

  it('answers a short list whole, with no cursor', () => {
    const page = fitPage(listOf(lines.slice(0, 3)), context(8_000));
    expect(structured(page)).toMatchObject({ lines: lines.slice(0, 3), page: { first: 1, last: 3, total: 3, left: 0 } });
    expect(structured(page).nextCursor).toBeUndefined();
  });

  it('is stale when the items before the cursor changed, and continues when only later ones did', () => {
    const [first] = everyPage(lines, 2_000);
    const cursor = structured(first).nextCursor!;
    const shown = structured(first).page.last;
    const inserted = [...lines.slice(0, 2), 'a new line', ...lines.slice(2)];
    expect(() => fitPage(listOf(inserted), context(2_000, cursor))).toThrow(expect.objectContaining({ kind: 'cursor_stale' }));
    const appended = [...lines, 'one more'];
    expect(structured(fitPage(listOf(appended), context(2_000, cursor))).lines[0]).toBe(lines[shown]);
  });

  it('keeps a page per item when perPage says so (a tool\'s maxResults)', () => {
    const page = fitPage({ ...listOf(lines), perPage: 10 }, context(24_000));
    expect(structured(page).lines).toEqual(lines.slice(0, 10));
    expect(structured(page).page).toMatchObject({ last: 10, left: lines.length - 10 });
  });

  it('refuses a budget that cannot hold one item with budget_invalid saying how much would', () => {
    const huge = 'token '.repeat(3_000);
    expect(() => fitPage(listOf([huge]), context(1_000))).toThrow(expect.objectContaining({ kind: 'budget_invalid', suggestion: expect.stringMatching(/maxTokens \d+/) }));
  });

  it('continues a stream from the position the cursor holds, checked against the content version', () => {
    const stream = (version: string, from: number): StreamAnswer<{ number: number; text: string }> => ({
      paged: true,
      kind: 'stream',
      unit: 'line',
      items: lines.slice(from - 1).map((text, index) => ({ number: from + index, text })),
      moreAfter: false,
      total: lines.length,
      ordinalOf: (item) => item.number,
      positionAfter: (item) => item.number + 1,
      version,
      build: (slice) => ({ text: slice.items.map((item) => item.text).join('\n'), structured: { lines: slice.items.map((item) => item.text) } }),
    });
    const first = fitPage(stream('v1', 1), context(2_000));
    const cursor = decodeCursor(structured(first).nextCursor!, 'read_file', call);
    const next = fitPage(stream('v1', cursor.at as number), { ...context(2_000), cursor });
    expect(structured(next).lines[0]).toBe(lines[structured(first).page.last]);
    expect(() => fitPage(stream('v2', cursor.at as number), { ...context(2_000), cursor })).toThrow(expect.objectContaining({ kind: 'cursor_stale' }));
  });
});

describe('fitWhole', () => {
  it('leaves an answer that fits alone, with the index state added', () => {
    const index = { commit: 'c', dirty: 0, coverage: 1, building: false, read: 'files' as const };
    const result = fitWhole({ text: 'small', structured: { items: [1, 2] } }, { tool: 't', call, maxTokens: 8_000, index });
    expect(result.structuredContent).toEqual({ items: [1, 2], index });
  });

  it('halves the longest list (or the text) until the answer fits, and says what it cut', () => {
    const services = Array.from({ length: 400 }, (_, index) => ({ name: `service-${index}`, language: 'typescript', commands: ['npm ci', 'npm test', 'npm run build'] }));
    const result = fitWhole({ text: 'summary', structured: { services }, jobId: 'j1' }, { tool: 'detect_stack', call, maxTokens: 2_000 });
    expect(answerTokens(result)).toBeLessThanOrEqual(2_000);
    const kept = (result.structuredContent as { services: unknown[] }).services;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(services.slice(0, kept.length));
    expect((result.content[0] as { text: string }).text).toMatch(/cut to fit maxTokens 2000: services 400 → 200;.*quarry:\/\/jobs\/j1/);
  });
});
