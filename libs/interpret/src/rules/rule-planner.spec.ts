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

  describe('issue 17 classes (one case each here; the corpus in eval/ has the families)', () => {
    // A workspace with directories named like English words.
    const wide = new FileListView(['and/notes.md', 'for/loop.py', 'with/context.py', 'src/in/reader.ts', 'src/routes/users.ts', 'docs/a.md', 'README.md', '.nvmrc', 'yarn.lock', 'src/utils/logger.ts']);
    const plan = (query: string, context = {}) => planWithRules(query, { view: wide, references: resolveReferences(query, context) }).tools[0];

    it('reads plain questions that name a thing to look for as a search', () => {
      expect(plan('are there any FIXME notes?')).toMatchObject({ name: 'search', args: { query: 'FIXME' } });
      expect(plan('does anything import axios?')).toMatchObject({ name: 'search', args: { query: 'axios' } });
      expect(plan('any TODOs left in src?')).toMatchObject({ name: 'search', args: { query: 'TODO', directory: 'src' } });
      expect(plan('is lodash used anywhere')).toMatchObject({ name: 'search', args: { query: 'lodash' } });
    });

    it('answers counting, size and date questions with the tool whose output has the answer', () => {
      expect(plan('how many lines is src/routes/users.ts')).toMatchObject({ name: 'read_file', args: { path: 'src/routes/users.ts' } });
      expect(plan('how big is yarn.lock')).toMatchObject({ name: 'list_files', args: { directory: '.', pattern: 'yarn.lock' } });
      expect(plan('when was docs/a.md last modified')).toMatchObject({ name: 'list_files', args: { directory: 'docs', pattern: 'a.md' } });
      expect(plan('how many times does TODO appear')).toMatchObject({ name: 'search', args: { query: 'TODO' } });
      expect(plan('how many python files are there')).toMatchObject({ name: 'find_files', args: { pattern: '*.py' } });
    });

    it('never lets a word of the sentence leak into an argument', () => {
      expect(plan('search for TODO')).toEqual({ name: 'search', args: { query: 'TODO' }, confidence: 0.9 });
      expect(plan('find files with test in the name')).toMatchObject({ args: { pattern: '*test*' } });
      expect(plan('search for retry with backoff')).toMatchObject({ args: { query: 'retry with backoff' } });
      expect(plan('who calls sendEmail')).toMatchObject({ args: { query: 'sendEmail' } });
      expect(plan("where's the createPool call")).toMatchObject({ args: { query: 'createPool' } });
      expect(plan('who uses the Logger class')).toMatchObject({ args: { query: 'Logger' } });
    });

    it('takes English-word directories only where a place is expected', () => {
      expect(plan('list files in and')).toMatchObject({ name: 'list_files', args: { directory: 'and' } });
      expect(plan("what's in the for folder?")).toMatchObject({ args: { directory: 'for' } });
      expect(plan('grep yield in with')).toMatchObject({ name: 'grep', args: { pattern: 'yield', directory: 'with' } });
      expect(plan('look for parse in src/in')).toMatchObject({ name: 'search', args: { query: 'parse', directory: 'src/in' } });
      expect(plan('look for queue in the in directory')).toMatchObject({ args: { query: 'queue', directory: 'in' } });
    });

    it('carries filters into the arguments: hidden, extension, recursive, limit', () => {
      expect(plan('list all files in src, hidden ones too')).toMatchObject({ args: { directory: 'src', hidden: true } });
      expect(plan('show hidden files')).toMatchObject({ args: { directory: '.', hidden: true, pattern: '.*' } });
      expect(plan('list the go files in for')).toMatchObject({ args: { directory: 'for', pattern: '*.go' } });
      expect(plan('list src recursively')).toMatchObject({ args: { directory: 'src', recursive: true } });
      expect(plan('list files in src, not recursively')).toEqual({ name: 'list_files', args: { directory: 'src' }, confidence: 0.9 });
      expect(plan('show me the first 5 matches for TODO')).toMatchObject({ name: 'search', args: { query: 'TODO', max_results: 5 } });
      expect(plan('find two json files')).toMatchObject({ name: 'find_files', args: { pattern: '*.json', max_results: 2 } });
      expect(plan('grep -m 3 TODO src')).toMatchObject({ name: 'grep', args: { pattern: 'TODO', directory: 'src', max_results: 3 } });
    });

    it('reads requests that contain a regex as grep, slashed, quoted or bare', () => {
      expect(plan(String.raw`find lines that match ^\s*import`)).toMatchObject({ name: 'grep', args: { pattern: String.raw`^\s*import` } });
      expect(plan('look for TODO|FIXME|XXX')).toMatchObject({ name: 'grep', args: { pattern: 'TODO|FIXME|XXX' } });
      expect(plan(String.raw`search /console\.(log|warn)/`)).toMatchObject({ name: 'grep', args: { pattern: String.raw`console\.(log|warn)` } });
      expect(plan('search for lines starting with #!')).toMatchObject({ name: 'grep', args: { pattern: '^#!' } });
      expect(plan('search for fetch( in javascript files')).toMatchObject({ name: 'grep', args: { pattern: String.raw`fetch\(`, glob: '*.js' } });
    });

    it('reads "which files contain …" as a content search, not a listing', () => {
      expect(plan('which files contain the word deprecated')).toMatchObject({ name: 'search', args: { query: 'deprecated' } });
      expect(plan('list the files containing TODO')).toMatchObject({ name: 'search', args: { query: 'TODO' } });
      expect(plan('what files reference logger.ts')).toMatchObject({ name: 'search', args: { query: 'logger.ts' } });
    });

    it('reads name-based finds as find_files with a glob', () => {
      expect(plan('files ending in .lock')).toMatchObject({ name: 'find_files', args: { pattern: '*.lock' } });
      expect(plan("any files whose name contains 'user'?")).toMatchObject({ args: { pattern: '*user*' } });
      expect(plan('list all files starting with README')).toMatchObject({ name: 'find_files', args: { pattern: 'README*' } });
      expect(plan('is there a .nvmrc')).toMatchObject({ name: 'find_files', args: { pattern: '.nvmrc' } });
      expect(plan('find files called parser')).toMatchObject({ args: { pattern: '*parser*' } });
    });

    it('resolves a file named without its extension when one file has that name', () => {
      expect(plan('open up the readme')).toMatchObject({ name: 'read_file', args: { path: 'README.md' } });
      expect(plan('read lines 5-6 of the logger')).toMatchObject({ args: { path: 'src/utils/logger.ts', start_line: 5, end_line: 6 } });
    });
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
