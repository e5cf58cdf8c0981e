import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SnapshotProvider, type Snapshot } from '@quarry/snapshot';
import type { ScanSource } from '@quarry/workspace';
import { referenceScan } from '../../workspace/src/testing/reference-scan';
import { GitHttpServer, makeFixtureRepositories, type FixtureRepositories } from '../../snapshot/src/testing/git-http-server';
import { loopbackOnlyDialer } from '../../fetch/src/testing/virtual-network';
import { MemoryBlobFacts, type BlobFact, type BlobFactStore } from './blob-facts';
import { InProcessShardExecutor } from './in-process-executor';
import { MIN_TAPERED_SHARD_BYTES, planShards, describeShardPaths } from './plan';
import { derivedWorkLimits, shardedScan, type CommitIndexStep, type ScanChanges } from './sharded-scan';
import { ScanMemory } from './scan-memory';
import { jsonStore } from './testing/json-state-store';
import { CodeIndexScanStep } from '../../code-index/src/store/scan-step';
import { MemoryBlobIndexStore } from '../../code-index/src/store/blob-index-store';
import type { BlobDerivation } from './blob-derivation';

jest.setTimeout(60_000);

let fixtures: FixtureRepositories;
let server: GitHttpServer;
const dataDirs: string[] = [];
const providers: SnapshotProvider[] = [];

beforeAll(async () => {
  fixtures = makeFixtureRepositories();
  server = await GitHttpServer.start(fixtures.root);
});
afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.close()));
  await server.close();
  fixtures.remove();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

function provider(): SnapshotProvider {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-blob-scan-'));
  dataDirs.push(dataDir);
  const created = new SnapshotProvider({ workspaceRoots: [path.dirname(fixtures.checkout), os.tmpdir()], git: { dataDir, allow: ['127.0.0.1/32'], dialer: loopbackOnlyDialer } });
  providers.push(created);
  return created;
}

const comparable = (result: Awaited<ReturnType<typeof referenceScan>>) => {
  const { root: _root, durationMs: _duration, shards: _s, workers: _w, workerIds: _i, blobs: _b, source: _source, updatedFrom: _u, ...rest } = result;
  return rest;
};

/** Tiny shards, so even the fixture splits into several. */
const TINY = { maxFiles: 2, maxBytes: 1024 };

function sharded(snapshot: Snapshot, store: BlobFactStore, concurrency = 3) {
  return shardedScan(snapshot, { store, executor: new InProcessShardExecutor(snapshot, store, concurrency, 'w1'), signal: new AbortController().signal, limits: TINY });
}

