import ignore from 'ignore';
import { IGNORED, INCLUDED, IgnoreRules, UNDECIDED } from './ignore-rules';
import { RulePrefilter } from './rule-prefilter';

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const verdictOf = (rules: IgnoreRules, path: string, isDirectory = false) => rules.verdict(path, basename(path), isDirectory);

describe('IgnoreRules', () => {
  it('decides plain names, directory names and *.ext without the matcher', () => {
    const rules = IgnoreRules.parse('', 'node_modules\nbuild/\n*.log\n*.tar.gz\n');
    expect(verdictOf(rules, 'node_modules', true)).toBe(IGNORED);
    expect(verdictOf(rules, 'a/node_modules', false)).toBe(IGNORED);
    expect(verdictOf(rules, 'a/build', true)).toBe(IGNORED);
    expect(verdictOf(rules, 'a/build', false)).toBe(UNDECIDED);
    expect(verdictOf(rules, 'x/debug.log')).toBe(IGNORED);
    expect(verdictOf(rules, '.log')).toBe(IGNORED);
    expect(verdictOf(rules, 'x/debug.log.txt')).toBe(UNDECIDED);
    expect(verdictOf(rules, 'a.tar.gz')).toBe(IGNORED);
    expect(verdictOf(rules, 'a.gz')).toBe(UNDECIDED);
  });

  it('is case-sensitive: *.s does not match x.S', () => {
    const rules = IgnoreRules.parse('', '*.s\n/Build\nREADME\n');
    expect(verdictOf(rules, 'x.s')).toBe(IGNORED);
    expect(verdictOf(rules, 'x.S')).toBe(UNDECIDED);
    expect(verdictOf(rules, 'build', true)).toBe(UNDECIDED);
    expect(verdictOf(rules, 'readme')).toBe(UNDECIDED);
  });

  it('keeps rule order when the file has negations: the last match wins', () => {
    const rules = IgnoreRules.parse('', '*.log\n!keep.log\nkeep.log.d/\n');
    expect(verdictOf(rules, 'a.log')).toBe(IGNORED);
    expect(verdictOf(rules, 'keep.log')).toBe(INCLUDED);
    expect(verdictOf(rules, 'x/keep.log')).toBe(INCLUDED);
    expect(verdictOf(rules, 'other.txt')).toBe(UNDECIDED);
    const reversed = IgnoreRules.parse('', '!keep.log\n*.log\n');
    expect(verdictOf(reversed, 'keep.log')).toBe(IGNORED);
  });

  it('anchors rules with a slash to its own directory', () => {
    const rules = IgnoreRules.parse('pkg', '/dist\nsrc/gen\n');
    expect(rules.prefixLength).toBe(4);
    expect(verdictOf(rules, 'dist', true)).toBe(IGNORED);
    expect(verdictOf(rules, 'sub/dist', true)).toBe(UNDECIDED);
    expect(verdictOf(rules, 'src/gen', true)).toBe(IGNORED);
    expect(verdictOf(rules, 'x/src/gen', true)).toBe(UNDECIDED);
  });

  it('matches ** in every position', () => {
    const rules = IgnoreRules.parse('', '**/cache\na/**/b\nlogs/**\n');
    expect(verdictOf(rules, 'cache', true)).toBe(IGNORED);
    expect(verdictOf(rules, 'x/y/cache')).toBe(IGNORED);
    expect(verdictOf(rules, 'a/b')).toBe(IGNORED);
    expect(verdictOf(rules, 'a/x/y/b')).toBe(IGNORED);
    expect(verdictOf(rules, 'logs', true)).toBe(UNDECIDED);
    expect(verdictOf(rules, 'logs/x/y.txt')).toBe(IGNORED);
  });

  it('treats an empty or comment-only file as empty', () => {
    expect(IgnoreRules.parse('', '').isEmpty).toBe(true);
    expect(IgnoreRules.parse('', '# a\n\n   \r\n').isEmpty).toBe(true);
    expect(IgnoreRules.parse('', '\\#not-a-comment').isEmpty).toBe(false);
  });

  it('reincluding() matches each path on its own beneath a directory its rules exclude', () => {
    const rules = IgnoreRules.parse('', 'vendor/\n*.log\n!keep.log\n');
    expect(verdictOf(rules, 'lib/vendor/keep.log')).toBe(IGNORED); // `ignore` sees the excluded parent
    const beneath = rules.reincluding('lib/vendor');
    expect(verdictOf(beneath, 'lib/vendor/keep.log')).toBe(INCLUDED);
    expect(verdictOf(beneath, 'lib/vendor/x.log')).toBe(IGNORED);
    expect(verdictOf(beneath, 'lib/vendor/x.js')).toBe(UNDECIDED);
    expect(verdictOf(beneath, 'lib/vendor/inner/vendor', true)).toBe(IGNORED);
  });

  it('reincluding() copes with glob characters in directory names', () => {
    const rules = IgnoreRules.parse('', '*\n!*/\n!*.md\n');
    const beneath = rules.reincluding('we[ir]d dir*/x?');
    expect(verdictOf(beneath, 'we[ir]d dir*/x?/a.txt')).toBe(IGNORED);
    expect(verdictOf(beneath, 'we[ir]d dir*/x?/a.md')).toBe(INCLUDED);
  });
});

