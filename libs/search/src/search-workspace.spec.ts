import { mkdir, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { addFiles, makeTempTree, removeTempTree } from '../../workspace/src/testing/temp-tree';
import { closeSharedSearchPool, formatMatches, searchWorkspace, type SearchRequest } from '.';

afterAll(() => closeSharedSearchPool());

const search = (root: string, request: Omit<SearchRequest, 'root'>) => searchWorkspace({ root, ...request });
const places = (result: { matches: Array<{ path: string; line: number }> }) => result.matches.map((match) => `${match.path}:${match.line}`);

describe('searchWorkspace on a small tree', () => {
  let root: string;
  beforeAll(async () => {
    root = await makeTempTree({
      '.gitignore': 'dist/\n*.log\n',
      'src/app.ts': 'import x\n// TODO(alice): fix\nconst todo = 1;\n',
      'src/util/helpers.ts': 'export const a = 1;\n// Todo later\n',
      'src/view.tsx': 'todo in tsx\n',
      'docs/guide.md': 'Nothing to do here.\nA TODO list.\n',
      'dist/bundle.js': '// TODO from the build output\n',
      'debug.log': 'TODO in a log\n',
      'assets/logo.png': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]), Buffer.from('TODO')]),
      '.hidden/notes.md': 'todo: hidden files are searched with `hidden`, as rg --hidden does\n',
    });
  });
  afterAll(() => removeTempTree(root));

  it('finds a literal case-insensitively, sorted by path then line, skipping ignored, hidden and binary files', async () => {
    const result = await search(root, { mode: 'literal', pattern: 'todo' });
    expect(places(result)).toEqual(['docs/guide.md:2', 'src/app.ts:2', 'src/app.ts:3', 'src/util/helpers.ts:2', 'src/view.tsx:1']);
    expect(result).toMatchObject({ totalMatches: 5, filesMatched: 4, filesSearched: 4, truncated: false, timedOut: false, ignoreCase: true });
    expect(result.skipped).toEqual({ binary: 1, tooLarge: 0, unreadable: 0 });
  });

  it('searches hidden files with `hidden`, and a hidden directory it is pointed at', async () => {
    const result = await search(root, { mode: 'literal', pattern: 'todo', hidden: true });
    expect(places(result)[0]).toBe('.hidden/notes.md:1');
    expect(result.totalMatches).toBe(6);
    expect(places(await search(root, { mode: 'literal', pattern: 'todo', directory: '.hidden' }))).toEqual(['.hidden/notes.md:1']);
  });

  it('folds case as asked: sensitive, insensitive, or smart (upper case in the pattern means sensitive)', async () => {
    const total = async (pattern: string, caseSensitivity: SearchRequest['caseSensitivity'], mode: SearchRequest['mode'] = 'literal') =>
      (await search(root, { mode, pattern, caseSensitivity })).totalMatches;
    expect(await total('todo', 'sensitive')).toBe(2);
    expect(await total('TODO', 'sensitive')).toBe(2);
    expect(await total('TODO', 'insensitive')).toBe(5);
    expect(await total('todo', 'smart')).toBe(5);
    expect(await total('Todo', 'smart')).toBe(1);
    expect(await total('t\\w+o', 'smart', 'regex')).toBe(5);
    expect(await total('T\\w+O', 'smart', 'regex')).toBe(2);
    expect((await search(root, { mode: 'regex', pattern: 'TODO', caseSensitivity: 'insensitive' })).ignoreCase).toBe(true);
  });

  it('returns every matching file with its count when asked', async () => {
    const result = await search(root, { mode: 'literal', pattern: 'todo', countsPerFile: true, maxMatches: 1 });
    expect(result.fileCounts).toEqual([
      { path: 'docs/guide.md', count: 1 },
      { path: 'src/app.ts', count: 2 },
      { path: 'src/util/helpers.ts', count: 1 },
      { path: 'src/view.tsx', count: 1 },
    ]);
    expect((await search(root, { mode: 'literal', pattern: 'todo' })).fileCounts).toBeUndefined();
  });

  it('reads files larger than the read buffer whole, and caps them by size', async () => {
    const big = await makeTempTree({ 'big.txt': `${'x'.repeat(99)}\n`.repeat(30_000) + 'needle at the end\n', 'small.txt': 'needle\n' });
    try {
      const whole = await search(big, { mode: 'literal', pattern: 'needle' });
      expect(places(whole)).toEqual(['big.txt:30001', 'small.txt:1']);
      expect(whole.skipped.tooLarge).toBe(0);
      const small = await searchWorkspace({ root: big, mode: 'literal', pattern: 'needle' }, { maxFileBytes: 2 * 1024 * 1024 });
      expect(small).toMatchObject({ totalMatches: 1, skipped: { tooLarge: 1 } });
    } finally {
      await removeTempTree(big);
    }
  });

  it('skips a file with a NUL past its first 8 KB when it matches, as ripgrep does', async () => {
    const late = await makeTempTree({
      'late.txt': Buffer.concat([Buffer.from('todo\n'.repeat(4_000)), Buffer.from([0]), Buffer.from('todo\n')]),
      'clean.txt': 'todo\n',
    });
    try {
      const result = await search(late, { mode: 'literal', pattern: 'todo' });
      expect(result).toMatchObject({ totalMatches: 1, filesSearched: 1, skipped: { binary: 1, tooLarge: 0, unreadable: 0 } });
      expect(places(result)).toEqual(['clean.txt:1']);
    } finally {
      await removeTempTree(late);
    }
  });

  it('runs RE2 case-sensitively, and case-insensitively with (?i)', async () => {
    expect(places(await search(root, { mode: 'regex', pattern: 'TODO\\(\\w+\\)' }))).toEqual(['src/app.ts:2']);
    expect(places(await search(root, { mode: 'regex', pattern: '(?i)^// todo' }))).toEqual(['src/app.ts:2', 'src/util/helpers.ts:2']);
  });

  it('searches only the given directory', async () => {
    const result = await search(root, { mode: 'literal', pattern: 'todo', directory: 'src/util' });
    expect(places(result)).toEqual(['src/util/helpers.ts:2']);
    expect(result.filesSearched).toBe(1);
    expect(places(await search(root, { mode: 'literal', pattern: 'todo', directory: './src/' }))).toHaveLength(4);
  });

  it('filters files by glob, on the name without a slash and on the path with one', async () => {
    expect(places(await search(root, { mode: 'literal', pattern: 'todo', glob: '*.tsx' }))).toEqual(['src/view.tsx:1']);
    expect(places(await search(root, { mode: 'literal', pattern: 'todo', glob: 'src/**/*.ts' }))).toEqual(['src/app.ts:2', 'src/app.ts:3', 'src/util/helpers.ts:2']);
    expect(places(await search(root, { mode: 'literal', pattern: 'todo', glob: 'src/*.ts' }))).toEqual(['src/app.ts:2', 'src/app.ts:3']);
  });

  it.each(['..', '../x', 'src/../../etc', '/etc'])('refuses the directory %s as path_outside_root', async (directory) => {
    await expect(search(root, { mode: 'literal', pattern: 'x', directory })).rejects.toMatchObject({ kind: 'path_outside_root' });
  });

  it('refuses a symlinked directory that leads out of the root', async () => {
    const outside = await makeTempTree({ 'secret.txt': 'todo secret\n' });
    try {
      await symlink(outside, path.join(root, 'escape'));
      await expect(search(root, { mode: 'literal', pattern: 'todo', directory: 'escape' })).rejects.toMatchObject({ kind: 'path_outside_root' });
      // And the walk never follows it either.
      expect(places(await search(root, { mode: 'literal', pattern: 'secret' }))).toEqual([]);
    } finally {
      await removeTempTree(outside);
    }
  });

  it('says which directory was meant when one is missing', async () => {
    await expect(search(root, { mode: 'literal', pattern: 'x', directory: 'src/utl' })).rejects.toMatchObject({
      kind: 'file_not_found',
      suggestion: 'Did you mean "src/util"?',
    });
  });

  it('rejects empty, too long and RE2-unsupported patterns before searching', async () => {
    await expect(search(root, { mode: 'literal', pattern: '' })).rejects.toMatchObject({ kind: 'pattern_invalid' });
    await expect(search(root, { mode: 'regex', pattern: 'a'.repeat(1001) })).rejects.toMatchObject({ kind: 'pattern_invalid' });
    await expect(search(root, { mode: 'regex', pattern: '(?<=a)b' })).rejects.toMatchObject({ kind: 'regex_invalid', message: expect.stringContaining('lookbehind') });
  });

  it('counts files over the size cap as skipped', async () => {
    const result = await searchWorkspace({ root, mode: 'literal', pattern: 'todo' }, { maxFileBytes: 40 });
    // src/app.ts (45 bytes) is over the 40-byte cap (.hidden/notes.md too, but hidden files are not searched).
    expect(result.skipped.tooLarge).toBe(1);
    expect(places(result)).toEqual(['docs/guide.md:2', 'src/util/helpers.ts:2', 'src/view.tsx:1']);
  });

  it('formats matches like ripgrep for a prompt', async () => {
    const result = await search(root, { mode: 'literal', pattern: 'todo', glob: 'src/**', contextLines: 1 });
    expect(formatMatches(result)).toBe(
      [
        'src/app.ts-1-import x',
        'src/app.ts:2:// TODO(alice): fix',
        'src/app.ts:3:const todo = 1;',
        '--',
        'src/util/helpers.ts-1-export const a = 1;',
        'src/util/helpers.ts:2:// Todo later',
        '--',
        'src/view.tsx:1:todo in tsx',
        '(4 matching lines in 3 files, 3 searched)',
      ].join('\n'),
    );
  });
});

