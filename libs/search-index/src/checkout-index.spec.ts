import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeSharedSearchPool, searchWorkspace, type SearchRequest } from '@quarry/search';
import { WorkingTree } from '@quarry/snapshot';
import { CheckoutIndexes } from './checkout-index';
import { FileSearchIndexStore } from './file-store';
import { SegmentCache } from './segment-cache';
import { writeSearchFixture } from './testing/search-fixture';

jest.setTimeout(120_000);

const environment = { home: os.tmpdir() };
const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: gitEnv, encoding: 'utf8' });

/** Queries with rg's arguments for the same search; each is checked against `rg -c` on the working tree. */
const QUERIES: Array<{ request: Omit<SearchRequest, 'root'>; rg: string[]; under?: string }> = [
  { request: { mode: 'literal', pattern: 'spin_lock', caseSensitivity: 'sensitive' }, rg: ['-F', '--', 'spin_lock'] },
  { request: { mode: 'literal', pattern: 'mutex_lock', caseSensitivity: 'insensitive' }, rg: ['-F', '-i', '--', 'mutex_lock'] },
  { request: { mode: 'literal', pattern: 'quarry_token', caseSensitivity: 'sensitive' }, rg: ['-F', '--', 'quarry_token'] },
  { request: { mode: 'regex', pattern: String.raw`[a-z]+_error\(`, caseSensitivity: 'sensitive' }, rg: ['--', String.raw`[a-z]+_error\(`] },
  { request: { mode: 'literal', pattern: 'spin_lock', caseSensitivity: 'sensitive', glob: '*.c' }, rg: ['-F', '-g', '*.c', '--', 'spin_lock'] },
  { request: { mode: 'literal', pattern: 'TODO', caseSensitivity: 'sensitive', hidden: true }, rg: ['-F', '--hidden', '-g', '!.git', '--', 'TODO'] },
  { request: { mode: 'literal', pattern: 'spin_lock', caseSensitivity: 'sensitive', directory: 'src' }, rg: ['-F', '--', 'spin_lock'], under: 'src' },
];

