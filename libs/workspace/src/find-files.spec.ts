import { realpath } from 'node:fs/promises';
import { findFiles } from './find-files';
import { failure } from './testing/failure';
import { makeTempTree, removeTempTree } from './testing/temp-tree';


describe('findFiles', () => {
  let root: string;

  beforeAll(async () => {
    root = await realpath(
      await makeTempTree({
        '.gitignore': 'dist/\n',
        'config.json': '{}',
        'packages/api/config.json': '{}',
        'packages/api/src/auth.ts': '',
        'packages/api/src/authService.ts': '',
        'packages/api/src/oauth.ts': '',
        'packages/web/src/App.tsx': '',
        'packages/web/src/app.css': '',
        'packages/web/pages/[id].tsx': '',
        'packages/web/pages/a.tsx': '',
        'src/index.ts': '',
        'src/index.js': '',
        'docs/Read Me.md': '',
        'docs/日本語.md': '',
        'dist/config.json': 'ignored',
        'dist/auth.ts': 'ignored',
      }),
    );
  });

  afterAll(() => removeTempTree(root));

  it.each([
    ['a bare name, at any depth, shallowest first', 'config.json', ['config.json', 'packages/api/config.json']],
    ['a path tail', 'api/config.json', ['packages/api/config.json']],
    ['a ./ prefixed name', './config.json', ['config.json', 'packages/api/config.json']],
    ['*.ext', '*.tsx', ['packages/web/pages/[id].tsx', 'packages/web/pages/a.tsx', 'packages/web/src/App.tsx']],
    ['**/ with a prefix', '**/auth*.ts', ['packages/api/src/auth.ts', 'packages/api/src/authService.ts']],
    ['braces', 'src/index.{ts,js}', ['src/index.js', 'src/index.ts']],
    ['?', 'index.?s', ['src/index.js', 'src/index.ts']],
    ['a class', '[ao]uth.ts', ['packages/api/src/auth.ts']],
    ['a name with spaces', 'Read Me.md', ['docs/Read Me.md']],
    ['a Unicode glob', '日本*.md', ['docs/日本語.md']],
    ['a literal name that looks like a glob', '[id].tsx', ['packages/web/pages/[id].tsx']],
  ])('finds %s', async (_label, pattern, expected) => {
    const found = await findFiles(root, { pattern });
    expect(found.matches).toEqual(expected);
    expect(found).toMatchObject({ total: expected.length, truncated: false, caseInsensitive: false });
  });

  it('falls back to case-insensitive matching, and says so', async () => {
    expect(await findFiles(root, { pattern: 'app.tsx' })).toMatchObject({ matches: ['packages/web/src/App.tsx'], caseInsensitive: true });
    expect(await findFiles(root, { pattern: 'READ*.MD' })).toMatchObject({ matches: ['docs/Read Me.md'], caseInsensitive: true });
  });

  it('prefers exact case when it matches', async () => {
    expect(await findFiles(root, { pattern: 'app.css' })).toMatchObject({ matches: ['packages/web/src/app.css'], caseInsensitive: false });
  });

  it('searches below a directory, returning root-relative paths', async () => {
    expect((await findFiles(root, { pattern: '*.json', directory: 'packages' })).matches).toEqual(['packages/api/config.json']);
    expect((await findFiles(root, { pattern: 'src/*.ts', directory: 'packages/api' })).matches).toEqual([
      'packages/api/src/auth.ts',
      'packages/api/src/authService.ts',
      'packages/api/src/oauth.ts',
    ]);
  });

  it('leaves hidden files out when hidden is false, unless the pattern starts with a dot', async () => {
    expect((await findFiles(root, { pattern: '.gitignore' })).matches).toEqual(['.gitignore']);
    expect((await findFiles(root, { pattern: '*', hidden: false })).matches).not.toContain('.gitignore');
    expect((await findFiles(root, { pattern: '*' })).matches).toContain('.gitignore');
    expect((await findFiles(root, { pattern: '.*', hidden: false })).matches).toEqual(['.gitignore']);
  });

  it('skips gitignored files', async () => {
    expect((await findFiles(root, { pattern: 'auth.ts' })).matches).toEqual(['packages/api/src/auth.ts']);
  });

  it('caps the matches and counts them all', async () => {
    expect(await findFiles(root, { pattern: '*.ts', maxResults: 2 })).toMatchObject({ matches: ['src/index.ts', 'packages/api/src/auth.ts'], total: 4, truncated: true });
  });

  it('finds nothing without failing', async () => {
    expect(await findFiles(root, { pattern: 'nothing-like-this.rs' })).toEqual({ matches: [], total: 0, truncated: false, caseInsensitive: false });
  });

  it('refuses empty and malformed patterns and bad directories with typed errors', async () => {
    expect((await failure(findFiles(root, { pattern: '  ' }))).kind).toBe('pattern_invalid');
    expect((await failure(findFiles(root, { pattern: '{a,b' }))).kind).toBe('pattern_invalid');
    expect((await failure(findFiles(root, { pattern: '*.ts', directory: '..' }))).kind).toBe('path_outside_root');
    expect((await failure(findFiles(root, { pattern: '*.ts', directory: 'config.json' }))).kind).toBe('input_invalid');
  });
});
