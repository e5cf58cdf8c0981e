import { compileGlob } from './glob';

describe('compileGlob', () => {
  it.each([
    ['*.ts', 'src/app.ts', true],
    ['*.ts', 'app.ts', true],
    ['*.ts', 'src/app.tsx', false],
    ['*.{ts,tsx}', 'a/b/c.tsx', true],
    ['src/**/*.tsx', 'src/ui/deep/button.tsx', true],
    ['src/**/*.tsx', 'src/button.tsx', true],
    ['src/**/*.tsx', 'lib/src/button.tsx', false],
    ['src/*.ts', 'src/ui/button.ts', false],
    ['./src/*.ts', 'src/main.ts', true],
    ['/src/*.ts', 'src/main.ts', true],
    ['file?.md', 'docs/file1.md', true],
    ['file?.md', 'docs/file10.md', false],
    ['[ab]*.js', 'x/alpha.js', true],
    ['[!ab]*.js', 'x/alpha.js', false],
    ['[!ab]*.js', 'x/gamma.js', true],
    ['foo(bar).c', 'foo(bar).c', true],
    ['a+b.c', 'aab.c', false],
    ['docs/**', 'docs/a/b.md', true],
    ['**/test/*.ts', 'test/a.ts', true],
    ['**/test/*.ts', 'pkg/test/a.ts', true],
  ])('%s against %s → %s', (glob, file, expected) => {
    expect(compileGlob(glob)(file)).toBe(expected);
  });

  it.each(['', '  ', '[abc', 'a{b', 'a}b', 'x'.repeat(501)])('refuses %j as pattern_invalid', (glob) => {
    expect(() => compileGlob(glob)).toThrow(expect.objectContaining({ kind: 'pattern_invalid' }));
  });
});
