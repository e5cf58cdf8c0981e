import { MAX_LINE_CHARS, createMatcher, searchContent } from './file-search';
import type { SearchMode } from './search-types';

function search(mode: SearchMode, pattern: string, text: string, keep = 100, context = 2) {
  return searchContent(Buffer.from(text, 'utf8'), 'f.txt', createMatcher(mode, pattern), keep, context);
}

describe('searchContent', () => {
  it('finds a literal case-insensitively, one count per line, with line and column', () => {
    const found = search('literal', 'todo', 'a\nfix: TODO and todo\nToDo\nnothing\n');
    expect(found.count).toBe(2);
    expect(found.matches.map(({ line, column, text }) => ({ line, column, text }))).toEqual([
      { line: 2, column: 6, text: 'fix: TODO and todo' },
      { line: 3, column: 1, text: 'ToDo' },
    ]);
  });

  it('treats regex characters in a literal as plain text', () => {
    const found = search('literal', 'foo(bar).baz', 'fooXbarYbaz\ncall foo(bar).baz()\nFOO(BAR).BAZ\n');
    expect(found.count).toBe(2);
    expect(found.matches.map((match) => match.line)).toEqual([2, 3]);
  });

  it('folds non-ASCII literals with Unicode case rules', () => {
    const found = search('literal', 'ÉCOLE', 'une école\nÉcole\nEcole\n');
    expect(found.matches.map((match) => match.line)).toEqual([1, 2]);
  });

  it('folds the way rg -i does, including letters that fold outside ASCII (ſ for s, the Kelvin sign for k)', () => {
    // "spin_lock" holds s and k: the prefilter is "pin_loc", and the line is checked against the whole literal.
    const text = 'SPIN_LOCK(a)\nspin_loc(b)\nſpin_lock(c)\nspin_locK(d)\nspin_loc\u212a(e)\npin_lock\n';
    expect(search('literal', 'spin_lock', text).matches.map((match) => match.line)).toEqual([1, 3, 4, 5]);
    // Too short a run for a prefilter ("ks"): RE2 over the whole file.
    expect(search('literal', 'ks', 'KS\n\u212aſ\nk s\n').count).toBe(2);
    // No s or k: RE2's folded literal scan alone.
    expect(search('literal', 'todo', 'ToDo\nto do\nxTODOx\n').matches.map(({ line, column }) => [line, column])).toEqual([[1, 1], [3, 2]]);
  });

  it('matches a case-sensitive literal byte for byte, non-ASCII included', () => {
    const matcher = createMatcher('literal', 'École', false);
    const found = searchContent(Buffer.from('école\nÉcole\nune École\n'), 'f.txt', matcher, 10, 0);
    expect(found.matches.map(({ line, column }) => [line, column])).toEqual([[2, 1], [3, 5]]);
  });

  it('checks the lines a folded prefilter finds against the case-sensitive regex', () => {
    // `_error(` starts with punctuation, so it is searched folded; `X_ERROR(` must not count.
    const found = search('regex', String.raw`\w+_error\(`, 'X_ERROR(a)\nfs_error(b)\n_error(c)\nA_Error(d)\nb_error(e) x_error(f)\n');
    expect(found.matches.map(({ line, column }) => [line, column])).toEqual([[2, 1], [5, 1]]);
  });

  it('folds a regex when asked, as rg -i', () => {
    const matcher = createMatcher('regex', 'to+do', true);
    expect(searchContent(Buffer.from('TOODO\ntodo\nto-do\n'), 'f.txt', matcher, 10, 0).count).toBe(2);
  });

  it('searches a literal without letters byte for byte', () => {
    expect(search('literal', '++', 'i++\nj--\n++k\n').count).toBe(2);
  });

  it('is case-sensitive in regex mode unless (?i) says otherwise', () => {
    expect(search('regex', 'todo', 'TODO\ntodo\n').count).toBe(1);
    expect(search('regex', '(?i)todo', 'TODO\ntodo\nnone\n').count).toBe(2);
  });

  it('gives context lines, clipped at the start and the end of the file', () => {
    const text = 'one\ntwo\nthree\nfour\nfive';
    const [first] = search('literal', 'one', text).matches;
    expect(first).toMatchObject({ line: 1, before: [], after: ['two', 'three'] });
    const [last] = search('literal', 'five', text).matches;
    expect(last).toMatchObject({ line: 5, before: ['three', 'four'], after: [] });
    const [middle] = search('literal', 'three', text, 10, 1).matches;
    expect(middle).toMatchObject({ before: ['two'], after: ['four'] });
  });

  it('handles CRLF files: no \\r in the text, line numbers and $ as ripgrep has them', () => {
    const text = 'alpha\r\nbeta\r\ngamma\r\n';
    const [match] = search('literal', 'beta', text).matches;
    expect(match).toEqual({ path: 'f.txt', line: 2, column: 1, text: 'beta', before: ['alpha'], after: ['gamma'] });
    expect(search('regex', 'beta\\r$', text).count).toBe(1);
  });

  it('counts every matching line but describes only the first `keep`', () => {
    const text = Array.from({ length: 30 }, (_, index) => `line ${index} match`).join('\n');
    const found = search('literal', 'MATCH', text, 3);
    expect(found.count).toBe(30);
    expect(found.matches.map((match) => match.line)).toEqual([1, 2, 3]);
  });

  it('anchors ^ and $ at line boundaries while running over the whole file', () => {
    const text = 'import a\n  import b\nimport c\n';
    expect(search('regex', '^import', text).matches.map((match) => match.line)).toEqual([1, 3]);
    expect(search('regex', '[bc]$', text).matches.map((match) => match.line)).toEqual([2, 3]);
  });

  it('counts a line only for a match inside it, never one that spans a line break', () => {
    // Over the whole file `a\sb` would match "a\nb"; line by line it must not.
    expect(search('regex', 'a\\sb', 'xa\nby\n').count).toBe(0);
    expect(search('regex', 'a\\sb', 'xa\nby\na b\n').matches.map((match) => match.line)).toEqual([3]);
    expect(search('regex', '(?s)a.b', 'a\nb\naxb\n').matches.map((match) => match.line)).toEqual([3]);
  });

  it('uses the required literal only as a prefilter: the regex still decides', () => {
    const found = search('regex', '\\w+_error\\(', 'x_error(\n_error(\nlog_error (\nmy_error(1)\n');
    expect(found.matches.map((match) => match.line)).toEqual([1, 4]);
  });

  it('counts empty-match patterns once per line, and nothing in an empty file', () => {
    expect(search('regex', '^', 'a\nb\n').count).toBe(2);
    expect(search('regex', '$', 'a\nb').count).toBe(2);
    expect(search('regex', 'x*', '').count).toBe(0);
  });

  it('reports columns in characters of the decoded line', () => {
    const [match] = search('literal', 'needle', 'héllo wörld needle\n').matches;
    expect(match.column).toBe(13);
  });

  it('shortens very long lines around the match', () => {
    const line = `${'x'.repeat(5000)}needle${'y'.repeat(5000)}`;
    const [match] = search('literal', 'needle', line).matches;
    expect(match.text.length).toBeLessThanOrEqual(MAX_LINE_CHARS + 2);
    expect(match.text.slice(match.column - 1, match.column - 1 + 6)).toBe('needle');
    expect(match.text.startsWith('…') && match.text.endsWith('…')).toBe(true);
  });

  it('runs (a+)+$ over 100,000 a\'s in linear time (RE2: no catastrophic backtracking)', () => {
    const started = performance.now();
    const found = search('regex', '(a+)+$', `${'a'.repeat(100_000)}!\n${'a'.repeat(100_000)}\n`);
    expect(found.count).toBe(1);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
