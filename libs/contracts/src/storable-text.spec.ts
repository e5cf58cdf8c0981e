import { assertStorableText } from './storable-text';
import { isQuarryError } from './errors';

function refusal(value: unknown): string | undefined {
  try {
    assertStorableText(value, 'input');
    return undefined;
  } catch (error) {
    return isQuarryError(error) ? `${error.kind}: ${error.message}` : String(error);
  }
}

describe('text a jsonb column can hold', () => {
  it('accepts ordinary text, emoji (a whole surrogate pair) and non-string values', () => {
    expect(refusal({ query: 'where is main() 🚀', tags: ['ü', 'ß'], depth: 3, flag: true, none: null })).toBeUndefined();
  });

  it.each([
    ['a NUL in a field', { query: 'find a\u0000b' }, 'input.query contains a NUL character'],
    ['a lone high surrogate', { prompt: 'x \ud800 y' }, 'input.prompt contains half of a UTF-16 surrogate pair'],
    ['a lone low surrogate', { prompt: '\udc00' }, 'input.prompt contains half'],
    ['a reversed pair', { prompt: '\udc00\ud800' }, 'input.prompt contains half'],
    ['a NUL deep in an array', { paths: ['a', ['b', 'c\u0000']] }, 'input.paths[1][1] contains a NUL'],
    ['a NUL in a key', { options: { 'a\u0000': 1 } }, 'input.options: a key contains a NUL'],
  ])('refuses %s, naming where', (_name, value, message) => {
    expect(refusal(value)).toContain(`input_invalid: ${message}`);
  });
});
