import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { QuarryError } from '@quarry/contracts';
import { loopbackOnlyDialer, VirtualNetwork } from '../../fetch/src/testing/virtual-network';
import { referenceScan, directorySource } from '../../workspace/src/testing/reference-scan';
import { detectStack } from '@quarry/detect';
import { SnapshotProvider } from './snapshot-provider';
import { GitHttpServer, makeFixtureRepositories, type FixtureRepositories } from './testing/git-http-server';
import type { GitCacheOptions } from './git-repository-cache';

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

function provider(git: Partial<GitCacheOptions> = {}): SnapshotProvider {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-snapshot-data-'));
  dataDirs.push(dataDir);
  // Loopback only, whatever the guard under test decides: a policy bug cannot send a packet out.
  const created = new SnapshotProvider({ workspaceRoots: [path.dirname(fixtures.checkout)], git: { dataDir, allow: ['127.0.0.1/32'], dialer: loopbackOnlyDialer, ...git } });
  providers.push(created);
  return created;
}

/**
 * A repository of its own on the test server (`<name>.git`), each file holding its own path, and
 * the working copy it came from: `commit` writes files there and publishes the next commit.
 */
function servedRepository(
  name: string,
  files: readonly string[],
): { url: string; work: string; commit(changes: Record<string, string | null>): void; branch(name: string): void } {
  const work = mkdtempSync(path.join(os.tmpdir(), `quarry-${name}-`));
  dataDirs.push(work);
  const inWork = (...args: string[]) => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    writeFileSync(path.join(work, file), text);
  };
  for (const file of files) write(file, `${file}\n`);
  inWork('init', '-q', '-b', 'main');
  inWork('add', '-A');
  inWork('commit', '-q', '-m', 'one');
  const bare = path.join(fixtures.root, `${name}.git`);
  execFileSync('git', ['clone', '-q', '--bare', work, bare]);
  return {
    url: server.url(`${name}.git`),
    work,
    commit(changes) {
      for (const [file, text] of Object.entries(changes)) {
        if (text === null) rmSync(path.join(work, file));
        else write(file, text);
      }
      inWork('add', '-A');
      inWork('commit', '-q', '-m', 'next');
      execFileSync('git', ['-C', bare, 'fetch', '-q', work, '+main:main']);
    },
    /** A branch of the served repository at main's commit. */
    branch(branch) {
      execFileSync('git', ['-C', bare, 'branch', '-f', branch, 'main']);
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<QuarryError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(QuarryError);
  return error as QuarryError;
}

const comparable = (result: Awaited<ReturnType<typeof referenceScan>>) => {
  const { root: _root, durationMs: _duration, ...rest } = result;
  return rest;
};

describe('GitSnapshot over a real git http server', () => {
  it('scans a URL exactly as it scans a checkout of the same commit', async () => {
    const repos = provider();
    const snapshot = await repos.open({ git: server.url('demo.git'), ref: 'main' });
    expect(snapshot.source).toEqual({ git: server.url('demo.git'), ref: 'main', commit: fixtures.commits.main });
    const byUrl = await referenceScan(snapshot);
    const byPath = await referenceScan(directorySource(fixtures.checkout));
    expect(comparable(byUrl)).toEqual(comparable(byPath));
    expect(byUrl.files).toBeGreaterThan(5);
    expect(byUrl.skipped).toMatchObject({ binary: 1, symlinks: 1 });
    expect(byUrl.skipped.ignored).toBeGreaterThanOrEqual(2); // debug.log and docs/draft.md, force-added but ignored
    // A repeat scan of the same commit reads no content and gives the same answer.
    const fetches = server.fetches().length;
    expect(comparable(await referenceScan(await repos.open(snapshot.source)))).toEqual(comparable(byPath));
    expect(server.fetches().length).toBe(fetches);
  });

  it('detects the same stack from a URL as from the checkout', async () => {
    const snapshot = await provider().open({ git: server.url('demo.git') });
    const reader = {
      root: 'demo',
      readDirectory: async (relative: string) => (await snapshot.readDirectory(relative)) ?? Promise.reject(new Error('missing')),
      readText: async (relative: string, maxBytes: number) => (await snapshot.readFile(relative, { maxBytes }))?.toString('utf8'),
    };
    const [byUrl, byPath] = await Promise.all([detectStack(reader, { mode: 'static' }), detectStack(fixtures.checkout, { mode: 'static' })]);
    expect(byUrl).toEqual(byPath);
  });

  it('resolves branches, tags, full and short commits, and the default branch', async () => {
    const repos = provider();
    const url = server.url('demo.git');
    await expect(repos.resolve({ git: url })).resolves.toEqual({ git: url, ref: 'main', commit: fixtures.commits.main });
    await expect(repos.resolve({ git: url, ref: 'dev' })).resolves.toMatchObject({ commit: fixtures.commits.dev });
    await expect(repos.resolve({ git: url, ref: 'v1.0' })).resolves.toMatchObject({ commit: fixtures.commits.first });
    await expect(repos.resolve({ git: url, ref: 'light' })).resolves.toMatchObject({ commit: fixtures.commits.main });
    await expect(repos.resolve({ git: url, ref: 'refs/heads/dev' })).resolves.toMatchObject({ commit: fixtures.commits.dev });
    await expect(repos.resolve({ git: url, ref: fixtures.commits.dev.slice(0, 10) })).resolves.toMatchObject({ commit: fixtures.commits.dev });
    await expect(repos.resolve({ git: url, ref: fixtures.commits.first })).resolves.toMatchObject({ commit: fixtures.commits.first });
    // A full commit that is not a tip is fetched by id.
    const old = await repos.open({ git: url, ref: fixtures.commits.first });
    expect((await referenceScan(old)).files).toBe(3);
  });

  it('says ref_not_found for a missing ref, suggesting main for master', async () => {
    const repos = provider();
    const error = await failure(repos.resolve({ git: server.url('demo.git'), ref: 'master' }));
    expect(error.kind).toBe('ref_not_found');
    expect(error.suggestion).toContain('"main"');
    expect(error.permanent).toBe(true);
    expect((await failure(repos.resolve({ git: server.url('demo.git'), ref: 'devv' }))).suggestion).toContain('"dev"');
    expect((await failure(repos.open({ git: server.url('demo.git'), ref: 'f'.repeat(40) }))).kind).toBe('ref_not_found');
    expect((await failure(repos.resolve({ git: server.url('empty.git') }))).kind).toBe('ref_not_found');
  });

  it('reuses the cache: a second job on the same commit makes no fetch and at most one ref look-up', async () => {
    const repos = provider();
    const url = server.url('demo.git');
    const first = await repos.resolve({ git: url, ref: 'main' });
    await referenceScan(await repos.open(first));
    const before = { fetches: server.fetches().length, lookups: server.lookups().length };
    const again = await repos.resolve({ git: url, ref: 'main' });
    await referenceScan(await repos.open(again));
    expect(server.fetches().length - before.fetches).toBe(0);
    expect(server.lookups().length - before.lookups).toBe(1);
    // A full commit id already in the cache needs no look-up at all.
    await repos.resolve({ git: url, ref: first.commit });
    expect(server.lookups().length - before.lookups).toBe(1);
    expect(repos.git.stats).toMatchObject({ commitFetches: 1, blobFetches: expect.any(Number) });
  });

  it('keeps the last fetched commit as a ref, so the next commit\'s fetch sends only what changed', async () => {
    // A repository of its own: deep directories, then a commit that changes one top-level file.
    const served = servedRepository('negotiate', ['deep/one/two/x.txt', 'deep/one/y.txt', 'other/z.txt', 'top.txt']);
    const repos = provider();
    const url = served.url;
    await repos.open(await repos.resolve({ git: url, ref: 'main' }));
    served.commit({ 'top.txt': 'changed\n' });
    const newer = await repos.resolve({ git: url, ref: 'main' });
    await repos.open(newer);

    const repository = await repos.git.repository(url);
    const { gitDir } = repository;
    expect(execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'refs/quarry/last-fetched']).toString().trim()).toBe(newer.commit);
    // The second fetch's pack: the commit, the root tree and the changed blob (the same ref moved),
    // not the commit with all 5 of its trees that a fetch without a "have" receives, nor the
    // blobs of the files that did not change.
    await repository.prefetched;
    const packDir = path.join(gitDir, 'objects', 'pack');
    const indexes = readdirSync(packDir).filter((name) => name.endsWith('.idx')).map((name) => path.join(packDir, name));
    expect(indexes).toHaveLength(2);
    const newest = indexes.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)[1];
    const sent = execFileSync('git', ['show-index'], { input: readFileSync(newest) }).toString().trim().split('\n');
    const objects = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '--batch-check=%(objecttype) %(objectname)'], { input: sent.map((line) => `${line.split(' ')[1]}\n`).join('') })
      .toString()
      .trim()
      .split('\n');
    const rev = (name: string) => execFileSync('git', ['--git-dir', gitDir, 'rev-parse', name]).toString().trim();
    expect(objects).toEqual(expect.arrayContaining([`commit ${newer.commit}`, `tree ${rev(`${newer.commit}^{tree}`)}`]));
    expect(objects.filter((object) => object.startsWith('blob'))).toEqual([`blob ${rev(`${newer.commit}:top.txt`)}`]);
    expect(objects.length).toBeLessThanOrEqual(4);
  });

  it('fetches the blobs a commit of the same ref changed with the commit, and those of another ref right after it', async () => {
    const served = servedRepository('prefetch', ['a.txt', 'b.txt', 'dir/c.txt']);
    const repos = provider();
    const url = served.url;
    const open = async (ref: string) => repos.open(await repos.resolve({ git: url, ref }));
    // The first commit: nothing fetched before it, so nothing is fetched ahead of the reads.
    await open('main');
    const repository = await repos.git.repository(url);
    await repository.prefetched;
    expect(repos.git.stats.blobFetches).toBe(0);

    // main moved: its new blobs come with the commit (no fetch of their own, none when read).
    served.commit({ 'dir/c.txt': 'changed\n', 'new.txt': 'new\n' });
    const moved = await open('main');
    await repository.prefetched;
    expect(repos.git.stats).toMatchObject({ commitFetches: 2, blobFetches: 0 });
    expect((await moved.readFile('dir/c.txt'))?.toString()).toBe('changed\n');
    expect((await moved.readFile('new.txt'))?.toString()).toBe('new\n');
    expect(repos.git.stats.blobFetches).toBe(0);
    // An unchanged file is still fetched when read.
    expect((await moved.readFile('a.txt'))?.toString()).toBe('a.txt\n');
    expect(repos.git.stats).toMatchObject({ blobFetches: 1, blobsFetched: 1 });

    // Another ref: trees only, then its few changed blobs in one fetch, before anything reads them.
    served.commit({ 'b.txt': 'on dev\n', 'dir/d.txt': 'd\n' });
    served.branch('dev');
    const other = await open('dev');
    await repository.prefetched;
    expect(repos.git.stats).toMatchObject({ commitFetches: 3, blobFetches: 2, blobsFetched: 3 });
    // Its tree came from the last one and the commit's changes, and lists as the commit does.
    expect(repos.git.stats).toMatchObject({ treesListed: 1, treesDerived: 2 });
    expect((await other.walk()).files.sort()).toEqual(['a.txt', 'b.txt', 'dir/c.txt', 'dir/d.txt', 'new.txt']);
    expect((await other.entry('dir/d.txt'))?.blob).toBe(execFileSync('git', ['-C', served.work, 'rev-parse', 'HEAD:dir/d.txt']).toString().trim());
    expect((await other.readFile('b.txt'))?.toString()).toBe('on dev\n');
    expect((await other.readFile('dir/d.txt'))?.toString()).toBe('d\n');
    expect(repos.git.stats.blobFetches).toBe(2);
  });

  it('says which files and directory listings a commit changed since the tree it was derived from', async () => {
    const served = servedRepository('tree-changes', ['a.txt', 'src/b.ts', 'src/c.ts']);
    const repos = provider();
    const open = async () => repos.open(await repos.resolve({ git: served.url, ref: 'main' }));
    const first = await open();
    expect(first.treeChangesSince?.()).toBeUndefined(); // listed whole: nothing to compare with
    const commits = [first.source.commit];
    const changes = async (change: Record<string, string | null>) => {
      served.commit(change);
      const snapshot = await open();
      commits.push(snapshot.source.commit);
      const changed = snapshot.treeChangesSince?.();
      return changed && { base: changed.base, files: changed.files.sort(), directories: changed.directories.sort() };
    };
    // An edit in place changes no listing.
    expect(await changes({ 'src/b.ts': 'edited\n' })).toEqual({ base: commits[0], files: ['src/b.ts'], directories: [] });
    // A file in new directories: its directory, and each new one's parent up to one that was there.
    expect(await changes({ 'x/y/z.txt': 'new\n' })).toEqual({ base: commits[1], files: ['x/y/z.txt'], directories: ['', 'x', 'x/y'] });
    // A deletion changes its directory's listing; the last file of a directory takes it away too.
    expect(await changes({ 'src/c.ts': null, 'x/y/z.txt': null })).toEqual({ base: commits[2], files: ['src/c.ts', 'x/y/z.txt'], directories: ['', 'src', 'x', 'x/y'] });
  });

  it('reads files, ranges, directories and blob ids', async () => {
    const snapshot = await provider().open({ git: server.url('demo.git') });
    expect((await snapshot.readFile('src/app.ts'))?.toString()).toContain('answer = 42');
    expect((await snapshot.readRange('README.md', 2, 6))?.toString()).toBe('Demo');
    expect(await snapshot.readFile('missing.ts')).toBeUndefined();
    expect(await snapshot.readFile('big/data.txt', { maxBytes: 1000 })).toBeUndefined();
    expect((await snapshot.readDirectory('.'))?.map((entry) => entry.name).sort()).toContain('src');
    const local = await provider().openLocal(fixtures.checkout);
    expect((await snapshot.entry('src/app.ts'))?.blob).toBe((await local.entry('src/app.ts'))?.blob);
    const tree = await snapshot.workingTree();
    expect((await referenceScan(directorySource(tree))).files).toBe((await referenceScan(snapshot)).files);
  });

  it('follows a redirect on the same allowed host', async () => {
    const snapshot = await provider().open({ git: server.url('moved/demo.git') });
    expect(snapshot.source.commit).toBe(fixtures.commits.main);
  });

  it('clones a private repository with the host credentials of the server config, and not without', async () => {
    const url = server.url('private/demo.git');
    expect((await failure(provider().resolve({ git: url }))).kind).toBe('repo_not_found');
    const credentials = new Map([[`127.0.0.1:${server.port}`, { username: 'user', password: 'secret' }]]);
    const error = await failure(provider({ credentials: new Map([[`127.0.0.1:${server.port}`, { username: 'user', password: 'wrong' }]]) }).resolve({ git: url }));
    expect(error.kind).toBe('repo_not_found');
    expect(JSON.stringify(error.toBody())).not.toContain('wrong');
    const snapshot = await provider({ credentials }).open({ git: url });
    expect((await referenceScan(snapshot)).files).toBeGreaterThan(5);
  });

  it('says repo_not_found for a missing repository', async () => {
    const error = await failure(provider().resolve({ git: server.url('nope.git') }));
    expect(error).toMatchObject({ kind: 'repo_not_found', permanent: true });
  });

  it('refuses a repository over the byte or file limits with repo_too_large', async () => {
    const bytes = await failure(referenceScan(await provider({ maxBytes: 200_000 }).open({ git: server.url('demo.git') })));
    expect(bytes.kind).toBe('repo_too_large');
    const files = await failure(provider({ maxFiles: 3 }).open({ git: server.url('demo.git') }));
    expect(files.kind).toBe('repo_too_large');
  });

  it('says repo_unavailable, to be retried, when the git host fails', async () => {
    const failing = http.createServer((_request, response) => response.writeHead(503).end('down for maintenance'));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      const port = (failing.address() as { port: number }).port;
      const error = await failure(provider().resolve({ git: `http://127.0.0.1:${port}/repo.git` }));
      expect(error).toMatchObject({ kind: 'repo_unavailable', permanent: false });
    } finally {
      failing.close();
    }
  });

  it('times out on a server that never answers', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const error = await failure(provider({ timeoutMs: 1_500 }).resolve({ git: `http://127.0.0.1:${port}/repo.git` }));
      expect(error).toMatchObject({ kind: 'url_timeout', permanent: false });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it.each([
    ['file:///etc', 'url_blocked'],
    ['ssh://git@github.com/o/r.git', 'url_blocked'],
    ['git://github.com/o/r.git', 'url_blocked'],
    ['ext::sh -c touch% /tmp/pwned', 'url_blocked'],
    ['git@github.com:o/r.git', 'url_blocked'],
    ['/srv/repos/r.git', 'url_blocked'],
    ['./r.git', 'url_blocked'],
    ['--upload-pack=touch /tmp/pwned', 'url_invalid'],
    ['-uhttps://example.com/r.git', 'url_invalid'],
    ['https://user:pass@example.com/r.git', 'url_invalid'],
    ['https://', 'url_invalid'],
    ['http://localhost/r.git', 'url_blocked'],
    ['https://10.0.0.1/r.git', 'url_blocked'],
    ['https://169.254.169.254/r.git', 'url_blocked'],
    ['https://[::ffff:127.0.0.2]/r.git', 'url_blocked'],
  ])('refuses %s with %s before running git', async (url, kind) => {
    const repos = provider({ allow: [] });
    const error = await failure(repos.resolve({ git: url }));
    expect(error.kind).toBe(kind);
    expect(error.suggestion).toBeTruthy();
    expect(repos.git.stats.refLookups).toBe(0);
  });
});