describe('RulePrefilter', () => {
  const patterns = [
    'foo', 'foo/', '/foo', 'a/b', 'a/b/', 'a/**/b', '**/b', 'a/**', '**', '**/**/c', 'a/**/**/c', '*.log', 'x*y', 'f?o',
    '[abc]x', '[!a]x', '[]]x', 'a/*/c', '\\#hash', '\\!bang', 'sp\\ ace', 'trail   ', '*.py[cod]', '*~', '.*', 'doc/**/*.md',
    '**/x/**/y', 'dir/**/', '!foo', '!/a/b', 'a*b*c', '*/c', '/*.md',
  ];
  const names = ['a', 'b', 'c', 'foo', 'x', 'xy', 'xay', 'fzo', 'ax', 'bx', ']x', 'file.log', 'x.py', 'x.pyc', 'a~', '.hidden', '#hash', '!bang', 'sp ace', 'trail', 'doc', 'y', 'm.md', 'dir', 'abc'];
  const paths = [...names];
  for (const first of names) for (const second of names) paths.push(`${first}/${second}`);
  for (const first of ['a', 'doc', 'x', 'dir']) for (const second of names) for (const third of names) paths.push(`${first}/${second}/${third}`);

  it.each(patterns)('never says no to a path %j matches', (pattern) => {
    const matcher = ignore({ ignorecase: false }).add(pattern.startsWith('!') ? pattern.slice(1) : pattern);
    const prefilter = RulePrefilter.of([pattern]);
    expect(prefilter).toBeDefined();
    let matched = 0;
    for (const path of paths) {
      for (const isDirectory of [false, true]) {
        const parent = path.includes('/') ? `${path.slice(0, path.lastIndexOf('/'))}/` : undefined;
        // A match through an excluded parent is not a match of the path itself.
        if (parent !== undefined && matcher.ignores(parent)) continue;
        if (!matcher.ignores(isDirectory ? `${path}/` : path)) continue;
        matched++;
        expect({ path, mayMatch: prefilter?.mayMatch(path, basename(path)) }).toEqual({ path, mayMatch: true });
      }
    }
    expect(matched).toBeGreaterThan(0);
  });

  it('says no to most paths a selective rule cannot match', () => {
    const prefilter = RulePrefilter.of(['*.log', '/out', '**/generated/**', 'build']) as RulePrefilter;
    expect(prefilter.mayMatch('src/index.ts', 'index.ts')).toBe(false);
    expect(prefilter.mayMatch('src/out', 'out')).toBe(false);
    expect(prefilter.mayMatch('out', 'out')).toBe(true);
    expect(prefilter.mayMatch('a/generated/x.ts', 'x.ts')).toBe(true);
    expect(prefilter.mayMatch('a/build', 'build')).toBe(true);
  });

  it('gives up (undefined) on patterns it cannot widen safely', () => {
    expect(RulePrefilter.of(['[[:alpha:]]x'])).toBeUndefined();
    expect(RulePrefilter.of(['trailing\\ '])).toBeUndefined();
    expect(RulePrefilter.of(['[unclosed'])).toBeUndefined();
  });
});