describe('a sharded scan', () => {
  it('of a git commit equals the single-process scan of its checkout, and a repeat reads nothing', async () => {
    const snapshot = await provider().open({ git: server.url('demo.git'), ref: 'main' });
    const store = new MemoryBlobFacts();
    const first = await sharded(snapshot, store);
    const single = await referenceScan(fixtures.checkout);
    expect(comparable(first)).toEqual(comparable(single));
    expect(first.shards).toBeGreaterThan(1);
    expect(first.workers).toBe(1);
    expect(first.blobs.processed).toBe(first.blobs.total);
    expect(first.blobs.reused).toBe(0);

    const again = await sharded(snapshot, store);
    expect(comparable(again)).toEqual(comparable(single));
    expect(again).toMatchObject({ shards: 0, workers: 0, blobs: { total: first.blobs.total, processed: 0, reused: first.blobs.total } });
  });

  it('of a directory equals the single-process scan, whatever the concurrency', async () => {
    const root = await provider().openLocal(fixtures.checkout);
    const single = await referenceScan(root as ScanSource);
    for (const concurrency of [1, 4]) {
      const result = await sharded(root, new MemoryBlobFacts(), concurrency);
      expect(comparable(result)).toEqual(comparable(single));
      expect(result.shards).toBeGreaterThan(1);
    }
  });

  it("starts the executor's start-up (threads) during the listing once it finds more files than are read inline, and not for a scan read inline", async () => {
    const root = await provider().openLocal(fixtures.checkout);
    const files = (await root.walk()).files.length;
    const events: string[] = [];
    const store = new MemoryBlobFacts();
    const inner = new InProcessShardExecutor(root, store, 1, 'w1');
    const executor = {
      prepare: () => events.push('prepare'),
      run: (...args: Parameters<InProcessShardExecutor['run']>) => {
        events.push('run');
        return inner.run(...args);
      },
    };
    const inline = new InProcessShardExecutor(root, store, 1, 'here');
    const onProgress = (progress: { stage: string }) => {
      if (progress.stage === 'listing' && events.at(-1) !== 'listing') events.push('listing');
    };
    await shardedScan(root, { store, executor, inline, inlineBelowFiles: files - 1, signal: new AbortController().signal, limits: TINY, onProgress });
    // Prepared while listing (the listing goes on after it), once, before the shards run.
    expect(events.filter((event) => event === 'prepare')).toHaveLength(1);
    expect(events.indexOf('prepare')).toBeLessThan(events.lastIndexOf('listing'));
    expect(events.at(-1)).toBe('run');

    events.length = 0;
    await shardedScan(root, { store: new MemoryBlobFacts(), executor, inline, inlineBelowFiles: files, signal: new AbortController().signal, limits: TINY });
    expect(events).toEqual([]);
  });

  it('plans the shards of a scan that derives per-blob work (the code index) at a quarter of the limits', async () => {
    const snapshot = await provider().open({ git: server.url('demo.git'), ref: 'main' });
    const derived: number[] = [];
    const derive: BlobDerivation = {
      missing: async (files) => new Set(files.map((file) => file.blob)),
      derive: async (_snapshot, files) => void derived.push(files.length),
    };
    const limits = { maxFiles: 8, maxBytes: 1 << 30 };
    const plainStore = new MemoryBlobFacts();
    const plain = await shardedScan(snapshot, { store: plainStore, executor: new InProcessShardExecutor(snapshot, plainStore, 1, 'w1'), signal: new AbortController().signal, limits });
    const store = new MemoryBlobFacts();
    const withDerive = await shardedScan(snapshot, { store, executor: new InProcessShardExecutor(snapshot, store, 1, 'w1', derive), signal: new AbortController().signal, limits, derive });
    expect(derivedWorkLimits(limits)).toEqual({ maxFiles: 2, maxBytes: 1 << 28, taper: 8 });
    expect(plain.shards).toBe(Math.ceil(plain.blobs.total / 8));
    expect(withDerive.shards).toBe(Math.ceil(withDerive.blobs.total / 2));
    expect(Math.max(...derived)).toBeLessThanOrEqual(2);
    expect(comparable(withDerive)).toEqual(comparable(plain));
  });

  it('after a one-file commit reads exactly one blob', async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'quarry-blob-scan-repo-'));
    dataDirs.push(work);
    const git = (...args: string[]) => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    git('init', '-q', '-b', 'main');
    for (let index = 0; index < 20; index++) writeFileSync(path.join(work, `f${index}.ts`), `export const v${index} = ${index};\n`);
    git('add', '.');
    git('commit', '-q', '-m', 'one');
    const repos = provider();
    const store = new MemoryBlobFacts();
    const recorded: BlobFact[] = [];
    const spy: BlobFactStore = { lookup: (blobs) => store.lookup(blobs), record: (facts) => (recorded.push(...facts), store.record(facts)) };
    // A directory source has no blob ids up front; the same commit read through git has: use git.
    execFileSync('git', ['clone', '-q', '--bare', work, path.join(fixtures.root, 'inc.git')]);
    const first = await sharded(await repos.open({ git: server.url('inc.git'), ref: 'main' }), spy);
    expect(first.blobs).toEqual({ total: 20, processed: 20, reused: 0 });
    writeFileSync(path.join(work, 'f3.ts'), 'export const v3 = "changed";\nexport {};\n');
    git('commit', '-q', '-am', 'two');
    execFileSync('git', ['-C', path.join(fixtures.root, 'inc.git'), 'fetch', '-q', work, '+main:main']);
    recorded.length = 0;
    // One file to read: it is read in place, never handed to the (here: refusing) executor.
    const snapshot = await repos.open({ git: server.url('inc.git'), ref: 'main' });
    const refusing = { run: () => Promise.reject(new Error('a one-blob re-scan must not be handed over')) };
    // The tree's blobs are named, and their facts looked up, beside the walk, not after it.
    const order: string[] = [];
    const walk = snapshot.walk.bind(snapshot);
    snapshot.walk = (options) => walk(options).then((listing) => (order.push('walked'), listing));
    const ordered: BlobFactStore = { lookup: (blobs) => (order.push(`lookup ${blobs.length}`), spy.lookup(blobs)), record: (facts) => spy.record(facts) };
    const index = recordingIndex();
    index.listed = (blobs) => void order.push(`listed ${blobs.size}`);
    const second = await shardedScan(snapshot, { store: ordered, executor: refusing, inline: new InProcessShardExecutor(snapshot, spy, 1, 'here'), signal: new AbortController().signal, limits: TINY, indexes: [index] });
    expect(order).toEqual(['listed 20', 'lookup 20', 'walked', 'lookup 1']);
    expect(second.workerIds).toEqual(['here']);
    expect(recorded.map((fact) => fact.kind)).toEqual(['text']);
    expect(second.blobs).toEqual({ total: 20, processed: 1, reused: 19 });
    expect(second.shards).toBe(1);
    expect(second.lines).toBe(first.lines + 1);
  });
});

