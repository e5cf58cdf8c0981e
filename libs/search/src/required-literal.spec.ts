import fc from 'fast-check';
import RE2 from 're2';
import { requiredLiteral } from './required-literal';

describe('requiredLiteral', () => {
  it.each([
    ['TODO', 'TODO'],
    ['\\w+_error\\(', '_error('],
    ['TODO\\(\\w+\\)', 'TODO('],
    ['foo.*barbaz', 'barbaz'],
    ['ab+c', 'ab'],
    ['colou?r', 'colo'],
    ['x{2}abc', 'abc'],
    ['(foo)?barbaz', 'barbaz'],
    ['[abc]+defg', 'defg'],
    ['[]x]yz', 'yz'],
    ['\\x41bcd', 'bcd'],
    ['\\x{41}bcd', 'bcd'],
    ['\\012abc', 'abc'],
    ['\\pLabc', 'abc'],
    ['\\p{Greek}abc', 'abc'],
    ['^import x', 'import x'],
    ['a\\.b', 'a.b'],
  ])('%s requires %s', (pattern, literal) => {
    expect(requiredLiteral(pattern)).toBe(literal);
  });

  it.each(['foo|bar', '(?i)todo', 'a(?i:b)c', '\\d+', '.*', '[a-z]+', 'a*', '(foo)'])('proves nothing for %s', (pattern) => {
    expect(requiredLiteral(pattern)).toBeUndefined();
  });

  it('never claims a literal that a matching line lacks (random patterns and lines)', () => {
    const piece = fc.constantFrom('a', 'b', 'ab', '\\.', '.', 'a*', 'b?', 'a+', '[ab]', '(ab)?', '(a|b)', '\\w', '\\x61', 'x{0,2}', '^', '$', '\\b', '|', 'c+?');
    const pattern = fc.array(piece, { minLength: 1, maxLength: 8 }).map((pieces) => pieces.join(''));
    const line = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', '.', ' '), maxLength: 20 });
    fc.assert(
      fc.property(pattern, fc.array(line, { maxLength: 10 }), (source, lines) => {
        let regex: RE2;
        try {
          regex = new RE2(source);
        } catch {
          return; // not a valid pattern: nothing to check
        }
        const literal = requiredLiteral(source);
        if (literal === undefined) return;
        for (const text of lines) {
          if (regex.test(text)) expect(text).toContain(literal);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
