import fc from 'fast-check';
import { resolveReferences } from '../deixis';
import { FileListView } from '../workspace-view';
import { cleanQuery } from './text';
import { planWithRules } from './rule-planner';

const view = new FileListView(['README.md', 'package.json', 'src/app.ts', 'src/api/users.ts', 'docs/guide.md', 'lib/a.ts']);
const first = (query: string, context = {}) => planWithRules(query, { view, references: resolveReferences(query, context) }).tools[0];

describe('rule planner', () => {
  it('ignores politeness, filler and case', () => {
    expect(cleanQuery('Hey, could you please list the files in src? Thanks!')).toBe('list the files in src');
    expect(first('HEY CAN YOU LIST THE FILES IN src PLEASE')).toMatchObject({ name: 'list_files', args: { directory: 'src' } });
  });

  it('fixes typos of keywords but never of arguments', () => {
    expect(cleanQuery('lsit fiels in src')).toBe('list files in src');
    expect(cleanQuery('open serach.ts')).toBe('open serach.ts');
    expect(first('serach for fetchUser')).toEqual({ name: 'search', args: { query: 'fetchUser' }, confidence: 0.9 });
    expect(first('fnd users.ts')).toMatchObject({ name: 'find_files', args: { pattern: 'users.ts' } });
  });

  it.each([
    ['ls src/api', 'list_files', { directory: 'src/api' }],
    ['ls -R', 'list_files', { directory: '.', recursive: true }],
    ['cat README.md', 'read_file', { path: 'README.md' }],
    ['head -n 20 src/app.ts', 'read_file', { path: 'src/app.ts', start_line: 1, end_line: 20 }],
    ['grep -r foo src', 'grep', { pattern: 'foo', directory: 'src' }],
    ["find . -name '*.ts'", 'find_files', { pattern: '*.ts' }],
    ['rg foo', 'grep', { pattern: 'foo' }],
    ['curl https://example.com/x', 'fetch_url', { url: 'https://example.com/x' }],
  ])('reads the shell form %s', (query, name, args) => {
    expect(first(query)).toEqual({ name, args, confidence: 0.95 });
  });

  it('keeps "." and "()" literal in plain-text search, and uses grep for regexes, anchors and file types', () => {
    expect(first('search for app.listen()')).toMatchObject({ name: 'search', args: { query: 'app.listen()' } });
    expect(first("search for '^import'")).toMatchObject({ name: 'grep', args: { pattern: '^import' } });
    expect(first('search for TODO in typescript files')).toMatchObject({ name: 'grep', args: { pattern: 'TODO', glob: '*.ts' } });
    expect(first('grep for fetchUser')).toMatchObject({ name: 'grep', args: { pattern: 'fetchUser' } });
  });

  it('lists recursively only when asked', () => {
    expect(first('list files in src').args).toEqual({ directory: 'src' });
    expect(first('list files in src recursively').args).toEqual({ directory: 'src', recursive: true });
    expect(first('show the project structure').args).toEqual({ directory: '.', recursive: true });
  });

  it('reads line ranges in their usual phrasings', () => {
    expect(first('show me lines 10-20 of src/app.ts').args).toEqual({ path: 'src/app.ts', start_line: 10, end_line: 20 });
    expect(first('line 7 of src/app.ts').args).toEqual({ path: 'src/app.ts', start_line: 7, end_line: 7 });
    expect(first('first 5 lines of README.md').args).toEqual({ path: 'README.md', start_line: 1, end_line: 5 });
    expect(first('show src/app.ts from line 40').args).toEqual({ path: 'src/app.ts', start_line: 40 });
  });

  it('needs no tool for how-to questions and chit-chat', () => {
    for (const query of ['how do I list files in bash?', 'hello', 'thanks!', 'what is a closure', 'how to undo a git commit']) {
      expect(planWithRules(query, { view })).toMatchObject({ needs_tools: false, tools: [] });
    }
  });

  it('answers "how do I build this" with stack detection, not as a how-to', () => {
    expect(first('how do I build this?')).toMatchObject({ name: 'detect_stack', args: { directory: '.' } });
  });

  it('resolves deictic words from the context, not from the text', () => {
    expect(first('what is in this directory?', { cwd: 'src/api' }).args).toEqual({ directory: 'src/api' });
    expect(first('show this file', { activeFile: 'src/app.ts' }).args).toEqual({ path: 'src/app.ts' });
    expect(first('open the file above', { lastFile: 'docs/guide.md' }).args).toEqual({ path: 'docs/guide.md' });
    expect(first('list that folder', { lastDir: 'lib' }).args).toEqual({ directory: 'lib' });
    // Quoted words are what to search for, never a reference.
    expect(first('search for "this file"', { activeFile: 'src/app.ts' }).args).toEqual({ query: 'this file' });
  });

  it('leaves a deictic file it cannot resolve unset, with low confidence', () => {
    expect(first('show this file')).toEqual({ name: 'read_file', args: {}, confidence: 0.45 });
  });

  it('passes URLs through verbatim', () => {
    expect(first('what does https://Example.com/a_(b)?x=1 say?').args).toEqual({ url: 'https://Example.com/a_(b)?x=1' });
  });

  it('never throws and always answers with at most one step, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (query) => {
        const plan = planWithRules(query, { view });
        expect(plan.tools.length).toBeLessThanOrEqual(1);
        expect(plan.needs_tools).toBe(plan.tools.length === 1);
      }),
      { numRuns: 500 },
    );
  });
});
