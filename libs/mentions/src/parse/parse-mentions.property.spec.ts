import fc from 'fast-check';
import { parseMentions } from './index';
import { quoteLiteral } from './tokens';

/** Characters the grammar cares about, over-represented so random prompts hit every state. */
const grammarChar = fc.constantFrom(
  '@', '@', '`', '~', '"', "'", '\\', '#', 'L', 'l', '1', '0', '9', '-', '/', '.', ',', '?', ' ', ' ', '\n', '\r', '\t', ':',
  's', 'e', 'a', 'r', 'c', 'h', 'u', 'g', 'p', 't', '(', ')', '[', ']', '{', '}', '“', '”', '<', '|', 'é', '文', '\u00a0',
);
const grammarText = fc.oneof(
  fc.string({ unit: grammarChar, maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.array(fc.constantFrom('@src/a.ts', '@"a b"#L1-2', '@search:"x', '@grep:"y"', '@url:https://e.org', '```\n', '`', ' ', '\n', 'x@y', '\\@', '#L0'), { maxLength: 30 }).map((parts) => parts.join('')),
);

function itemsOf(text: string) {
  const { mentions, errors } = parseMentions(text);
  return { mentions, errors, all: [...mentions, ...errors].sort((a, b) => a.span[0] - b.span[0]) };
}

describe('parseMentions: properties', () => {
  it('never throws; every span lies inside the text, slices to raw, and none overlap', () => {
    fc.assert(
      fc.property(grammarText, (text) => {
        const { mentions, errors, all } = itemsOf(text);
        for (const list of [mentions, errors]) {
          for (let i = 1; i < list.length; i++) expect(list[i].span[0]).toBeGreaterThanOrEqual(list[i - 1].span[1]);
        }
        let previousEnd = 0;
        for (const item of all) {
          const [start, end] = item.span;
          expect(start).toBeGreaterThanOrEqual(previousEnd);
          expect(end).toBeGreaterThan(start);
          expect(end).toBeLessThanOrEqual(text.length);
          expect(text.slice(start, end)).toBe(item.raw);
          expect(item.raw.startsWith('@')).toBe(true);
          previousEnd = end;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('finds nothing in a text without an @', () => {
    fc.assert(
      fc.property(grammarText, (text) => {
        const withoutAt = text.replaceAll('@', '');
        expect(parseMentions(withoutAt)).toEqual({ mentions: [], errors: [] });
      }),
      { numRuns: 1000 },
    );
  });

  it('finds a path mention placed between words of plain prose', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'z', 'é', '文', '1'), minLength: 1, maxLength: 8 });
    const prose = fc.array(word, { maxLength: 6 }).map((words) => words.join(' '));
    const path = fc.array(word, { minLength: 1, maxLength: 4 }).map((parts) => `${parts.join('/')}.ts`);
    fc.assert(
      fc.property(prose, path, prose, (before, file, after) => {
        const text = `${before} @${file} ${after}`;
        const { mentions, errors } = parseMentions(text);
        expect(errors).toEqual([]);
        expect(mentions).toEqual([expect.objectContaining({ kind: 'path', path: file, span: [before.length + 1, before.length + 2 + file.length] })]);
      }),
    );
  });

  it('reads back any quoted path exactly', () => {
    const name = fc.string({ unit: fc.oneof(grammarChar, fc.constantFrom('"', '\\')), minLength: 1, maxLength: 40 }).filter((s) => !/[\r\n\u2028\u2029]/.test(s));
    fc.assert(
      fc.property(name, (path) => {
        const { mentions, errors } = parseMentions(`see @${quoteLiteral(path)} ok`);
        expect(errors).toEqual([]);
        expect(mentions).toEqual([expect.objectContaining({ kind: 'path', path, candidates: [path], bare: false })]);
      }),
      { numRuns: 1000 },
    );
  });
});
