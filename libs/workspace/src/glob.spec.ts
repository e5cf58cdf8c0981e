import fc from 'fast-check';
import { QuarryError } from '@quarry/contracts';
import { compileGlob, isGlob } from './glob';

/** [glob, path, expected]: one row per rule. */
const CASES: Array<[string, string, boolean]> = [
  // a slash-free pattern matches the basename at any depth
  ['*.ts', 'a.ts', true],
  ['*.ts', 'src/deep/a.ts', true],
  ['*.ts', 'src/a.tsx', false],
  ['*.ts', 'a.ts/b.js', false],
  ['*.test.ts', 'src/x.test.ts', true],
  ['*', '.env', true],
  // `?` is one character, never a slash
  ['?.ts', 'a.ts', true],
  ['?.ts', 'ab.ts', false],
  ['src?a.ts', 'src/a.ts', false],
  // classes, ranges, negation
  ['[abc].ts', 'b.ts', true],
  ['[abc].ts', 'd.ts', false],
  ['[a-c].ts', 'c.ts', true],
  ['[!a-c].ts', 'd.ts', true],
  ['[!a-c].ts', 'a.ts', false],
  ['[^a].ts', 'b.ts', true],
  ['file[]].txt', 'file].txt', true],
  // braces, nested
  ['*.{ts,js}', 'x.js', true],
  ['*.{ts,js}', 'x.py', false],
  ['{a,b{c,d}}.md', 'bd.md', true],
  ['{a,b{c,d}}.md', 'b.md', false],
  // a pattern with a slash is anchored at the start of the path
  ['src/*.ts', 'src/a.ts', true],
  ['src/*.ts', 'src/x/a.ts', false],
  ['src/*.ts', 'lib/src/a.ts', false],
  ['./src/*.ts', 'src/a.ts', true],
  ['/src/*.ts', 'src/a.ts', true],
  // `**` spans any number of segments, including none
  ['**/auth*.ts', 'auth.ts', true],
  ['**/auth*.ts', 'src/api/authService.ts', true],
  ['**/auth*.ts', 'src/api/oauth.ts', false],
  ['src/**/*.ts', 'src/a.ts', true],
  ['src/**/*.ts', 'src/a/b/c.ts', true],
  ['src/**', 'src/a/b/c.ts', true],
  ['src/**', 'lib/a.ts', false],
  ['a/**/b', 'a/b', true],
  ['a/**/b', 'a/x/y/b', true],
  ['a**b/c', 'axxb/c', true],
  ['a**b/c', 'ax/yb/c', false],
  // regex metacharacters are literal
  ['a+b(1).ts', 'a+b(1).ts', true],
  ['a.b', 'axb', false],
  ['$x^|y', 'src/$x^|y', true],
  // escapes
  ['\\*.ts', '*.ts', true],
  ['\\*.ts', 'a.ts', false],
  // Unicode and spaces
  ['*.md', 'docs/naïve résumé.md', true],
  ['日本*', 'src/日本語.txt', true],
  ['my file?.txt', 'a/my file1.txt', true],
  ['?.md', '🌍.md', true],
  ['**/?.md', 'docs/🌍.md', true],
  ['[🌍x].md', '🌍.md', true],
  // from libs/search's file filter, which this matcher replaced
  ['*.{ts,tsx}', 'a/b/c.tsx', true],
  ['file?.md', 'docs/file10.md', false],
  ['[ab]*.js', 'x/alpha.js', true],
  ['[!ab]*.js', 'x/alpha.js', false],
  ['[!ab]*.js', 'x/gamma.js', true],
  ['a+b.c', 'aab.c', false],
  ['src/**/*.tsx', 'lib/src/button.tsx', false],
  ['docs/**', 'docs/a/b.md', true],
  ['**/test/*.ts', 'test/a.ts', true],
  ['**/test/*.ts', 'pkg/test/a.ts', true],
  ['**/test/*.ts', 'pkg/test/unit/a.ts', false],
];

describe('compileGlob', () => {
  it.each(CASES)('%s against %s → %s', (pattern, file, expected) => {
    expect(compileGlob(pattern)(file)).toBe(expected);
  });

  it('matches regardless of case only when asked', () => {
    expect(compileGlob('README.*')('docs/readme.md')).toBe(false);
    expect(compileGlob('README.*', { caseInsensitive: true })('docs/readme.md')).toBe(true);
    expect(compileGlob('src/**/*.TS', { caseInsensitive: true })('SRC/a/b.ts')).toBe(true);
  });

  it.each([
    ['an empty pattern', '', 'empty'],
    ['an unclosed brace', '{a,b', 'never closed'],
    ['an unclosed class', '[abc', 'never closed'],
    ['a stray closing brace', 'a}b', 'no opening'],
    ['a pattern over 1,000 characters', 'x'.repeat(1_001), 'longer than'],
    ['braces nested 11 deep', `${'{'.repeat(11)}a${'}'.repeat(11)}`, 'nested more than'],
  ])('refuses %s as pattern_invalid', (_label, pattern, reason) => {
    let error: unknown;
    try {
      compileGlob(pattern);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(QuarryError);
    expect((error as QuarryError).kind).toBe('pattern_invalid');
    expect((error as QuarryError).message).toContain(reason);
  });

  it('stays linear on patterns that make a backtracking matcher explode', () => {
    const name = 'a'.repeat(50_000);
    const started = performance.now();
    expect(compileGlob('*a*a*a*a*a*a*a*a*a*a*a*a*b')(name)).toBe(false);
    expect(compileGlob('**/*a*a*a*a*a*a*a*a*a*b')(`x/${name}`)).toBe(false);
    expect(compileGlob('{*a,*b}{*a,*b}{*a,*b}{*a,*b}c')(name)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('agrees with a plain literal comparison for glob-free names (property)', () => {
    // Walker paths never hold `.` or `..` segments.
    const segment = fc.stringMatching(/^[A-Za-z0-9 ._+()$^|-]{1,12}$/).filter((name) => name !== '.' && name !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), segment, (segments, other) => {
        const file = segments.join('/');
        const name = segments[segments.length - 1];
        expect(compileGlob(name)(file)).toBe(true);
        expect(compileGlob(file)(file)).toBe(true);
        expect(compileGlob(name)(`${file}/${other}`)).toBe(other === name);
      }),
    );
  });

  it('never throws on arbitrary printable patterns other than as pattern_invalid (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), (pattern, file) => {
        try {
          const matcher = compileGlob(pattern);
          expect(typeof matcher(file)).toBe('boolean');
        } catch (error) {
          expect((error as QuarryError).kind).toBe('pattern_invalid');
        }
      }),
    );
  });
});

describe('isGlob', () => {
  it('tells globs from plain names', () => {
    expect(isGlob('*.ts')).toBe(true);
    expect(isGlob('src/{a,b}.ts')).toBe(true);
    expect(isGlob('a?.md')).toBe(true);
    expect(isGlob('[id].tsx')).toBe(true);
    expect(isGlob('config.json')).toBe(false);
    expect(isGlob('src/app.ts')).toBe(false);
  });
});