function ripgrepCounts(root: string, args: string[], under = '.'): Record<string, number> {
  const run = spawnSync('rg', ['-c', '--no-config', ...args, under], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`rg ${args.join(' ')} failed: ${run.stderr || run.error}`);
  const counts: Record<string, number> = {};
  for (const line of run.stdout.split('\n').filter(Boolean)) {
    const colon = line.lastIndexOf(':');
    counts[line.slice(0, colon).replace(/^\.\//, '')] = Number(line.slice(colon + 1));
  }
  return counts;
}

function comparable(result: Awaited<ReturnType<typeof searchWorkspace>>) {
  const { elapsedMs: _elapsed, indexed: _indexed, ...rest } = result as typeof result & { indexed?: boolean };
  return rest;
}

describe('a checkout searched through its HEAD index, edits overlaid', () => {
  let root: string;
  let dataDir: string;
  let tree: WorkingTree;
  let indexes: CheckoutIndexes;
  const built: Array<{ reused: number; blobs: number }> = [];

  /** Every query through the index equals the cold search of the working tree (whole results) and rg -c (per file). */
  async function expectEqualToRipgrep(): Promise<void> {
    const state = await tree.state();
    const { search, indexed } = indexes.searcher(state);
    expect(indexed).toBe(true);
    for (const query of QUERIES) {
      const request: SearchRequest = { root, ...query.request, countsPerFile: true, maxMatches: 1_000 };
      const result = await search(request);
      expect(result.indexed).toBe(true);
      expect({ query: query.rg, ...comparable(result) }).toEqual({ query: query.rg, ...comparable(await searchWorkspace(request)) });
      const ours = Object.fromEntries((result.fileCounts ?? []).map((entry) => [entry.path, entry.count]));
      expect({ query: query.rg, counts: ours }).toEqual({ query: query.rg, counts: ripgrepCounts(root, query.rg, query.under) });
    }
  }

  /** A tracked file holding `text`, not hidden, by `git grep` (deterministic: the first in path order). */
  const trackedWith = (text: string, skip: string[] = []) =>
    git(root, 'grep', '-l', '-F', text, '--', '*.c', '*.h')
      .split('\n')
      .filter((file) => file && !file.startsWith('.') && !skip.includes(file))[0];

  beforeAll(async () => {
    expect(spawnSync('rg', ['--version']).status).toBe(0);
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-checkout-index-')));
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-checkout-data-'));
    writeSearchFixture(root, { salt: `checkout ${process.pid} ${Date.now()}` });
    rmSync(path.join(root, 'link.c')); // a symlink: git and the walk disagree on nothing here, but keep it simple
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'fixture');
    tree = await WorkingTree.open(root, { environment });
    const store = new FileSearchIndexStore(dataDir);
    indexes = new CheckoutIndexes({ store, cache: new SegmentCache(dataDir, store), environment, build: true, onBuilt: (_root, result) => built.push({ reused: result.reused, blobs: result.built.blobs }) });
  });

  afterAll(async () => {
    tree?.close();
    indexes?.close();
    await closeSharedSearchPool();
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers by reading the files while the index builds, and says so; then from the index', async () => {
    const first = indexes.searcher(await tree.state());
    expect(first.indexed).toBe(false);
    expect(indexes.status(root)?.state).toBe('building');
    const result = await first.search({ root, mode: 'literal', pattern: 'spin_lock', caseSensitivity: 'sensitive' });
    expect(result.indexed).toBe(false);
    expect(await indexes.settled(root)).toMatchObject({ state: 'ready', commit: git(root, 'rev-parse', 'HEAD').trim() });
    expect(built[0].blobs).toBeGreaterThan(100);
    await expectEqualToRipgrep();
  });

  it('a modified file: its new content is searched, its old content no longer counts', async () => {
    const file = trackedWith('spin_lock');
    writeFileSync(path.join(root, file), 'nothing of the old\nquarry_token modified here\nmutex_lock();\n');
    await expectEqualToRipgrep();
    expect(ripgrepCounts(root, ['-F', '--', 'quarry_token'])).toEqual({ [file]: 1 });
  });

  it('an added (untracked) file is searched', async () => {
    mkdirSync(path.join(root, 'src/added'), { recursive: true });
    writeFileSync(path.join(root, 'src/added/new.c'), 'spin_lock(a);\nquarry_token added\nx_error(1);\n');
    await expectEqualToRipgrep();
  });

  it('a deleted file no longer counts', async () => {
    const file = trackedWith('spin_lock');
    unlinkSync(path.join(root, file));
    await expectEqualToRipgrep();
  });

  it('a renamed file counts under its new path only', async () => {
    const file = trackedWith('spin_lock');
    renameSync(path.join(root, file), path.join(root, 'src/renamed.c'));
    const state = await tree.state();
    expect(state.changes.some((change) => change.status === 'renamed' && change.from === file)).toBe(true);
    await expectEqualToRipgrep();
  });

  it('an untracked file that .gitignore ignores is skipped, as rg skips it', async () => {
    mkdirSync(path.join(root, 'ignored'), { recursive: true });
    writeFileSync(path.join(root, 'ignored/more.c'), 'spin_lock quarry_token\n');
    writeFileSync(path.join(root, 'notes.log'), 'spin_lock quarry_token\n');
    await expectEqualToRipgrep();
    expect(Object.keys(ripgrepCounts(root, ['-F', '--', 'quarry_token'])).some((file) => file.startsWith('ignored/') || file.endsWith('.log'))).toBe(false);
  });

  it('an edit reverted is the commit\'s file again', async () => {
    const file = trackedWith('mutex_lock');
    const before = readFileSync(path.join(root, file));
    writeFileSync(path.join(root, file), 'quarry_token for a moment\n');
    await expectEqualToRipgrep();
    writeFileSync(path.join(root, file), before);
    await expectEqualToRipgrep();
  });

  it('a new commit builds only the blobs the last one lacked', async () => {
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'edits');
    const state = await tree.state();
    expect(indexes.searcher(state).indexed).toBe(false);
    expect(await indexes.settled(root)).toMatchObject({ state: 'ready', commit: state.commit });
    const last = built[built.length - 1];
    expect(last.blobs).toBeGreaterThan(0);
    expect(last.blobs).toBeLessThan(5);
    expect(last.reused).toBeGreaterThan(100);
    await expectEqualToRipgrep();
  });

  it('another process finds the saved index and builds nothing', async () => {
    const store = new FileSearchIndexStore(dataDir);
    const again: number[] = [];
    const other = new CheckoutIndexes({ store, cache: new SegmentCache(dataDir, store), environment, build: false, onBuilt: () => again.push(1) });
    try {
      other.searcher(await tree.state());
      expect(await other.settled(root)).toMatchObject({ state: 'ready' });
      expect(again).toEqual([]);
    } finally {
      other.close();
    }
  });
});