describe('searchWorkspace on many files', () => {
  let root: string;
  beforeAll(async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 150; index++) files[`dir${index % 7}/file${String(index).padStart(3, '0')}.txt`] = `head\nmatch ${index}\nmiddle\nMATCH again\n`;
    root = await makeTempTree(files);
  });
  afterAll(() => removeTempTree(root));

  it('keeps the first maxMatches by path and line, counting all, across several worker batches', async () => {
    const result = await search(root, { mode: 'literal', pattern: 'match', maxMatches: 5 });
    expect(result).toMatchObject({ totalMatches: 300, filesMatched: 150, filesSearched: 150, truncated: true });
    expect(places(result)).toEqual(['dir0/file000.txt:2', 'dir0/file000.txt:4', 'dir0/file007.txt:2', 'dir0/file007.txt:4', 'dir0/file014.txt:2']);
    expect(formatMatches(result)).toContain('(showing the first 5 of 300 matching lines in 150 files, 150 searched)');
  });

  it('returns the same first matches whatever maxMatches is (threads skip describing files past their own first ones)', async () => {
    const all = await search(root, { mode: 'regex', pattern: 'match \\d+', maxMatches: 1_000 });
    for (const keep of [1, 7, 40]) {
      const some = await search(root, { mode: 'regex', pattern: 'match \\d+', maxMatches: keep });
      expect(some.matches).toEqual(all.matches.slice(0, keep));
      expect(some.totalMatches).toBe(all.totalMatches);
    }
  });

  it('gives the same answer on every run', async () => {
    const first = await search(root, { mode: 'regex', pattern: 'match \\d+', maxMatches: 40 });
    const second = await search(root, { mode: 'regex', pattern: 'match \\d+', maxMatches: 40 });
    expect(second.matches).toEqual(first.matches);
    const sorted = [...first.matches].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    expect(first.matches).toEqual(sorted);
  });
});

