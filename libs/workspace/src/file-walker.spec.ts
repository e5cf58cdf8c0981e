import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, mkdir, symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { QuarryError } from '@quarry/contracts';
import { partialWalkOver, walkFiles } from './file-walker';
import { addFiles, makeTempTree, removeTempTree } from './testing/temp-tree';

const hasGit = spawnSync('git', ['--version']).status === 0;
const isRoot = process.getuid?.() === 0;

/** A tree exercising every gitignore rule the walker must get right. */
const IGNORE_CASES = {
  '.gitignore': [
    '# comment',
    '*.log',
    'build/',
    '/anchored.txt',
    'docs/**/draft.md',
    '**/tmp',
    '*.s',
    'secret/',
    'vendor/',
    '',
  ].join('\n'),
  '.git/info/exclude': 'excluded-by-info.txt\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  'app.log': 'ignored by *.log',
  'anchored.txt': 'ignored: /anchored.txt is anchored to the root',
  'excluded-by-info.txt': 'ignored by .git/info/exclude',
  'main.ts': 'kept',
  'boot.s': 'ignored by *.s',
  'boot.S': 'kept: ignore rules are case-sensitive',
  'a/build': 'kept: build/ only matches directories',
  'b/build/out.js': 'ignored: inside build/',
  'docs/draft.md': 'ignored: docs/**/draft.md, zero directories',
  'docs/x/y/draft.md': 'ignored: docs/**/draft.md',
  'docs/readme.md': 'kept',
  'docs/tmp': 'ignored: **/tmp',
  'deep/er/tmp/file.txt': 'ignored: inside **/tmp',
  'pkg/.gitignore': ['*.gen.ts', '!important.log', '!secret/allowed.txt', ''].join('\n'),
  'pkg/anchored.txt': 'kept: the root rule is anchored',
  'pkg/api.gen.ts': 'ignored by the deeper rule',
  'pkg/api.ts': 'kept',
  'pkg/important.log': 'kept: re-included by the deeper negation',
  'pkg/other.log': 'ignored by the root *.log',
  'pkg/secret/allowed.txt': 'ignored: its directory is excluded, a negation cannot re-include it',
  'pkg/nested/.gitignore': '!*.gen.ts\n',
  'pkg/nested/types.gen.ts': 'kept: the deepest file re-includes it',
  'lib/.gitignore': '!vendor/\n',
  'lib/vendor/dep.js': 'kept: the deeper file re-includes the directory',
  'lib/vendor/dep.log': 'ignored: the root *.log still applies inside it',
  'lib/vendor/build/x.js': 'ignored: the root build/ still applies inside it',
  'other/vendor/dep.js': 'ignored: vendor/ from the root',
  'sub/.git/config': 'ignored: any .git directory',
};

/** The same tree, but the root file has a negation, which sends all its rules through `ignore`. */
const WITH_ROOT_NEGATION = {
  ...IGNORE_CASES,
  '.gitignore': `${IGNORE_CASES['.gitignore']}!keep.log\n`,
  'keep.log': 'kept: re-included in the same file',
  // `ignore` alone would call it excluded, its parent being excluded by these very rules; git
  // matches each path on its own, and lib/.gitignore re-included the directory.
  'lib/vendor/keep.log': 'kept: re-included, in a re-included directory',
};

const KEPT = [
  '.gitignore',
  'a/build',
  'boot.S',
  'docs/readme.md',
  'lib/.gitignore',
  'lib/vendor/dep.js',
  'main.ts',
  'pkg/.gitignore',
  'pkg/anchored.txt',
  'pkg/api.ts',
  'pkg/important.log',
  'pkg/nested/.gitignore',
  'pkg/nested/types.gen.ts',
];