describe('a re-scan from a remembered scan', () => {
  /** A served copy of the demo repository (ignore rules, force-added ignored files, a symlink, a binary) to commit to. */
  function servedCopy(name: string) {
    const work = mkdtempSync(path.join(os.tmpdir(), `quarry-blob-scan-${name}-`));
    dataDirs.push(work);
    const git = (...args: string[]) => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]).toString().trim();
    execFileSync('git', ['clone', '-q', fixtures.checkout, work]);
    const bare = path.join(fixtures.root, `${name}.git`);
    execFileSync('git', ['clone', '-q', '--bare', work, bare]);
    return {
      url: server.url(`${name}.git`),
      /** Applies `change` in the work tree, commits everything (ignored files too) and publishes it; the commit id. */
      commit(change: (at: (file: string) => string) => void): string {
        change((file) => {
          const absolute = path.join(work, file);
          mkdirSync(path.dirname(absolute), { recursive: true });
          return absolute;
        });
        git('add', '-A');
        git('add', '-f', '-A');
        git('commit', '-q', '--allow-empty', '-m', 'next');
        execFileSync('git', ['-C', bare, 'fetch', '-q', work, '+main:main']);
        return git('rev-parse', 'HEAD');
      },
    };
  }

  const step = () => new CodeIndexScanStep(new MemoryBlobIndexStore());

  it('works on the changed files only, and equals a fresh scan of the commit after every kind of change', async () => {
    const served = servedCopy('remembered');
    const repos = provider();
    const store = new MemoryBlobFacts();
    // Every other step on a worker that remembers nothing: the scan it updates comes from the store, as JSON.
    const states = jsonStore();
    let memory = new ScanMemory(states);
    const derive = step();
    const scanned = async (options: { largestFiles?: number } = {}) => {
      const snapshot = await repos.open(await repos.resolve({ git: served.url, ref: 'main' }));
      const index = recordingIndex();
      const result = await shardedScan(snapshot, { ...options, store, executor: new InProcessShardExecutor(snapshot, store, 2, 'w1', derive), signal: new AbortController().signal, limits: TINY, derive, memory, indexes: [index] });
      return { result, changes: index.changes };
    };
    // Fresh scans: a new cache, facts and memory each; the code index's rows (by blob) are shared.
    const freshStep = step();
    const fresh = async (commit: string, options: { largestFiles?: number } = {}) => {
      const snapshot = await provider().open({ git: served.url, ref: commit });
      const freshStore = new MemoryBlobFacts();
      return shardedScan(snapshot, { ...options, store: freshStore, executor: new InProcessShardExecutor(snapshot, freshStore, 1, 'w2', freshStep), signal: new AbortController().signal, derive: freshStep });
    };
    // Larger files than any the steps change: they stay out of the two largest.
    served.commit((at) => {
      for (let index = 0; index < 3; index++) writeFileSync(at(`filler/f${index}.txt`), `${'filler line\n'.repeat(200)}${index}\n`);
      // Still the largest, but quick to index again in every fresh scan.
      writeFileSync(at('big/data.txt'), 'big data line\n'.repeat(2_000));
    });
    const first = await scanned({ largestFiles: 2 });
    expect(first.changes).toEqual([]);
    let previous = (await repos.resolve({ git: served.url, ref: 'main' })).commit;

    const steps: Array<[string, (at: (file: string) => string) => void]> = [
      ['one file changed', (at) => writeFileSync(at('src/app.ts'), 'export const answer = 43;\n')],
      ['files in new directories', (at) => (writeFileSync(at('lib/deep/x.ts'), 'export class X {}\n'), writeFileSync(at('lib/y.md'), '# y\n'))],
      ['files deleted, one renamed', (at) => (rmSync(at('docs/guide.md')), rmSync(at('src/util.js')), renameSync(at('README.md'), at('README2.md')))],
      ['ignored files force-added, in an ignored directory too', (at) => (writeFileSync(at('trace.log'), 'log\n'), writeFileSync(at('build/out.js'), 'built\n'))],
      ['a file turned into a symlink', (at) => (rmSync(at('src/app.ts')), symlinkSync('../README2.md', at('src/app.ts')))],
      ['a binary added, another removed', (at) => (writeFileSync(at('img/a.bin'), Buffer.from([0, 1, 2, 3])), rmSync(at('logo.png')))],
      ['a blob at a second path', (at) => writeFileSync(at('copy/README2.md'), readFileSync(at('README2.md')))],
      ['a whole directory deleted', (at) => rmSync(at('lib'), { recursive: true })],
    ];
    for (const [index, [change, apply]] of steps.entries()) {
      const commit = served.commit(apply);
      if (index % 2 === 1) memory = new ScanMemory(states);
      const { result, changes } = await scanned({ largestFiles: 2 });
      expect({ change, changes: changes.map((changed) => changed.base), updatedFrom: result.updatedFrom }).toEqual({ change, changes: [previous], updatedFrom: previous });
      const whole = await fresh(commit, { largestFiles: 2 });
      expect({ change, result: comparable(result), blobs: result.blobs.total }).toEqual({ change, result: comparable(whole), blobs: whole.blobs.total });
      expect(result.tokens?.total).toBeGreaterThan(0);
      previous = commit;
    }

    // An ignore file changed: the rules of unchanged directories may have, so the scan starts afresh.
    let commit = served.commit((at) => writeFileSync(at('.gitignore'), '*.log\n'));
    let rescanned = await scanned({ largestFiles: 2 });
    expect(rescanned.changes).toEqual([]);
    expect(comparable(rescanned.result)).toEqual(comparable(await fresh(commit, { largestFiles: 2 })));
    // One of the largest files went: the next one down was never kept, so the scan starts afresh too.
    commit = served.commit((at) => rmSync(at('big/data.txt')));
    rescanned = await scanned({ largestFiles: 2 });
    expect(rescanned.changes).toEqual([]);
    expect(comparable(rescanned.result)).toEqual(comparable(await fresh(commit, { largestFiles: 2 })));
    // And the scan after it starts from that one again.
    commit = served.commit((at) => writeFileSync(at('src/new.ts'), 'export const n = 1;\n'));
    rescanned = await scanned({ largestFiles: 2 });
    expect(rescanned.changes.map((changed) => changed.gained.length)).toEqual([1]);
    expect(rescanned.result.blobs.processed).toBe(1);
    expect(comparable(rescanned.result)).toEqual(comparable(await fresh(commit, { largestFiles: 2 })));
  });

  it('is not used under other settings', async () => {
    const served = servedCopy('settings');
    const repos = provider();
    const store = new MemoryBlobFacts();
    const memory = new ScanMemory();
    const scan = async (options: Partial<Parameters<typeof shardedScan>[1]>) => {
      const snapshot = await repos.open(await repos.resolve({ git: served.url, ref: 'main' }));
      const index = recordingIndex();
      await shardedScan(snapshot, { store, executor: new InProcessShardExecutor(snapshot, store, 1, 'w1'), signal: new AbortController().signal, memory, indexes: [index], ...options });
      return { changes: index.changes.length, assembled: index.wholeScans.length };
    };
    await scan({});
    served.commit((at) => writeFileSync(at('a.txt'), 'a\n'));
    expect(await scan({ largestFiles: 3 })).toEqual({ changes: 0, assembled: 1 });
    served.commit((at) => writeFileSync(at('b.txt'), 'b\n'));
    expect(await scan({ largestFiles: 3 })).toEqual({ changes: 1, assembled: 0 });
    served.commit((at) => writeFileSync(at('c.txt'), 'c\n'));
    expect(await scan({ largestFiles: 4 })).toEqual({ changes: 0, assembled: 1 });
  });
});

