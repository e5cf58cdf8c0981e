import fs from 'node:fs';
import path from 'node:path';
import { countTokens, isTokenEncoding, TOKEN_ENCODINGS, TokenEncoding } from './token-counter';

/**
 * gpt-tokenizer ships the reference encodings it is tested against (`data/TestPlans.txt`: sample
 * strings with the token ids tiktoken gives them). Our counts must equal the reference lengths,
 * sample by sample and in total.
 */
interface Plan {
  encoding: string;
  sample: string;
  tokens: number;
}

function referencePlans(): Plan[] {
  const file = path.join(path.dirname(require.resolve('gpt-tokenizer/package.json')), 'data', 'TestPlans.txt');
  const plans: Plan[] = [];
  for (const block of fs.readFileSync(file, 'utf8').split(/\n\n(?=EncodingName: )/)) {
    const match = /^EncodingName: (\S+)\nSample: ([\s\S]*)\nEncoded: \[([^\]]*)\]\s*$/.exec(block);
    if (match === null) continue;
    const ids = match[3].trim() === '' ? [] : match[3].split(',');
    plans.push({ encoding: match[1], sample: match[2], tokens: ids.length });
  }
  return plans;
}

describe('token counter', () => {
  const plans = referencePlans();

  it.each(TOKEN_ENCODINGS)('agrees with the reference counts for %s, sample by sample and in total', (encoding: TokenEncoding) => {
    const mine = plans.filter((plan) => plan.encoding === encoding);
    expect(mine.length).toBeGreaterThan(20);
    const counted = mine.map((plan) => countTokens(plan.sample, encoding));
    expect(counted).toEqual(mine.map((plan) => plan.tokens));
    const total = mine.reduce((sum, plan) => sum + plan.tokens, 0);
    expect(counted.reduce((sum, n) => sum + n, 0)).toBe(total);
  });

  it('counts known strings exactly', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('hello world', 'cl100k_base')).toBe(2);
    // The two encodings really differ: o200k_base has far more non-English merges.
    expect(countTokens('Привет, мир! Как дела?')).toBe(8);
    expect(countTokens('Привет, мир! Как дела?', 'cl100k_base')).toBe(12);
  });

  it('counts special-token text as ordinary text instead of failing', () => {
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
    expect(countTokens('a <|im_start|> b', 'cl100k_base')).toBeGreaterThan(3);
  });

  it('knows its encodings', () => {
    expect(isTokenEncoding('o200k_base')).toBe(true);
    expect(isTokenEncoding('p50k_base')).toBe(false);
  });
});
