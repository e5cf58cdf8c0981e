import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { blobId } from './local-snapshot';
import { WorkingTree, WorkingTrees, type WorkingTreeState } from './working-tree';

const environment = { home: os.tmpdir() };
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }, encoding: 'utf8' }).trim();
const blob = (text: string) => blobId(Buffer.from(text));
const changes = (state: WorkingTreeState) => state.changes.map(({ path, status, from }) => (from ? `${status} ${from} -> ${path}` : `${status} ${path}`));

describe('WorkingTree of a checkout', () => {
  let dir: string;
  let tree: WorkingTree;
  const write = (relative: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    writeFileSync(path.join(dir, relative), text);
  };

  beforeEach(async () => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-working-tree-')));
    write('src/a.ts', 'export const a = 1;\n');
    write('src/b.ts', 'export const b = 2;\n');
    write('docs/readme.md', '# docs\n');
    write('.gitignore', 'build/\n*.log\n');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    tree = await WorkingTree.open(dir, { environment });
  });
  afterEach(() => {
    tree.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names HEAD and lists every file with its blob, nothing changed', async () => {
    const state = await tree.state();
    expect(state).toMatchObject({ root: dir, kind: 'git', commit: git(dir, 'rev-parse', 'HEAD'), changes: [], watching: true });
    expect(state.files.get('src/a.ts')).toBe(blob('export const a = 1;\n'));
    expect([...state.files.keys()].sort()).toEqual(['.gitignore', 'docs/readme.md', 'src/a.ts', 'src/b.ts']);
  });

  it('sees an edit at the next state(), with its new blob, and its undoing', async () => {
    const before = await tree.state();
    write('src/a.ts', 'export const a = 42;\n');
    const edited = await tree.state();
    expect(edited.changes).toEqual([{ path: 'src/a.ts', status: 'modified', blob: blob('export const a = 42;\n') }]);
    expect(edited.files.get('src/a.ts')).toBe(blob('export const a = 42;\n'));
    expect(edited.version).not.toBe(before.version);
    write('src/a.ts', 'export const a = 1;\n');
    const undone = await tree.state();
    expect(undone.changes).toEqual([]);
    expect(undone.version).toBe(before.version);
  });

  it('sees a file added, also in a new directory, and a file deleted', async () => {
    write('src/c.ts', 'export const c = 3;\n');
    write('lib/deep/new/d.ts', 'export const d = 4;\n');
    unlinkSync(path.join(dir, 'docs/readme.md'));
    const state = await tree.state();
    expect(changes(state)).toEqual(['deleted docs/readme.md', 'added lib/deep/new/d.ts', 'added src/c.ts']);
    expect(state.files.has('docs/readme.md')).toBe(false);
    // The new directory is watched from now on.
    write('lib/deep/new/e.ts', 'export const e = 5;\n');
    expect(changes(await tree.state())).toContain('added lib/deep/new/e.ts');
  });

  it('sees a rename as one change, from the old path to the new', async () => {
    renameSync(path.join(dir, 'src/b.ts'), path.join(dir, 'src/renamed.ts'));
    expect(changes(await tree.state())).toEqual(['renamed src/b.ts -> src/renamed.ts']);
  });

  it('sees a directory deleted or moved, every file in it', async () => {
    renameSync(path.join(dir, 'src'), path.join(dir, 'source'));
    expect(changes(await tree.state())).toEqual(['renamed src/a.ts -> source/a.ts', 'renamed src/b.ts -> source/b.ts']);
    rmSync(path.join(dir, 'source'), { recursive: true });
    expect(changes(await tree.state())).toEqual(['deleted src/a.ts', 'deleted src/b.ts']);
  });

  it('leaves out files the ignore rules leave out, and re-reads the rules when a .gitignore changes', async () => {
    write('build/out.js', 'generated\n');
    write('src/debug.log', 'noise\n');
    expect(changes(await tree.state())).toEqual([]);
    write('.gitignore', 'build/\n');
    expect(changes(await tree.state())).toEqual(['modified .gitignore', 'added src/debug.log']);
  });

  it('starts over from the new HEAD after a commit', async () => {
    write('src/a.ts', 'export const a = 7;\n');
    expect(changes(await tree.state())).toEqual(['modified src/a.ts']);
    git(dir, 'commit', '-q', '-am', 'second');
    const state = await tree.state();
    expect(state.commit).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(state.changes).toEqual([]);
  });

  it('counts edits made before it was opened, as git status sees them', async () => {
    tree.close();
    write('src/a.ts', 'changed before\n');
    write('untracked.txt', 'new\n');
    tree = await WorkingTree.open(dir, { environment });
    expect(changes(await tree.state())).toEqual(['modified src/a.ts', 'added untracked.txt']);
  });

  it('checks the whole tree instead when it may not watch, with the same answers', async () => {
    tree.close();
    tree = await WorkingTree.open(dir, { environment, maxWatchedDirectories: 1, fullCheckIntervalMs: 0 });
    expect((await tree.state()).watching).toBe(false);
    write('src/a.ts', 'export const a = 9;\n');
    renameSync(path.join(dir, 'src/b.ts'), path.join(dir, 'docs/b.ts'));
    expect(changes(await tree.state())).toEqual(['renamed src/b.ts -> docs/b.ts', 'modified src/a.ts']);
  });

  it('checks an unwatched tree at most every fullCheckIntervalMs, saying it is not watched', async () => {
    tree.close();
    tree = await WorkingTree.open(dir, { environment, maxWatchedDirectories: 1, fullCheckIntervalMs: 60_000 });
    await tree.state();
    write('src/a.ts', 'export const a = 10;\n');
    // Within the interval: the state of the last check, which says it is not watched.
    expect(await tree.state()).toMatchObject({ watching: false, changes: [] });
  });
});

describe('WorkingTree of a directory outside git', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-working-tree-plain-')));
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names its state by a hash of its listing, and sees edits against it', async () => {
    const tree = await WorkingTree.open(dir, { environment });
    try {
      const first = await tree.state();
      expect(first).toMatchObject({ kind: 'directory', commit: expect.stringMatching(/^[0-9a-f]{40}$/), changes: [] });
      writeFileSync(path.join(dir, 'b.txt'), 'b\n');
      expect(changes(await tree.state())).toEqual(['added b.txt']);
      expect((await tree.state()).commit).toBe(first.commit);
    } finally {
      tree.close();
    }
  });
});

describe('WorkingTrees', () => {
  it('opens a tree once per root and follows its edits', async () => {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-working-trees-')));
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    const trees = new WorkingTrees({ environment, idleMs: 60_000 });
    try {
      const [first, second] = await Promise.all([trees.state(dir), trees.state(dir)]);
      expect(second.commit).toBe(first.commit);
      writeFileSync(path.join(dir, 'b.txt'), 'b\n');
      expect(changes(await trees.state(dir))).toEqual(['added b.txt']);
    } finally {
      trees.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
