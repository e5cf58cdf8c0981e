import fc from 'fast-check';
import type { ParsedMention } from '../parse';
import { type BodyLine, elisionBound, keepHeadAndTail, numberedLines, totalBytes } from './body';
import { augmentPrompt } from './index';
import type { ContextBlock, MentionOutcome } from './types';
import { waterFill } from './water-fill';

const lineText = fc.string({ unit: fc.constantFrom('a', 'é', '文', '`', ' ', 'x', '🚀'), maxLength: 60 });
const fileText = fc.array(lineText, { maxLength: 120 }).map((lines) => lines.join('\n'));
const range = fc.option(
  fc.record({ start: fc.integer({ min: 1, max: 130 }), end: fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }) }).map(({ start, end }) => (end === undefined ? { start } : { start, end: Math.max(start, end) })),
  { nil: undefined },
);
const block: fc.Arbitrary<ContextBlock> = fc.oneof(
  fc.record({ kind: fc.constant('file' as const), path: fc.constantFrom('a.ts', 'b.ts', 'c/d.md'), text: fileText, language: fc.constantFrom(undefined, 'typescript') }),
  fc.record({ kind: fc.constant('url' as const), url: fc.constantFrom('https://e.org/', 'https://f.org/x'), finalUrl: fc.constant('https://e.org/'), title: fc.option(lineText, { nil: undefined }), text: fileText }),
  fc.record({ kind: fc.constantFrom('search' as const, 'grep' as const), pattern: fc.constantFrom('x', 'y+'), body: fileText, matches: fc.nat(99), shown: fc.nat(50) }),
  fc.record({ kind: fc.constant('directory' as const), path: fc.constantFrom('src/', 'lib/'), listing: fileText, entries: fc.nat(200), truncated: fc.boolean() }),
);
const outcome: fc.Arbitrary<MentionOutcome> = fc.oneof(
  block.map((loaded) => ({ status: 'loaded' as const, block: loaded })),
  fc.constant({ status: 'ignored' as const }),
  fc.record({ status: fc.constant('failed' as const), error: fc.record({ kind: fc.constant('file_not_found'), message: lineText, suggestion: fc.option(lineText, { nil: undefined }) }) }),
);
const scenario = fc.record({ prompt: lineText, items: fc.array(fc.tuple(outcome, range), { maxLength: 8 }), budget: fc.nat(40_000) });

/** Mentions whose kind and range match the outcome they are paired with. */
function buildInput({ prompt, items }: { prompt: string; items: [MentionOutcome, { start: number; end?: number } | undefined][] }) {
  const mentions: ParsedMention[] = items.map(([, lines], index) => ({ kind: 'path', raw: `@m${index}`, span: [index * 10, index * 10 + 3], path: `m${index}`, range: lines, directory: false, candidates: [`m${index}`], bare: false }));
  return { prompt, mentions, outcomes: items.map(([result]) => result) };
}

describe('augmentPrompt: budget properties', () => {
  it('stays within maxBytes whenever the prompt fits, is deterministic, and cuts nothing when all fits', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = buildInput(s);
        const unlimited = augmentPrompt({ ...input, maxBytes: Number.MAX_SAFE_INTEGER });
        expect(unlimited.cut).toEqual([]);
        const promptBytes = Buffer.byteLength(s.prompt);
        const maxBytes = promptBytes + s.budget;
        const result = augmentPrompt({ ...input, maxBytes });
        expect(result.bytes).toBe(Buffer.byteLength(result.augmentedPrompt));
        expect(result.bytes).toBeLessThanOrEqual(maxBytes);
        expect(result.augmentedPrompt.startsWith(s.prompt)).toBe(true);
        expect(augmentPrompt({ ...input, maxBytes })).toEqual(result);
        if (unlimited.bytes <= maxBytes) expect(result).toEqual(unlimited);
        else expect(result.cut.length).toBeGreaterThan(0);
        result.perMention.forEach((contribution, index) => expect(contribution.bytes).toBeLessThanOrEqual(unlimited.perMention[index].bytes));
      }),
      { numRuns: 400 },
    );
  });
});

describe('waterFill', () => {
  it('gives everyone their size when it all fits, and equal shares to the large ones otherwise', () => {
    expect(waterFill([10, 20], [0, 0], 100)).toEqual([10, 20]);
    expect(waterFill([10, 500, 900], [0, 0, 0], 410)).toEqual([10, 200, 200]);
    expect(waterFill([10, 500, 900], [5, 5, 5], 15)).toEqual([5, 5, 5]);
  });

  it('never hands out more than the total nor less than the minimums', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(1000), fc.nat(50)), { maxLength: 20 }), fc.nat(20_000), (pairs, extra) => {
        const sizes = pairs.map(([size, minimum]) => Math.max(size, minimum));
        const minimums = pairs.map(([, minimum]) => minimum);
        const total = minimums.reduce((a, b) => a + b, 0) + extra;
        const shares = waterFill(sizes, minimums, total);
        expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(total);
        shares.forEach((share, i) => {
          expect(share).toBeGreaterThanOrEqual(minimums[i]);
          expect(share).toBeLessThanOrEqual(sizes[i]);
        });
      }),
    );
  });
});

describe('keepHeadAndTail', () => {
  const body: BodyLine[] = numberedLines(Array.from({ length: 100 }, (_, i) => `row ${i + 1}`));

  it('keeps the head and the tail around one marker naming the elided lines', () => {
    const kept = keepHeadAndTail(body, 120);
    const texts = kept.map((line) => line.text);
    expect(texts[0]).toBe('row 1');
    expect(texts[texts.length - 1]).toBe('row 100');
    expect(texts.filter((text) => text.startsWith('…'))).toHaveLength(1);
    const marker = texts.find((text) => text.startsWith('…'));
    const [count, first, last] = /… (\d+) lines elided \(lines (\d+)-(\d+)\) …/.exec(marker ?? '')!.slice(1).map(Number);
    expect(last - first + 1).toBe(count);
    expect(kept.length - 1 + count).toBe(100);
    expect(totalBytes(kept)).toBeLessThanOrEqual(120);
  });

  it('fits any allowance from the marker bound up', () => {
    fc.assert(
      fc.property(fc.integer({ min: elisionBound(body), max: totalBytes(body) + 10 }), (allowance) => {
        expect(totalBytes(keepHeadAndTail(body, allowance))).toBeLessThanOrEqual(allowance);
      }),
    );
  });
});