describe('the cache', () => {
  it('is shared safely by providers of one data directory opening the same repository at once', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-snapshot-shared-'));
    dataDirs.push(dataDir);
    const twins = [1, 2, 3].map(() => {
      const created = new SnapshotProvider({ workspaceRoots: [], git: { dataDir, allow: ['127.0.0.1/32'], dialer: loopbackOnlyDialer } });
      providers.push(created);
      return created;
    });
    const fetches = server.fetches().length;
    const results = await Promise.all(twins.map(async (twin) => referenceScan(await twin.open({ git: server.url('demo.git'), ref: 'dev' }))));
    expect(new Set(results.map((result) => result.lines)).size).toBe(1);
    // One commit fetch and one blob fetch between them: the others waited on the lock and found it done.
    expect(server.fetches().length - fetches).toBeLessThanOrEqual(3);
    expect(twins.reduce((sum, twin) => sum + twin.git.stats.commitFetches, 0)).toBe(1);
  });

  it('evicts the least recently used repository past QUARRY_GIT_CACHE_BYTES, never the one in use', async () => {
    const repos = provider({ cacheBytes: 1_048_576 });
    await referenceScan(await repos.open({ git: server.url('demo.git') }));
    await repos.git.evictionsDone();
    expect(repos.git.stats.evictions).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await referenceScan(await repos.open({ git: server.url('moved/demo.git') }));
    // Eviction runs beside the job that fetched, not before it goes on.
    await repos.git.evictionsDone();
    expect(repos.git.stats.evictions).toBe(1);
    // The first one is gone: opening it again fetches it again.
    const before = repos.git.stats.commitFetches;
    await repos.open({ git: server.url('demo.git') });
    expect(repos.git.stats.commitFetches).toBe(before + 1);
  });

  it('a cancelled scan stops its own reader and leaves another job on the same repository alone', async () => {
    const repos = provider();
    const source = await repos.resolve({ git: server.url('demo.git') });
    const [cancelled, other] = await Promise.all([repos.open(source), repos.open(source)]);
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const pending = referenceScan(cancelled, { signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect((await referenceScan(other)).files).toBeGreaterThan(5);
    cancelled.close();
    other.close();
  });
});

describe('the guarded proxy (a pretend network: nothing leaves the machine)', () => {
  it('refuses a name that resolves to a private address, without dialing it', async () => {
    const network = new VirtualNetwork().host('git.internal.example', ['10.1.2.3']);
    const error = await failure(provider({ allow: [], resolver: network.resolver, dialer: network.dialer }).resolve({ git: 'https://git.internal.example/r.git' }));
    expect(error.kind).toBe('url_blocked');
    expect(network.dialed).toEqual([]);
  });

  it('says dns_failed for a host that does not exist', async () => {
    const network = new VirtualNetwork();
    const error = await failure(provider({ allow: [], resolver: network.resolver, dialer: network.dialer }).resolve({ git: 'https://nowhere.example/r.git' }));
    expect(error).toMatchObject({ kind: 'dns_failed', permanent: true });
  });

  it('refuses plain http to a public address that is not allow-listed', async () => {
    const network = new VirtualNetwork().host('git.example', ['93.184.216.34']).route('93.184.216.34', server.port);
    const error = await failure(provider({ allow: [], resolver: network.resolver, dialer: network.dialer }).resolve({ git: 'http://git.example/demo.git' }));
    expect(error.kind).toBe('url_blocked');
    expect(error.message).toContain('plain http');
  });

  it('refuses a redirect to a blocked address', async () => {
    const redirector = http.createServer((_request, response) => response.writeHead(302, { location: 'http://169.254.169.254/latest/demo.git/info/refs?service=git-upload-pack' }).end());
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const port = (redirector.address() as { port: number }).port;
      const error = await failure(provider().resolve({ git: `http://127.0.0.1:${port}/demo.git` }));
      expect(error.kind).toBe('url_blocked');
      expect(error.message).toContain('169.254.169.254');
    } finally {
      redirector.close();
    }
  });
});
