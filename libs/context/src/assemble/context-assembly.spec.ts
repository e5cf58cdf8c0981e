import { countTokens, tokenCounter } from '@quarry/code-index';
import { assembleContext, renderBlock } from './context-assembly';

const count = tokenCounter('o200k_base');
const lines = (name: string, length: number) => Array.from({ length }, (_, index) => `    value_${name}_${index} = compute(${index}, "${name}")`);
const FILES: Record<string, string> = {
  'a.py': ['def first():', ...lines('a', 30), ''].join('\n'),
  'b.py': ['def second():', ...lines('b', 30), ''].join('\n'),
  'c.py': ['def third():', ...lines('c', 5), ''].join('\n'),
};
const SPANS = [
  { path: 'a.py', startLine: 1, endLine: 31, symbol: 'first', kind: 'function' },
  { path: 'b.py', startLine: 1, endLine: 31, symbol: 'second', kind: 'function' },
  { path: 'c.py', startLine: 1, endLine: 6, symbol: 'third', kind: 'function' },
];
const read = async (path: string) => FILES[path];

describe('assembleContext', () => {
  it('renders blocks with the path, the range, the definition and numbered lines', () => {
    const block = renderBlock(SPANS[2], FILES['c.py'].split('\n'), 1, 2);
    expect(block).toBe('c.py:1-2 (function third)\n1│ def third():\n2│     value_c_0 = compute(0, "c")\n\n');
  });

  it("blocks' tokens add up exactly, so the cut is exact", async () => {
    const all = await assembleContext(SPANS, 100_000, count, read);
    expect(all.included).toEqual(['whole', 'whole', 'whole']);
    const blocks = SPANS.map((span) => renderBlock(span, FILES[span.path].split('\n'), span.startLine, span.endLine));
    expect(all.text).toBe(blocks.join(''));
    expect(all.tokens).toBe(blocks.reduce((sum, block) => sum + countTokens(block), 0));
  });

  it('cuts the first span that does not fit to the most lines that fit, and stops', async () => {
    const whole = countTokens(renderBlock(SPANS[0], FILES['a.py'].split('\n'), 1, 31));
    const budget = whole + 150;
    const result = await assembleContext(SPANS, budget, count, read);
    expect(result.included).toEqual(['whole', 'cut', 'omitted']);
    expect(result.tokens).toBe(countTokens(result.text));
    expect(result.tokens).toBeLessThanOrEqual(budget);
    // One more line of the cut span would not have fitted.
    const next = renderBlock(SPANS[1], FILES['b.py'].split('\n'), 1, result.cutAt! + 1, true);
    expect(whole + countTokens(next)).toBeGreaterThan(budget);
    expect(result.text).toContain('b.py:1-');
    expect(result.text).toContain('[cut: 1-31]');
  });

  it('for every budget: never over it, and as full as the rule allows', async () => {
    for (let budget = 1; budget <= 700; budget += 37) {
      const result = await assembleContext(SPANS, budget, count, read);
      expect(result.tokens).toBe(countTokens(result.text));
      expect(result.tokens).toBeLessThanOrEqual(budget);
    }
    expect((await assembleContext(SPANS, 1, count, read)).text).toBe('');
  });

  it('skips a span whose file is shorter than its range claims', async () => {
    const result = await assembleContext([{ path: 'c.py', startLine: 50, endLine: 60 }, SPANS[2]], 1000, count, read);
    expect(result.included).toEqual(['omitted', 'whole']);
  });
});