describe('searchWorkspace under load', () => {
  const FILES = 64;
  let root: string;
  beforeAll(async () => {
    root = await makeTempTree();
    // 64 files of 2 MiB, one matching line each at the end: long enough to interrupt.
    const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit sed do\n'.repeat(Math.ceil((2 * 1024 * 1024) / 64));
    await mkdir(path.join(root, 'big'));
    for (let index = 0; index < FILES; index++) await writeFile(path.join(root, 'big', `f${index}.txt`), `${filler}the needle is here\n`);
    await addFiles(root, { 'redos.txt': `${'a'.repeat(100_000)}\n` });
  });
  afterAll(() => removeTempTree(root));

  it('returns a partial result flagged timedOut when the budget runs out', async () => {
    // A regex with no literal to prefilter on, so every byte goes through RE2.
    const started = performance.now();
    const result = await search(root, { mode: 'regex', pattern: '(?i)n[e]+dle is', directory: 'big', timeoutMs: 30 });
    expect(result.timedOut).toBe(true);
    expect(result.filesSearched).toBeLessThan(FILES);
    // Each searched file has exactly one match: the partial counts are consistent.
    expect(result.totalMatches).toBe(result.filesSearched);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('finishes the same search when the budget allows, without blocking the event loop', async () => {
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    // Every line of all 64 files matches (2 million matching lines): long enough on a fast machine too.
    // A budget no run reaches (the default 10 s is reached on a loaded machine): this is about the loop, not the budget.
    const result = await search(root, { mode: 'regex', pattern: '(?i)lorem', directory: 'big', timeoutMs: 120_000 });
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(result).toMatchObject({ timedOut: false, totalMatches: FILES * 32768, filesSearched: FILES });
    expect(elapsed).toBeGreaterThan(200); // long enough that a blocked loop would show
    expect(longestGap).toBeLessThan(150);
    expect(ticks).toBeGreaterThan(elapsed / 5 / 4);
  }, 130_000);

  it('rejects with the signal\'s reason when aborted mid-search, and at once when aborted before', async () => {
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    setTimeout(() => controller.abort(reason), 40);
    const started = performance.now();
    await expect(search(root, { mode: 'regex', pattern: '(?i)lorem', signal: controller.signal })).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1000);
    await expect(search(root, { mode: 'literal', pattern: 'x', signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    // The pool recovers: the next search runs normally.
    expect((await search(root, { mode: 'literal', pattern: 'NEEDLE', directory: 'big', glob: 'f1.txt' })).totalMatches).toBe(1);
  });

  it('runs (a+)+$ over a line of 100,000 a\'s quickly', async () => {
    const started = performance.now();
    const result = await search(root, { mode: 'regex', pattern: '(a+)+$', glob: 'redos.txt' });
    expect(result.totalMatches).toBe(1);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
