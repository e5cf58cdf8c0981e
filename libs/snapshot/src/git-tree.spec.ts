import { GitTree, parseTreeChanges } from './git-tree';

const oid = (digit: string) => digit.repeat(40);
/** `git ls-tree -r -z` output, in git's order. */
const listing = [
  `100644 blob ${oid('1')}\t.gitignore`,
  `100644 blob ${oid('2')}\tREADME.md`,
  `100644 blob ${oid('3')}\tsrc/a.c`,
  `100755 blob ${oid('4')}\tsrc/build.sh`,
  `100644 blob ${oid('5')}\tsrc/deep/er/b.c`,
  `120000 blob ${oid('6')}\tsrc/link`,
  `100644 blob ${oid('7')}\tsrc/z.c`,
  `160000 commit ${oid('8')}\tvendor/lib`,
  `100644 blob ${oid('9')}\tvendor/lib.md`,
  `100644 blob ${oid('a')}\twith space/.gitignore`,
]
  .map((line) => `${line}\0`)
  .join('');

const entries = (tree: GitTree, directory: string) =>
  tree.directory(directory)?.map((entry) => `${entry.name}:${entry.isDirectory() ? 'dir' : entry.isSymbolicLink() ? 'link' : 'file'}`);

describe('GitTree.parse', () => {
  const tree = GitTree.parse(Buffer.from(listing));

  it('knows every file\'s blob and mode', () => {
    expect(tree.size).toBe(9);
    expect(tree.file('src/a.c')).toEqual({ oid: oid('3'), mode: '100644' });
    expect(tree.file('src/build.sh')).toEqual({ oid: oid('4'), mode: '100755' });
    expect(tree.file('src/link')).toEqual({ oid: oid('6'), mode: '120000' });
    expect(tree.file('src/deep/er/b.c')?.oid).toBe(oid('5'));
    expect(tree.file('vendor/lib')).toBeUndefined(); // a submodule is no file
    expect(tree.ignoreFiles).toEqual([oid('1'), oid('a')]);
  });

  it('lists each directory as a disk would, parents created on the way and a submodule as an empty directory', () => {
    expect(entries(tree, '')).toEqual(['.gitignore:file', 'README.md:file', 'src:dir', 'vendor:dir', 'with space:dir']);
    expect(entries(tree, '.')).toEqual(entries(tree, ''));
    expect(entries(tree, 'src')).toEqual(['a.c:file', 'build.sh:file', 'deep:dir', 'link:link', 'z.c:file']);
    expect(entries(tree, 'src/deep')).toEqual(['er:dir']);
    expect(entries(tree, 'src/deep/er')).toEqual(['b.c:file']);
    expect(entries(tree, 'vendor')).toEqual(['lib:dir', 'lib.md:file']);
    expect(entries(tree, 'vendor/lib')).toEqual([]);
    expect(entries(tree, 'missing')).toBeUndefined();
  });
});

describe('GitTree.derive', () => {
  const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
  const { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync, chmodSync } = require('node:fs') as typeof import('node:fs');
  const os = require('node:os') as typeof import('node:os');
  const path = require('node:path') as typeof import('node:path');

  let dir: string;
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  const commit = () => {
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', 'c');
    return git('rev-parse', 'HEAD').toString().trim();
  };
  /** Everything a walk or a scan can ask of a tree, directories' entries in name order. */
  const described = (tree: GitTree) => {
    const directories: Record<string, string[] | undefined> = {};
    const files: Record<string, unknown> = {};
    const visit = (directory: string) => {
      directories[directory] = entries(tree, directory)?.sort();
      for (const entry of tree.directory(directory) ?? []) {
        const child = directory === '' ? entry.name : `${directory}/${entry.name}`;
        if (entry.isDirectory()) visit(child);
        else files[child] = tree.file(child);
      }
    };
    visit('');
    return { size: tree.size, directories, files, blobs: [...tree.blobs()].sort(), ignoreFiles: [...tree.ignoreFiles].sort() };
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-git-tree-'));
    git('init', '-q', '-b', 'main');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives what parsing the next commit gives, over additions, deletions, modes, links, submodules and directories that come and go', () => {
    write('.gitignore', 'build/\n');
    write('README.md', 'one\n');
    write('src/a.c', 'a\n');
    write('src/lone/only.c', 'only\n');
    write('src/run.sh', '#!/bin/sh\n');
    write('becomes-dir', 'a file first\n');
    write('docs/x/.gitignore', '*.tmp\n');
    symlinkSync('README.md', path.join(dir, 'link'));
    // A submodule that is not checked out: an empty directory in the work tree, a gitlink in the index.
    mkdirSync(path.join(dir, 'vendor/old-sub'), { recursive: true });
    git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/old-sub`);
    const steps: Array<() => void> = [
      () => {
        write('README.md', 'two\n'); // modified
        unlinkSync(path.join(dir, 'src/lone/only.c')); // its directory goes
        chmodSync(path.join(dir, 'src/run.sh'), 0o755); // mode only
        unlinkSync(path.join(dir, 'link'));
        write('link', 'a file now\n'); // symlink → file
        unlinkSync(path.join(dir, 'becomes-dir'));
        write('becomes-dir/inside.txt', 'file → directory\n');
        write('new/deep/er/file.ts', 'added with its parents\n');
        write('new/deep/.gitignore', 'x\n'); // a new ignore file
        git('update-index', '--force-remove', 'vendor/old-sub');
        rmSync(path.join(dir, 'vendor/old-sub'), { recursive: true });
        mkdirSync(path.join(dir, 'vendor/new-sub'), { recursive: true });
        git('update-index', '--add', '--cacheinfo', `160000,${'2'.repeat(40)},vendor/new-sub`);
      },
      () => {
        rmSync(path.join(dir, 'becomes-dir'), { recursive: true }); // directory → file
        write('becomes-dir', 'a file again\n');
        rmSync(path.join(dir, 'docs'), { recursive: true }); // an ignore file goes with its directories
        write('src/a.c', 'a\n'); // unchanged
      },
      () => undefined, // no change at all
    ];
    let previous = commit();
    let tree = GitTree.parse(git('ls-tree', '-r', '-z', '--full-tree', previous));
    /** Every tree so far, as it was described when it was made: deriving (which takes the maps) changes none of them. */
    const earlier: Array<[GitTree, ReturnType<typeof described>]> = [];
    for (const step of steps) {
      step();
      const next = commit();
      earlier.push([tree, described(tree)]);
      const derived = tree.derive(parseTreeChanges(git('diff-tree', '-r', '-z', '--no-renames', previous, next)));
      expect(described(derived)).toEqual(described(GitTree.parse(git('ls-tree', '-r', '-z', '--full-tree', next))));
      for (const [older, before] of earlier) expect(described(older)).toEqual(before); // the trees it came from are left as they were
      expect(tree.pathsOf(new Set(tree.blobs()))).toHaveLength(tree.size);
      if (step === steps[0]) expect([entries(derived, 'vendor'), entries(derived, 'src/lone'), entries(derived, 'becomes-dir')]).toEqual([['new-sub:dir'], undefined, ['inside.txt:file']]);
      previous = next;
      tree = derived;
    }
    // A tree derived from twice (the first derivation took its maps) gives the same tree again.
    const [first] = earlier[0];
    const again = first.derive([]);
    expect(described(again)).toEqual(earlier[0][1]);
  });
});
