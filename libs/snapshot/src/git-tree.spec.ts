import { GitTree } from './git-tree';

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