/** A commit index that records what the scan told it: the changes of re-scans, the file counts of whole scans. */
function recordingIndex(): CommitIndexStep & { changes: ScanChanges[]; wholeScans: number[] } {
  const changes: ScanChanges[] = [];
  const wholeScans: number[] = [];
  return {
    changes,
    wholeScans,
    assembled: async (_snapshot, commit) => void wholeScans.push(commit.files.length),
    changed: async (_snapshot, change) => void changes.push(change),
  };
}

describe('a sharded scan of a checkout', () => {
  let work: string;
  const git = (...args: string[]) => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } }).toString().trim();
  /** A long-ago mtime: files the index took well before it was written are not "racily clean". */
  const past = new Date(Date.now() - 3_600_000);

  beforeEach(() => {
    work = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-blob-scan-checkout-')));
    git('init', '-q', '-b', 'main');
    for (let index = 0; index < 12; index++) {
      writeFileSync(path.join(work, `f${index}.ts`), `export const v${index} = ${index};\n`);
      utimesSync(path.join(work, `f${index}.ts`), past, past);
    }
    git('add', '.');
    git('commit', '-q', '-m', 'one');
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  /** Scans `work` with a fresh snapshot, counting the files read to learn their blob (hashed). */
  async function scanCheckout(store: BlobFactStore) {
    const snapshot = await provider().openLocal(work);
    snapshot.prepareIdentity();
    const hashed: string[] = [];
    const readBlob = snapshot.readBlob.bind(snapshot);
    snapshot.readBlob = (relative) => (hashed.push(relative), readBlob(relative));
    const result = await sharded(snapshot, store);
    return { result, hashed: hashed.sort(), source: await snapshot.identify() };
  }

  it("takes the blob ids from git's index (nothing hashed), equal to the single-process scan, and a repeat reads nothing", async () => {
    const store = new MemoryBlobFacts();
    const recorded: BlobFact[] = [];
    const spy: BlobFactStore = { lookup: (blobs) => store.lookup(blobs), record: (facts) => (recorded.push(...facts), store.record(facts)) };
    const first = await scanCheckout(spy);
    expect(first.hashed).toEqual([]);
    expect(comparable(first.result)).toEqual(comparable(await referenceScan(work)));
    expect(recorded.map((fact) => fact.blob).sort()).toEqual(git('ls-files', '--stage').split('\n').map((line) => line.split(' ')[1]).sort());
    expect(first.source).toEqual({ path: work, ref: null, commit: git('rev-parse', 'HEAD') });

    const again = await scanCheckout(spy);
    expect(again.hashed).toEqual([]);
    expect(again.result).toMatchObject({ shards: 0, blobs: { total: 12, processed: 0, reused: 12 } });
    expect(comparable(again.result)).toEqual(comparable(first.result));
  });

  it('reads and hashes a file written since the index took it (even at the same size), and an untracked one', async () => {
    const store = new MemoryBlobFacts();
    await scanCheckout(store);
    // Same size, new content and mtime: the index's stat no longer vouches for f3's blob.
    writeFileSync(path.join(work, 'f3.ts'), 'export const v3 = 9;\n');
    writeFileSync(path.join(work, 'f4.ts'), 'export const v4 = "longer now";\nexport {};\n');
    writeFileSync(path.join(work, 'new.ts'), 'export const fresh = 1;\n');
    const { result, hashed, source } = await scanCheckout(store);
    expect(hashed).toEqual(['f3.ts', 'f4.ts', 'new.ts']);
    expect(result.blobs).toEqual({ total: 13, processed: 3, reused: 10 });
    expect(comparable(result)).toEqual(comparable(await referenceScan(work)));
    expect(source).toMatchObject({ dirty: true });
    // The facts stored for the new content are under the new content's ids, not the index's.
    const ids = ['f3.ts', 'f4.ts', 'new.ts'].map((file) => git('hash-object', file));
    expect([...(await store.lookup(ids)).keys()].sort()).toEqual([...ids].sort());

    // The same edits on a first scan (nothing known yet): caught after the read, in the shard.
    const fresh = await scanCheckout(new MemoryBlobFacts());
    expect(fresh.hashed).toEqual(['f3.ts', 'f4.ts', 'new.ts']);
    expect(comparable(fresh.result)).toEqual(comparable(result));
  });

  it('hashes every file when attributes may convert content, or when the index cannot vouch for its stat', async () => {
    writeFileSync(path.join(work, '.gitattributes'), '* text=auto\n');
    const converting = await scanCheckout(new MemoryBlobFacts());
    expect(converting.hashed).toHaveLength(13);
    rmSync(path.join(work, '.gitattributes'));
    // An untracked one further down (git status names it; the walk may find it last).
    mkdirSync(path.join(work, 'sub'));
    writeFileSync(path.join(work, 'sub', '.gitattributes'), '*.ts eol=crlf\n');
    const nested = await scanCheckout(new MemoryBlobFacts());
    expect(nested.hashed).toHaveLength(13);
    rmSync(path.join(work, 'sub'), { recursive: true });

    // Files written in the same millisecond as the index, or after it, are "racily clean".
    const future = new Date(Date.now() + 3_600_000);
    for (let index = 0; index < 12; index++) utimesSync(path.join(work, `f${index}.ts`), future, future);
    git('update-index', '--refresh');
    utimesSync(path.join(work, '.git', 'index'), past, past);
    const racy = await scanCheckout(new MemoryBlobFacts());
    expect(racy.hashed).toHaveLength(12);
    expect(comparable(racy.result)).toEqual(comparable(await referenceScan(work)));
  });
});

