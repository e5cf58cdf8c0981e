import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InProcessShardExecutor, ScanMemory, StateMemory, shardedScan, type ScanChanges } from '../../libs/blob-scan/src';
import { BlobFactRepository } from '../../libs/db/src/blob-fact-repository';
import { createDatabase } from '../../libs/db/src/prisma-client';
import { SearchIndexRepository } from '../../libs/db/src/search-index-repository';
import { ScanStateRepository } from '../../libs/db/src/scan-state-repository';
import { closeSharedSearchPool, searchWorkspace, type SearchRequest } from '../../libs/search/src';
import { IndexedCommits, ScanIndexing, SegmentCache, indexCommit, searchIndexed, shardIndexer, type BuiltSegment, type SearchIndexStore } from '../../libs/search-index/src';
import type { CommitManifest } from '../../libs/search-index/src/store';
import { generatedQueries, writeSearchFixture } from '../../libs/search-index/src/testing/search-fixture';
import { SnapshotProvider, type Snapshot } from '../../libs/snapshot/src';
import type { FileMeasure } from '../../libs/workspace/src';
import { GitHttpServer } from '../../libs/snapshot/src/testing/git-http-server';
import { loopbackOnlyDialer } from '../../libs/fetch/src/testing/virtual-network';
import { assertBuilt, repoRoot } from '../support/processes';
import { TEST_DATABASE_URL } from '../support/test-env';

jest.setTimeout(400_000);

const database = createDatabase(TEST_DATABASE_URL, 4);
const facts = new BlobFactRepository(database.prisma, database.pool);
const index = new SearchIndexRepository(database.pool);
const states = new ScanStateRepository(database.pool);
const work = mkdtempSync(path.join(os.tmpdir(), 'quarry-search-index-it-'));
const served = path.join(work, 'served');
const checkout = path.join(work, 'checkout');
const dataDir = path.join(work, 'data');
/** This run's blobs are its own: the tables are shared by every test file of the run. */
const salt = `${process.pid}-${Date.now()}`;
let server: GitHttpServer;
let provider: SnapshotProvider;
const TINY = { maxFiles: 16, maxBytes: 16 * 1024 };

