import { QuarryError } from '@quarry/contracts';
import { MAX_PATTERN_LENGTH, validatePattern } from './pattern-rules';

function rejection(mode: 'literal' | 'regex', pattern: string): QuarryError {
  try {
    validatePattern(mode, pattern);
  } catch (error) {
    if (error instanceof QuarryError) return error;
    throw error;
  }
  throw new Error(`"${pattern}" was accepted`);
}

describe('validatePattern', () => {
  it.each(['literal', 'regex'] as const)('refuses an empty %s pattern as pattern_invalid', (mode) => {
    expect(rejection(mode, '')).toMatchObject({ kind: 'pattern_invalid', message: expect.stringContaining('empty') });
  });

  it('accepts 1,000 characters and refuses 1,001, saying the limit', () => {
    expect(() => validatePattern('literal', 'a'.repeat(MAX_PATTERN_LENGTH))).not.toThrow();
    const error = rejection('literal', 'a'.repeat(MAX_PATTERN_LENGTH + 1));
    expect(error.kind).toBe('pattern_invalid');
    expect(error.message).toContain('1000');
  });

  it('refuses a line break: matches are line by line', () => {
    expect(rejection('literal', 'a\nb').kind).toBe('pattern_invalid');
  });

  it('accepts special characters in a literal, which is never compiled as a regex', () => {
    expect(() => validatePattern('literal', 'foo(bar).baz[')).not.toThrow();
    expect(() => validatePattern('literal', '(?=x)\\1')).not.toThrow();
  });

  it.each([
    ['(\\w+) \\1', 'backreferences'],
    ['(?P<word>a)\\k<word>', 'backreferences'],
    ['foo(?=bar)', 'lookahead (?=…)'],
    ['foo(?!bar)', 'negative lookahead (?!…)'],
    ['(?<=foo)bar', 'lookbehind (?<=…)'],
    ['(?<!foo)bar', 'negative lookbehind (?<!…)'],
    ['(?>a+)b', 'atomic groups'],
    ['a++b', 'possessive quantifiers'],
    ['a{2}+', 'possessive quantifiers'],
    ['(?(1)a|b)', 'conditionals'],
    ['(a(?R)?b)', 'recursion'],
    ['(?x) a b', 'the extended-mode flag'],
    ['foo\\Z', 'the anchors \\Z'],
  ])('names the unsupported feature in %s (%s) with a suggestion', (pattern, feature) => {
    const error = rejection('regex', pattern);
    expect(error.kind).toBe('regex_invalid');
    expect(error.message).toContain(`does not support ${feature}`);
    expect(error.suggestion).toEqual(expect.any(String));
    expect(error.permanent).toBe(true);
  });

  it('does not blame a feature whose text sits inside a character class', () => {
    // `[(?=]` is a class of three characters; the unclosed group is the real error.
    const error = rejection('regex', '[(?=](');
    expect(error.kind).toBe('regex_invalid');
    expect(error.message).not.toContain('lookahead');
    expect(error.message).toContain('missing )');
  });

  it('reports other syntax errors with RE2\'s reason', () => {
    const error = rejection('regex', 'a(b');
    expect(error).toMatchObject({ kind: 'regex_invalid', message: expect.stringContaining('missing )') });
  });

  it.each(['(?i)todo', 'TODO\\(\\w+\\)', '^\\s*#include <[a-z/]+\\.h>$', '(?P<name>\\d+)', '[[:alpha:]]+', '\\pL+'])('accepts the RE2 pattern %s', (pattern) => {
    expect(() => validatePattern('regex', pattern)).not.toThrow();
  });
});