describe('planShards', () => {
  it('balances by bytes and caps files, in path order', () => {
    const files = [
      { path: 'b', bytes: 600 },
      { path: 'a', bytes: 600 },
      { path: 'c', bytes: 5000 },
      { path: 'd', bytes: 10 },
      { path: 'e', bytes: 10 },
      { path: 'f', bytes: 10 },
    ];
    const shards = planShards(files, { maxFiles: 2, maxBytes: 1000 });
    expect(shards.map((shard) => shard.files.map((file) => file.path))).toEqual([['a'], ['b'], ['c'], ['d', 'e'], ['f']]);
    expect(shards.map((shard) => shard.index)).toEqual([0, 1, 2, 3, 4]);
    expect(planShards([])).toEqual([]);
  });

  it('tapers: shards shrink toward the end, never under the floor, in path order', () => {
    const mb = 1024 * 1024;
    const files = Array.from({ length: 400 }, (_, index) => ({ path: `f${String(index).padStart(3, '0')}`, bytes: mb / 8 }));
    const shards = planShards(files, { maxFiles: 1000, maxBytes: 8 * mb, taper: 8 });
    const sizes = shards.map((shard) => shard.bytes);
    // 50 MB: the first shard is at most an eighth of it, each later one at most as large, the last ones at the floor.
    expect(sizes[0]).toBeLessThanOrEqual((50 * mb) / 8);
    expect(sizes[0]).toBeGreaterThan(5 * mb);
    for (let index = 1; index < sizes.length; index++) expect(sizes[index]).toBeLessThanOrEqual(sizes[index - 1]);
    expect(sizes[sizes.length - 2]).toBe(MIN_TAPERED_SHARD_BYTES);
    expect(Math.min(...sizes.slice(0, -1))).toBeGreaterThanOrEqual(MIN_TAPERED_SHARD_BYTES);
    expect(shards.flatMap((shard) => shard.files.map((file) => file.path))).toEqual(files.map((file) => file.path));
    // Without a taper, every shard but the last is full.
    expect(planShards(files, { maxFiles: 1000, maxBytes: 8 * mb }).map((shard) => shard.bytes)).toEqual([8, 8, 8, 8, 8, 8, 2].map((size) => size * mb));
  });

  it('names a shard by its first paths', () => {
    expect(describeShardPaths([{ path: 'a' }, { path: 'b' }], 5)).toBe('a, b');
    expect(describeShardPaths([{ path: 'a' }, { path: 'b' }, { path: 'c' }], 2)).toBe('a, b and 1 more');
  });
});