describe('walkFiles', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await chmod(root, 0o755).catch(() => undefined);
    await removeTempTree(root);
    root = undefined;
  });

  it('honours nested .gitignore files and .git/info/exclude, and skips .git', async () => {
    root = await makeTempTree(IGNORE_CASES);
    const result = await walkFiles(root);
    expect([...result.files].sort()).toEqual(KEPT);
    expect(result.skipped.symlinks).toBe(0);
    // Every ignored entry is counted once; an excluded directory's contents are never read.
    // app.log anchored.txt excluded-by-info.txt boot.s b/build docs/draft.md docs/x/y/draft.md docs/tmp
    // deep/er/tmp pkg/api.gen.ts pkg/other.log pkg/secret lib/vendor/dep.log lib/vendor/build other/vendor
    expect(result.skipped.ignored).toBe(15);
  });

  it('gives the same answers when the root file has a negation (all its rules go through ignore)', async () => {
    root = await makeTempTree(WITH_ROOT_NEGATION);
    const result = await walkFiles(root);
    expect([...result.files].sort()).toEqual([...KEPT, 'keep.log', 'lib/vendor/keep.log'].sort());
  });

  (hasGit ? it.each([
    ['without', IGNORE_CASES],
    ['with', WITH_ROOT_NEGATION],
  ]) : it.skip.each([['without', IGNORE_CASES]]))('lists exactly what git lists (%s a root negation)', async (_, spec) => {
    root = await makeTempTree(spec);
    const env = { ...process.env, HOME: root, XDG_CONFIG_HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    // git init keeps the existing .git/info/exclude and HEAD.
    execFileSync('git', ['init', '-q'], { cwd: root, env });
    const gitFiles = execFileSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: root, env, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .sort();
    const result = await walkFiles(root);
    expect([...result.files].sort()).toEqual(gitFiles);
  });

  describe('a root inside a repository', () => {
    const REPO = {
      '.git/info/exclude': 'secret.txt\n',
      '.gitignore': '*.log\nbuild/\n/top-only.txt\n',
      'sub/.gitignore': '!keep.log\ngenerated/\n',
      'sub/dir/a.ts': 'a',
      'sub/dir/b.log': 'b',
      'sub/dir/keep.log': 'kept by sub/.gitignore',
      'sub/dir/build/x.js': 'x',
      'sub/dir/generated/y.ts': 'y',
      'sub/dir/secret.txt': 's',
      'sub/dir/top-only.txt': 'anchored to the top: not this one',
      'sub/dir/deeper/c.ts': 'c',
    };

    it("applies the repository's exclude file and every .gitignore above the root, like git", async () => {
      root = await makeTempTree(REPO);
      const result = await walkFiles(path.join(root, 'sub', 'dir'));
      expect([...result.files].sort()).toEqual(['a.ts', 'deeper/c.ts', 'keep.log', 'top-only.txt']);
    });

    (hasGit ? it : it.skip)('lists exactly what git lists in that subdirectory', async () => {
      root = await makeTempTree(REPO);
      const env = { ...process.env, HOME: root, XDG_CONFIG_HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
      execFileSync('git', ['init', '-q'], { cwd: root, env });
      const cwd = path.join(root, 'sub', 'dir');
      const gitFiles = execFileSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd, env, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
      expect([...(await walkFiles(cwd)).files].sort()).toEqual(gitFiles);
    });
  });

  it('returns POSIX paths relative to the root', async () => {
    root = await makeTempTree({ 'a/b/c.txt': 'x', 'd.txt': 'y' });
    expect((await walkFiles(root)).files.sort()).toEqual(['a/b/c.txt', 'd.txt']);
  });

  it('hands each directory\'s files to onFiles as it goes, adding up to the result', async () => {
    root = await makeTempTree({ '.gitignore': 'x.log\n', 'a/b/c.txt': 'x', 'a/d.txt': 'y', 'e.txt': 'z', 'x.log': 'ignored' });
    const seen: string[][] = [];
    const { files } = await walkFiles(root, { onFiles: (found) => seen.push(found) });
    expect(seen.flat().sort()).toEqual([...files].sort());
    expect(seen.flat().sort()).toEqual(['.gitignore', 'a/b/c.txt', 'a/d.txt', 'e.txt']);
    expect(seen.every((batch) => batch.length > 0)).toBe(true);
  });

  it('never follows symlinks: a loop to a parent terminates and is counted', async () => {
    root = await makeTempTree({ 'a/b/file.txt': 'x' });
    await symlink('..', path.join(root, 'a', 'b', 'up'));
    await symlink(root, path.join(root, 'a', 'to-root'));
    const result = await walkFiles(root);
    expect(result.files).toEqual(['a/b/file.txt']);
    expect(result.skipped.symlinks).toBe(2);
  });

  it('does not follow a symlink that points outside the root', async () => {
    const outside = await makeTempTree({ 'secret.txt': 'outside the root' });
    try {
      root = await makeTempTree({ 'inside.txt': 'x' });
      await symlink(outside, path.join(root, 'linked-dir'));
      await symlink(path.join(outside, 'secret.txt'), path.join(root, 'linked-file.txt'));
      const result = await walkFiles(root);
      expect(result.files).toEqual(['inside.txt']);
      expect(result.skipped.symlinks).toBe(2);
    } finally {
      await removeTempTree(outside);
    }
  });

  it('counts an ignored symlink as ignored, not as a symlink', async () => {
    root = await makeTempTree({ '.gitignore': 'link\n', 'a.txt': 'x' });
    await symlink('a.txt', path.join(root, 'link'));
    const result = await walkFiles(root);
    expect(result.skipped).toMatchObject({ ignored: 1, symlinks: 0 });
  });

  it('skips FIFOs', async () => {
    root = await makeTempTree({ 'a.txt': 'x' });
    const made = spawnSync('mkfifo', [path.join(root, 'pipe')]);
    if (made.status !== 0) return; // no mkfifo here: nothing to test
    const result = await walkFiles(root);
    expect(result.files).toEqual(['a.txt']);
    expect(result.skipped.special).toBe(1);
  });

  (isRoot ? it.skip : it)('counts an unreadable directory instead of failing', async () => {
    root = await makeTempTree({ 'open/a.txt': 'x', 'closed/b.txt': 'y' });
    await chmod(path.join(root, 'closed'), 0o000);
    try {
      const result = await walkFiles(root);
      expect(result.files).toEqual(['open/a.txt']);
      expect(result.skipped.unreadable).toBe(1);
    } finally {
      await chmod(path.join(root, 'closed'), 0o755);
    }
  });

  it('reports progress as the count of files found so far', async () => {
    root = await makeTempTree({ 'a/1.txt': '', 'a/2.txt': '', 'b/3.txt': '' });
    const seen: number[] = [];
    await walkFiles(root, { onProgress: (found) => seen.push(found) });
    expect(seen.length).toBe(3); // one per directory: root, a, b
    expect(seen[seen.length - 1]).toBe(3);
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
  });

  it('rejects at once with an already-aborted signal', async () => {
    root = await makeTempTree({ 'a.txt': 'x' });
    const controller = new AbortController();
    controller.abort();
    await expect(walkFiles(root, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('stops between directory reads when aborted mid-walk', async () => {
    root = await makeTempTree();
    const files: Record<string, string> = {};
    for (let index = 0; index < 400; index++) files[`d${index % 40}/e${index % 7}/f${index}.txt`] = 'x';
    await addFiles(root, files);
    const controller = new AbortController();
    let reads = 0;
    const walk = walkFiles(root, {
      signal: controller.signal,
      concurrency: 1,
      onProgress: () => {
        if (++reads === 3) controller.abort();
      },
    });
    await expect(walk).rejects.toMatchObject({ name: 'AbortError' });
    expect(reads).toBe(3);
  });

  it('reports a missing root as root_not_found', async () => {
    root = await makeTempTree();
    const missing = path.join(root, 'nope');
    await expect(walkFiles(missing)).rejects.toMatchObject({ kind: 'root_not_found' });
    await expect(walkFiles(missing)).rejects.toBeInstanceOf(QuarryError);
  });

  it('reports a file given as root as root_not_directory', async () => {
    root = await makeTempTree({ 'a.txt': 'x' });
    await expect(walkFiles(path.join(root, 'a.txt'))).rejects.toMatchObject({ kind: 'root_not_directory' });
  });

  it('ignores an empty or comment-only .gitignore', async () => {
    root = await makeTempTree({ '.gitignore': '# nothing\n\n   \n', 'x/.gitignore': '', 'x/a.txt': '' });
    expect((await walkFiles(root)).files.sort()).toEqual(['.gitignore', 'x/.gitignore', 'x/a.txt']);
  });

  it('handles CRLF line endings and a BOM in .gitignore', async () => {
    root = await makeTempTree({ '.gitignore': '\uFEFFfirst.txt\r\n*.tmp\r\nout/\r\n', 'first.txt': '', 'a.tmp': '', 'out/x': '', 'kept.txt': '' });
    expect((await walkFiles(root)).files.sort()).toEqual(['.gitignore', 'kept.txt']);
  });

  it('walks an empty directory tree', async () => {
    root = await makeTempTree();
    await mkdir(path.join(root, 'empty', 'deeper'), { recursive: true });
    expect(await walkFiles(root)).toEqual({ files: [], skipped: { ignored: 0, symlinks: 0, unreadable: 0, special: 0 } });
  });
});

describe('partialWalkOver', () => {
  it('walks the parents of the changed paths and the directories on the way to them, and nothing else', async () => {
    const directories: Record<string, Array<[string, 'file' | 'directory' | 'symlink']>> = {
      '': [['a.txt', 'file'], ['src', 'directory'], ['docs', 'directory'], ['.gitignore', 'file']],
      src: [['x.ts', 'file'], ['deep', 'directory'], ['other', 'directory'], ['out.log', 'file'], ['link', 'symlink']],
      'src/deep': [['y.ts', 'file']],
      'src/other': [['z.ts', 'file']],
      docs: [['d.md', 'file']],
    };
    const visited: string[] = [];
    const tree = {
      readDirectory: async (relative: string) => {
        visited.push(relative);
        return (directories[relative] ?? []).map(([name, kind]) => ({ name, isFile: () => kind === 'file', isDirectory: () => kind === 'directory', isSymbolicLink: () => kind === 'symlink' }));
      },
      readText: async () => '*.log\n',
    };
    const only = partialWalkOver(['src/x.ts', 'src/deep/y.ts']);
    expect([...only.touched].sort()).toEqual(['src', 'src/deep']);
    const walked = await walkFiles('/', { tree, only });
    expect(walked.files.sort()).toEqual(['src/deep/y.ts', 'src/x.ts']);
    // src's own ignored file and symlink count; a.txt, docs/ and src/other/ are never looked at.
    expect(walked.skipped).toMatchObject({ ignored: 1, symlinks: 1 });
    expect(visited.sort()).toEqual(['', 'src', 'src/deep']);
  });
});