describe('a checkout whose index build failed', () => {
  it('is searched by reading the files, says so, and is built again later', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-checkout-retry-')));
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-checkout-data-'));
    const store = new FileSearchIndexStore(dataDir);
    let failures = 1;
    // The store away once (Postgres restarting), then back.
    const flaky = Object.assign(Object.create(store) as FileSearchIndexStore, {
      segmentsOf: async (blobs: readonly string[]) => {
        if (failures-- > 0) throw new Error('store unavailable');
        return store.segmentsOf(blobs);
      },
    });
    const errors: unknown[] = [];
    const indexes = new CheckoutIndexes({ store: flaky, cache: new SegmentCache(dataDir, store), environment, build: true, recheckMs: 0, onError: (_root, error) => errors.push(error) });
    let tree: WorkingTree | undefined;
    try {
      writeFileSync(path.join(root, 'a.c'), 'spin_lock\n');
      git(root, 'init', '-q', '-b', 'main');
      git(root, 'add', '-A');
      git(root, 'commit', '-q', '-m', 'x');
      tree = await WorkingTree.open(root, { environment });
      indexes.searcher(await tree.state());
      expect(await indexes.settled(root)).toMatchObject({ state: 'failed', error: 'store unavailable' });
      expect(errors).toHaveLength(1);
      const failed = indexes.searcher(await tree.state());
      expect(failed.indexed).toBe(false);
      expect((await failed.search({ root, mode: 'literal', pattern: 'spin_lock' })).totalMatches).toBe(1);
      expect(await indexes.settled(root)).toMatchObject({ state: 'ready' });
      expect(indexes.searcher(await tree.state()).indexed).toBe(true);
    } finally {
      tree?.close();
      indexes.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a checkout whose content git converts', () => {
  it('is never answered from an index keyed by blob', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-checkout-crlf-')));
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-checkout-data-'));
    const store = new FileSearchIndexStore(dataDir);
    const indexes = new CheckoutIndexes({ store, cache: new SegmentCache(dataDir, store), environment, build: true });
    let tree: WorkingTree | undefined;
    try {
      writeFileSync(path.join(root, 'a.c'), 'spin_lock\n');
      writeFileSync(path.join(root, '.gitattributes'), '*.c text eol=crlf\n');
      git(root, 'init', '-q', '-b', 'main');
      git(root, 'add', '-A');
      git(root, 'commit', '-q', '-m', 'x');
      tree = await WorkingTree.open(root, { environment });
      indexes.searcher(await tree.state());
      expect(await indexes.settled(root)).toMatchObject({ state: 'unsupported' });
      const { search, indexed } = indexes.searcher(await tree.state());
      expect(indexed).toBe(false);
      expect((await search({ root, mode: 'literal', pattern: 'spin_lock' })).totalMatches).toBe(1);
    } finally {
      tree?.close();
      indexes.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