function git(...args: string[]): string {
  return execFileSync('git', ['-C', checkout, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
}

/** Publishes the checkout's main branch to the served bare repository. */
function publish(): void {
  execFileSync('git', ['-C', path.join(served, 'idx.git'), 'fetch', '-q', checkout, '+main:main']);
}

beforeAll(async () => {
  execFileSync('mkdir', ['-p', checkout, served]);
  writeSearchFixture(checkout, { salt, files: 150 });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'one');
  execFileSync('git', ['init', '-q', '--bare', path.join(served, 'idx.git')]);
  publish();
  server = await GitHttpServer.start(served);
  provider = new SnapshotProvider({ workspaceRoots: [work], git: { dataDir, allow: ['127.0.0.1/32'], dialer: loopbackOnlyDialer } });
});

afterAll(async () => {
  await closeSharedSearchPool();
  await provider?.close();
  await server?.close();
  await database.close();
  rmSync(work, { recursive: true, force: true });
});

/** A store that counts the segments built through it. */
function counting(store: SearchIndexStore): SearchIndexStore & { built: BuiltSegment[] } {
  const built: BuiltSegment[] = [];
  return Object.assign(Object.create(store) as SearchIndexStore, {
    built,
    saveSegment: async (segment: BuiltSegment) => {
      built.push(segment);
      await store.saveSegment(segment);
    },
  });
}

/**
 * The scan as the worker runs it: shards (each with the index hook), then the manifest from the
 * scan's own listing and facts. `beforeManifest` runs between the two.
 */
async function scanAndIndex(snapshot: Snapshot, store: SearchIndexStore, beforeManifest?: () => void): Promise<{ textBytes: number }> {
  const indexer = shardIndexer(store);
  let assembled: { files: ReadonlyArray<{ path: string; blob: string }>; facts: ReadonlyMap<string, FileMeasure> } | undefined;
  let segmentsBefore: Promise<Map<string, string>> | undefined;
  await shardedScan(snapshot, {
    store: facts,
    executor: new InProcessShardExecutor(snapshot, facts, 2, 'w1', undefined, indexer),
    signal: new AbortController().signal,
    limits: TINY,
    inlineBelowFiles: 0,
    indexes: [
      {
        listed: (blobs) => void (segmentsBefore = store.segmentsOf([...blobs])),
        assembled: async (_snapshot, commit) => void (assembled = commit),
        changed: async () => undefined,
      },
    ],
  });
  const known = assembled!;
  let textBytes = 0;
  for (const blob of new Set(known.files.map((file) => file.blob))) {
    const measure = known.facts.get(blob);
    if (measure?.kind === 'text') textBytes += measure.bytes;
  }
  beforeManifest?.();
  await indexCommit(snapshot, store, { files: known.files, textBytes: async () => textBytes, segmentsBefore });
  return { textBytes };
}

async function expectSameAsCold(snapshot: Snapshot, queries: Array<Omit<SearchRequest, 'root'>>, minIndexed: number): Promise<void> {
  const commits = new IndexedCommits(index, new SegmentCache(dataDir, index));
  const commit = await commits.forSnapshot(snapshot);
  expect(commit).toBeDefined();
  const root = await snapshot.workingTree();
  let indexed = 0;
  for (const query of queries) {
    const request: SearchRequest = { ...query, root, countsPerFile: true, maxMatches: 500 };
    const { indexed: used, elapsedMs: _a, ...viaIndex } = await searchIndexed(request, commit);
    const { elapsedMs: _b, ...cold } = await searchWorkspace(request);
    if (used) indexed++;
    expect({ query, ...viaIndex }).toEqual({ query, ...cold });
  }
  expect(indexed).toBeGreaterThanOrEqual(minIndexed);
  commits.close();
}

describe('the search index built by the scan', () => {
  it('answers a few hundred generated queries exactly as the cold search does', async () => {
    const snapshot = await provider.open({ git: server.url('idx.git'), ref: 'main' });
    const store = counting(index);
    await scanAndIndex(snapshot, store);
    // Several shards, each its own segment.
    expect(store.built.length).toBeGreaterThan(3);
    const manifest = await index.manifest(snapshot.source.commit);
    expect(manifest).toMatchObject({ commit: snapshot.source.commit, segments: expect.any(Array) });
    expect(manifest!.indexBytes).toBeGreaterThan(0);
    // The unit spec runs 340 generated queries on segments in memory; here 150 go through the
    // whole path (shards, Postgres, the segment cache), which a loaded machine makes slow.
    const queries = generatedQueries(11).filter((_, index) => index % 2 === 0);
    expect(queries.length).toBeGreaterThanOrEqual(150);
    await expectSameAsCold(snapshot, queries, queries.length * 0.6);
    snapshot.close();
  });

  it('reuses the segments of a commit sharing blobs: only the changed blobs are built', async () => {
    writeFileSync(path.join(checkout, 'src/changed.c'), `// ${salt} new\nint spin_lock_changed(void);\n`);
    writeFileSync(path.join(checkout, 'file3.c'), `// ${salt} rewritten\nstatic int kmalloc_again;\n`);
    git('add', '-A');
    git('commit', '-q', '-m', 'two');
    publish();
    const snapshot = await provider.open({ git: server.url('idx.git'), ref: 'main' });
    const store = counting(index);
    await scanAndIndex(snapshot, store);
    const newBlobs = store.built.flatMap((segment) => segment.blobs);
    expect(newBlobs.length).toBeLessThanOrEqual(2);
    expect(newBlobs.length).toBeGreaterThanOrEqual(1);
    await expectSameAsCold(
      snapshot,
      [
        { mode: 'literal', pattern: 'spin_lock_changed', caseSensitivity: 'sensitive' },
        { mode: 'literal', pattern: 'KMALLOC_AGAIN', caseSensitivity: 'insensitive' },
        { mode: 'regex', pattern: 'spin_\\w+\\(', caseSensitivity: 'sensitive' },
        ...generatedQueries(5).slice(0, 40),
      ],
      30,
    );
    snapshot.close();
  });

  it('writes a re-scan\'s manifest from the scan\'s listing and facts: no blob read, measured or listed again; the segments looked up while the scan runs, then the changed blob\'s', async () => {
    writeFileSync(path.join(checkout, 'src/changed.c'), `// ${salt} changed again\nint spin_lock_twice(void);\n`);
    git('add', '-A');
    git('commit', '-q', '-m', 'two-b');
    publish();
    // A worker that measured none of the unchanged blobs (its own, empty cache), as the second worker of a re-scan.
    const fresh = new SnapshotProvider({ workspaceRoots: [work], git: { dataDir: path.join(work, 'fresh-data'), allow: ['127.0.0.1/32'], dialer: loopbackOnlyDialer } });
    try {
      const snapshot = await fresh.open({ git: server.url('idx.git'), ref: 'main' });
      const store = counting(index);
      const lookups = jest.spyOn(store, 'segmentsOf');
      const reads: string[] = [];
      const { textBytes } = await scanAndIndex(snapshot, store, () => {
        for (const method of ['measure', 'readFile', 'readBlob', 'walk', 'entry'] as const) {
          const original = (snapshot as never as Record<string, (...args: unknown[]) => unknown>)[method].bind(snapshot);
          jest.spyOn(snapshot, method as never).mockImplementation(((...args: unknown[]) => {
            reads.push(method);
            return original(...args);
          }) as never);
        }
      });
      expect(store.built.flatMap((segment) => segment.blobs)).toHaveLength(1);
      expect(reads).toEqual([]);
      // Every blob of the commit as the scan lists it, then only the one its shard has indexed since.
      const changed = store.built.flatMap((segment) => segment.blobs);
      // (The second is skipped in the rare run where the first is answered after the shard saved.)
      expect(lookups.mock.calls.length).toBeGreaterThanOrEqual(1);
      expect(lookups.mock.calls.length).toBeLessThanOrEqual(2);
      expect(lookups.mock.calls[0][0].length).toBeGreaterThan(10);
      expect(lookups.mock.calls[0][0]).toContain(changed[0]);
      for (const [blobs] of lookups.mock.calls.slice(1)) expect(blobs).toEqual(changed);
      const manifest = await index.manifest(snapshot.source.commit);
      expect(manifest?.textBytes).toBe(textBytes);
      expect(textBytes).toBeGreaterThan(0);
      snapshot.close();
    } finally {
      await fresh.close();
    }
  });

  it('indexes a commit next to a remembered scan (kept in Postgres, by another worker) from its changed blobs alone, to the manifest a whole listing gives', async () => {
    const remembering = new SnapshotProvider({ workspaceRoots: [work], git: { dataDir: path.join(work, 'remembering-data'), allow: ['127.0.0.1/32'], dialer: loopbackOnlyDialer } });
    const url = server.url('idx.git');
    // The store the scans index through: its look-ups are counted.
    const store = Object.assign(Object.create(index) as SearchIndexStore, { segmentsOf: jest.fn((blobs: readonly string[]) => index.segmentsOf(blobs)) });
    // What a worker remembers; the second scan's worker remembers nothing and finds the first's in Postgres.
    const rememberingWorker = () => ({ memory: new ScanMemory(states), indexing: new ScanIndexing(store, new StateMemory(states)) });
    let worker = rememberingWorker();
    const scanAndIndexRemembering = async () => {
      const { memory, indexing } = worker;
      const snapshot = await remembering.open(await remembering.resolve({ git: url, ref: 'main' }));
      let changed: ScanChanges | undefined;
      const step = indexing.forCommit(url);
      await shardedScan(snapshot, {
        store: facts,
        executor: new InProcessShardExecutor(snapshot, facts, 2, 'w1', undefined, shardIndexer(store)),
        signal: new AbortController().signal,
        limits: TINY,
        inlineBelowFiles: 0,
        memory,
        indexes: [{ ...step, changed: (at, changes, signal) => step.changed(at, (changed = changes), signal) }],
      });
      return { snapshot, changed };
    };
    try {
      writeFileSync(path.join(checkout, 'small-gone.c'), `// ${salt} gone soon\n`);
      git('add', '-A');
      git('commit', '-q', '-m', 'small');
      publish();
      const first = await scanAndIndexRemembering();
      expect(first.changed).toBeUndefined();
      first.snapshot.close();

      writeFileSync(path.join(checkout, 'src/remembered.c'), `// ${salt} remembered\nint spin_lock_remembered(void);\n`);
      writeFileSync(path.join(checkout, 'empty.c'), `// ${salt} empty.c rewritten\nstatic int kmalloc_remembered;\n`);
      // (Not one of the largest files: a result's list of those would need the whole tree again.)
      git('rm', '-q', 'small-gone.c');
      git('add', '-A');
      git('commit', '-q', '-m', 'remembered');
      publish();
      store.segmentsOf.mockClear();
      worker = rememberingWorker();
      const second = await scanAndIndexRemembering();
      expect(second.changed).toBeDefined();
      // Segments were asked for the changed blobs only, never for the commit's hundreds.
      for (const [blobs] of store.segmentsOf.mock.calls) expect(blobs.length).toBeLessThanOrEqual(4);
      // The manifest equals the one indexCommit writes from the whole listing (into a store that has none yet).
      let whole: CommitManifest | undefined;
      const blank = Object.assign(Object.create(index) as SearchIndexStore, { manifest: async () => undefined, saveManifest: async (manifest: CommitManifest) => void (whole = manifest) });
      await indexCommit(second.snapshot, blank);
      expect(await index.manifest(second.snapshot.source.commit)).toEqual(whole);
      await expectSameAsCold(second.snapshot, [
        { mode: 'literal', pattern: 'spin_lock_remembered', caseSensitivity: 'sensitive' },
        { mode: 'literal', pattern: 'kmalloc_remembered', caseSensitivity: 'sensitive' },
        ...generatedQueries(7).slice(0, 20),
      ], 10);
      second.snapshot.close();
    } finally {
      await remembering.close();
    }
  });

  it('leaves a commit unindexed, never half-indexed, when its build is killed (kill -9), and a rebuild completes it', async () => {
    assertBuilt();
    writeSearchFixture(path.join(checkout, 'more'), { salt: `${salt}-more`, seed: 3, files: 80 });
    git('add', '-A');
    git('commit', '-q', '-m', 'three');
    publish();
    const snapshot = await provider.open({ git: server.url('idx.git'), ref: 'main' });
    const commit = snapshot.source.commit;
    const dist = (lib: string) => JSON.stringify(path.join(repoRoot(), 'dist', 'libs', lib, 'src'));
    // The child builds the commit's index in small segments and says so after each; it is killed after the first.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `
        const { SnapshotProvider } = require(${dist('snapshot')});
        const { indexCommit } = require(${dist('search-index')});
        const { SearchIndexRepository, createDatabase } = require(${dist('db')});
        const { loopbackOnlyDialer } = require(${JSON.stringify(path.join(repoRoot(), 'dist', 'libs', 'fetch', 'src', 'testing', 'virtual-network'))});
        (async () => {
          const database = createDatabase(${JSON.stringify(TEST_DATABASE_URL)}, 2);
          const repository = new SearchIndexRepository(database.pool);
          const store = Object.assign(Object.create(repository), {
            saveSegment: async (segment) => { await repository.saveSegment(segment); process.stdout.write('saved\\n'); },
          });
          const provider = new SnapshotProvider({ workspaceRoots: [${JSON.stringify(work)}], git: { dataDir: ${JSON.stringify(path.join(work, 'child-data'))}, allow: ['127.0.0.1/32'], dialer: loopbackOnlyDialer } });
          const snapshot = await provider.open({ git: ${JSON.stringify(server.url('idx.git'))}, ref: ${JSON.stringify(commit)} });
          await indexCommit(snapshot, store, { segmentTextBytes: 2048 });
          process.stdout.write('done\\n');
        })().catch((error) => { console.error(error); process.exit(1); });
        `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const killed = await new Promise<boolean>((resolve) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('saved') && !output.includes('done')) {
          child.kill('SIGKILL');
          resolve(true);
        }
      });
      child.on('exit', () => resolve(false));
    });
    expect(killed).toBe(true);
    await new Promise((resolve) => child.once('exit', resolve));

    // No manifest: the commit is not indexed, and a search of it is the cold search.
    expect(await index.manifest(commit)).toBeUndefined();
    const commits = new IndexedCommits(index, new SegmentCache(dataDir, index));
    expect(await commits.forSnapshot(snapshot)).toBeUndefined();
    // Every segment in the store is whole: all its blobs have their rows.
    const { rows } = await database.pool.query<{ id: string; blobs: number; rows: string }>(
      'SELECT s.id, s.blobs, (SELECT count(*) FROM search_index_blobs b WHERE b.segment = s.id) AS rows FROM search_index_segments s',
    );
    for (const row of rows) expect(Number(row.rows)).toBeLessThanOrEqual(row.blobs);
    const partial = rows.filter((row) => Number(row.rows) === 0);
    expect(partial).toEqual([]);

    // The next scan builds what is missing, reusing what the killed build saved, then writes the manifest.
    const store = counting(index);
    await scanAndIndex(snapshot, store);
    expect(await index.manifest(commit)).toBeDefined();
    await expectSameAsCold(snapshot, generatedQueries(23).slice(0, 60), 30);
    commits.close();
    snapshot.close();
  });
});

describe('the search index store', () => {
  it('remembers the segments it looked up, bounded, so a repeat look-up asks Postgres only about blobs it does not know', async () => {
    const blobs = ['m1', 'm2', 'm3', 'm4'].map((name) => createHash('sha1').update(`${salt}:${name}`).digest('hex'));
    const segment = { id: createHash('sha1').update(`${salt}:segment`).digest('hex'), data: Buffer.from('segment'), blobs: blobs.slice(0, 3), textBytes: 3 };
    await index.saveSegment(segment);
    const remembering = new SearchIndexRepository(database.pool, 2);
    const queries = jest.spyOn(database.pool, 'query');
    try {
      expect(await remembering.segmentsOf(blobs)).toEqual(new Map(blobs.slice(0, 3).map((blob) => [blob, segment.id])));
      expect(queries).toHaveBeenCalledTimes(1);
      // The last two found are remembered (capacity 2): no query for them. The one never found is asked again.
      queries.mockClear();
      expect(await remembering.segmentsOf(blobs.slice(1, 3))).toEqual(new Map(blobs.slice(1, 3).map((blob) => [blob, segment.id])));
      expect(queries).not.toHaveBeenCalled();
      expect((await remembering.segmentsOf([blobs[3]])).size).toBe(0);
      expect(queries).toHaveBeenCalledTimes(1);
      // The forgotten one is asked for, alone.
      queries.mockClear();
      expect(await remembering.segmentsOf(blobs.slice(0, 3))).toEqual(new Map(blobs.slice(0, 3).map((blob) => [blob, segment.id])));
      expect(queries).toHaveBeenCalledTimes(1);
      expect(JSON.stringify(queries.mock.calls[0][0])).toContain(blobs[0]);
      expect(JSON.stringify(queries.mock.calls[0][0])).not.toContain(blobs[1]);
    } finally {
      queries.mockRestore();
    }
  });
});
