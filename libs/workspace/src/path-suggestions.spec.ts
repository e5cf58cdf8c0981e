import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, realpath } from 'node:fs/promises';
import { formatSuggestion, suggestPaths } from './path-suggestions';
import { addFiles, makeTempTree, removeTempTree } from './testing/temp-tree';

const hasGit = spawnSync('git', ['--version']).status === 0;

describe('suggestPaths', () => {
  let root: string;

  beforeAll(async () => {
    root = await realpath(
      await makeTempTree({
        'src/App.ts': '',
        'src/utils.ts': '',
        'src/components/Button.tsx': '',
        'src/components/Modal.tsx': '',
        'lib/helpers/format.ts': '',
        'docs/guide/install.md': '',
        'docs/my notes.md': '',
        'docs/日本語.md': '',
        'README.md': '',
        'build/out.js': '',
        '.gitignore': 'build/\n',
      }),
    );
  });

  afterAll(() => removeTempTree(root));

  it.each([
    ['a case-only mismatch', 'src/app.ts', 'src/App.ts'],
    ['a case-only mismatch of a directory', 'SRC/utils.ts', 'src/utils.ts'],
    ['another extension', 'src/utils.js', 'src/utils.ts'],
    ['a missing extension', 'src/utils', 'src/utils.ts'],
    ['the same name elsewhere', 'src/format.ts', 'lib/helpers/format.ts'],
    ['the same name elsewhere, deep', 'install.md', 'docs/guide/install.md'],
    ['a typo (edit distance)', 'src/utlis.ts', 'src/utils.ts'],
    ['a typo in a directory name', 'src/compnents/Button.tsx', 'src/components/Button.tsx'],
    ['a directory with a typo', 'src/compnents/', 'src/components'],
    ['a name with spaces', 'docs/my note.md', 'docs/my notes.md'],
    ['a Unicode name', 'docs/日本.md', 'docs/日本語.md'],
    ['a ./ prefix', './src/utlis.ts', 'src/utils.ts'],
  ])('finds %s', async (_label, missing, expected) => {
    const suggestions = await suggestPaths(root, missing);
    expect(suggestions[0]).toBe(expected);
  });

  it('orders kinds by confidence: case mismatch before other extension before edit distance', async () => {
    await addFiles(root, { 'x/Data.json': '', 'x/data.yaml': '', 'x/date.json': '' });
    expect(await suggestPaths(root, 'x/data.json')).toEqual(['x/Data.json', 'x/data.yaml', 'x/date.json']);
  });

  it('honours the limit and never suggests the missing path itself', async () => {
    const suggestions = await suggestPaths(root, 'src/components/Butto.tsx', { limit: 1 });
    expect(suggestions).toEqual(['src/components/Button.tsx']);
    expect(await suggestPaths(root, 'anything', { limit: 0 })).toEqual([]);
  });

  it('suggests nothing for a name unlike anything in the tree', async () => {
    expect(await suggestPaths(root, 'completely/unrelated-thing.rs')).toEqual([]);
  });

  it('does not suggest gitignored files (it uses the walker)', async () => {
    expect(await suggestPaths(root, 'build/out.ts')).toEqual([]);
  });

  it('uses the file list it is given instead of walking', async () => {
    expect(await suggestPaths(root, 'given.ts', { files: ['elsewhere/given.ts'] })).toEqual(['elsewhere/given.ts']);
  });

  (hasGit ? describe : describe.skip)('in a git repository', () => {
    let repo: string;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });

    beforeAll(async () => {
      repo = await realpath(await makeTempTree({ 'pkg/src/legacy.ts': 'export const legacy = "a fairly long body so rename detection has content";\n', 'pkg/other.ts': '' }));
      git('init', '-q');
      git('config', 'user.email', 'test@example.com');
      git('config', 'user.name', 'Test');
      git('config', 'commit.gpgsign', 'false');
      git('add', '.');
      git('commit', '-qm', 'first');
      git('mv', 'pkg/src/legacy.ts', 'pkg/src/modern.ts');
      git('commit', '-qm', 'rename once');
      await mkdir(`${repo}/pkg/lib`);
      git('mv', 'pkg/src/modern.ts', 'pkg/lib/current.ts');
      git('commit', '-qm', 'rename twice');
    });

    afterAll(() => removeTempTree(repo));

    it('suggests where a renamed file went, following several renames', async () => {
      expect((await suggestPaths(repo, 'pkg/src/legacy.ts'))[0]).toBe('pkg/lib/current.ts');
      expect((await suggestPaths(repo, 'pkg/src/modern.ts'))[0]).toBe('pkg/lib/current.ts');
    });

    it('works from a workspace root inside the repository', async () => {
      expect((await suggestPaths(`${repo}/pkg`, 'src/legacy.ts'))[0]).toBe('lib/current.ts');
    });

    it('treats a path that looks like pathspec magic as a plain name', async () => {
      expect(await suggestPaths(repo, ':(glob)**')).toEqual([]);
    });
  });
});

describe('formatSuggestion', () => {
  it('phrases none, one and several suggestions', () => {
    expect(formatSuggestion([])).toBeUndefined();
    expect(formatSuggestion(['src/utils.ts'])).toBe('Did you mean src/utils.ts?');
    expect(formatSuggestion(['a', 'b', 'c'])).toBe('Did you mean one of: a, b, c?');
  });
});
