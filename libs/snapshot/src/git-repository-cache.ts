import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QuarryError } from '@quarry/contracts/errors';
import { parseAllowList, type Dialer, type Resolver } from '@quarry/fetch/policy';
import { BlobReader } from './blob-reader';
import { releaseFileLock, tryFileLock, withFileLock } from './file-lock';
import { gitFailure } from './git-errors';
import { runGit, type GitEnvironment } from './git-process';
import { GitTree, parseTreeChanges, type TreeChange } from './git-tree';
import { checkGitUrl } from './git-url';
import { formatBytes } from '@quarry/contracts/format';
import { GuardedGitProxy, type ProxySession } from './guarded-git-proxy';
import { MeasureStore } from './measure-store';
import { ObjectPresence } from './object-presence';
import { parseLsRemote, resolveRef } from './remote-refs';

export interface GitCredential {
  username: string;
  password: string;
}

export interface GitCacheOptions {
  /** QUARRY_DATA_DIR: the cache lives in `<dataDir>/git`. */
  dataDir: string;
  /** QUARRY_FETCH_ALLOW: CIDRs allowed despite the address policy (tests: 127.0.0.1/32). */
  allow?: readonly string[];
  /** QUARRY_GIT_CACHE_BYTES: the whole cache, least recently used repositories evicted first. */
  cacheBytes?: number;
  /** QUARRY_GIT_MAX_BYTES: what one repository may send (commit trees, then blobs). */
  maxBytes?: number;
  /** QUARRY_GIT_MAX_FILES: files in one commit. */
  maxFiles?: number;
  /** QUARRY_GIT_TIMEOUT_MS: one git network operation. */
  timeoutMs?: number;
  /** By host (`github.com`, `git.example:8443`), from server config only. */
  credentials?: ReadonlyMap<string, GitCredential>;
  /** Tests: a pretend DNS and network (see @quarry/fetch VirtualNetwork). */
  resolver?: Resolver;
  dialer?: Dialer;
}

export interface GitCacheStats {
  refLookups: number;
  commitFetches: number;
  blobFetches: number;
  blobsFetched: number;
  checkouts: number;
  evictions: number;
  /** Commit trees listed whole (`ls-tree`), and derived from the previous listing (`diff-tree`). */
  treesListed: number;
  treesDerived: number;
}

export interface ResolvedGitSource {
  git: string;
  ref: string;
  commit: string;
}

export const DEFAULT_GIT_CACHE_BYTES = 20 * 1024 ** 3;
export const DEFAULT_GIT_MAX_BYTES = 4 * 1024 ** 3;
export const DEFAULT_GIT_MAX_FILES = 1_000_000;
export const DEFAULT_GIT_TIMEOUT_MS = 15 * 60_000;
const LOCK_WAIT_MS = 30 * 60_000;
const FULL_COMMIT = /^[0-9a-f]{40}$/i;
/** The commit fetched last, kept as a ref for the next fetch's negotiation. */
const LAST_FETCHED_REF = 'refs/quarry/last-fetched';
/** The ref that commit was fetched for (a file of the git directory, not a ref). */
const LAST_FETCHED_FOR = 'quarry-last-fetched-for';
/**
 * A commit fetched for the same ref as the last one (a branch that moved: a push or a few) comes
 * with its new blobs up to this size, in the same fetch (see ensureCommit).
 */
const MOVED_REF_BLOB_LIMIT = '256k';
/** A commit's tree is derived from the last one listed when they differ by at most this many files; else listed whole. */
const DERIVE_AT_MOST_CHANGES = 10_000;
/** A commit that changed at most this many files since the last one fetched has them fetched at once (see prefetchChanged). */
const SPECULATIVE_BLOBS = 64;
/** How long small blob requests wait for company before fetching. */
const BATCH_WINDOW_MS = 5;

interface PendingBatch {
  oids: Set<string>;
  done: Promise<void>;
}

/**
 * This process's repositories (several processes may share the directory: every change to a
 * repository happens under its file lock). Per URL, a bare partial clone: a commit's trees come
 * with a shallow blobless fetch, blobs in batches when something reads them, every connection
 * through the guarded proxy.
 */
export class GitRepositoryCache {
  readonly stats: GitCacheStats = { refLookups: 0, commitFetches: 0, blobFetches: 0, blobsFetched: 0, checkouts: 0, evictions: 0, treesListed: 0, treesDerived: 0 };
  readonly root: string;
  readonly options: Required<Omit<GitCacheOptions, 'resolver' | 'dialer' | 'credentials'>> & Pick<GitCacheOptions, 'resolver' | 'dialer' | 'credentials'>;
  private proxy: Promise<GuardedGitProxy> | undefined;
  private readonly repositories = new Map<string, CachedRepository>();
  private readonly home: string;
  private homeReady: Promise<void> | undefined;

  constructor(options: GitCacheOptions) {
    this.options = {
      allow: [],
      cacheBytes: DEFAULT_GIT_CACHE_BYTES,
      maxBytes: DEFAULT_GIT_MAX_BYTES,
      maxFiles: DEFAULT_GIT_MAX_FILES,
      timeoutMs: DEFAULT_GIT_TIMEOUT_MS,
      ...options,
    };
    this.root = path.resolve(options.dataDir, 'git');
    this.home = path.join(this.root, 'home');
  }

  /** The commit `ref` names now (one `git ls-remote`), or no look-up at all for a full id already cached. */
  async resolve(git: string, ref: string | undefined, signal?: AbortSignal): Promise<ResolvedGitSource> {
    const url = checkGitUrl(git, this.options.allow);
    if (ref !== undefined && FULL_COMMIT.test(ref)) {
      const repository = await this.repository(url);
      if (repository.hasCommit(ref.toLowerCase())) return { git: url, ref, commit: ref.toLowerCase() };
    }
    this.stats.refLookups++;
    const output = await this.remote(url, ['ls-remote', '--symref', url], { signal });
    return { git: url, ...resolveRef(parseLsRemote(output.toString('utf8')), ref, url) };
  }

  /** The repository of a resolved source, its commit fetched (trees only) if it was not here. */
  async repository(url: string): Promise<CachedRepository> {
    let repository = this.repositories.get(url);
    if (!repository) {
      repository = new CachedRepository(this, url, path.join(this.root, 'repos', createHash('sha256').update(url).digest('hex').slice(0, 24)));
      this.repositories.set(url, repository);
    }
    await repository.init();
    return repository;
  }

  environment(): GitEnvironment {
    return { home: this.home };
  }

  /** Runs a git command that talks to `url`, through a fresh proxy session, errors typed. */
  async remote(url: string, args: readonly string[], options: { cwd?: string; input?: string; signal?: AbortSignal }): Promise<Buffer> {
    const proxy = await this.startProxy();
    this.homeReady ??= mkdir(this.home, { recursive: true }).then(() => undefined);
    await this.homeReady;
    const session: ProxySession = proxy.session(this.options.maxBytes);
    try {
      return await runGit({ ...this.environment(), proxyUrl: session.url, ...this.credentialConfig(url) }, args, {
        cwd: options.cwd ?? this.home,
        input: options.input,
        timeoutMs: this.options.timeoutMs,
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw gitFailure(error, session, url, this.options.timeoutMs);
    } finally {
      session.close();
    }
  }

  /**
   * Starts an eviction pass, beside the job that fetched rather than before it goes on: sizing the
   * cache walks every repository's git directory (tens of ms on a kernel's partial clone with its
   * many packs, on every commit fetched). One pass at a time; a request during a pass runs one more
   * after it, as sizes have changed.
   */
  evictSoon(keep: CachedRepository): void {
    if (this.evicting) {
      this.evictAgain = keep;
      return;
    }
    this.evicting = this.evict(keep)
      .catch(() => undefined)
      .then(() => {
        this.evicting = undefined;
        const again = this.evictAgain;
        this.evictAgain = undefined;
        if (again) this.evictSoon(again);
      });
  }

  private evicting: Promise<void> | undefined;
  private evictAgain: CachedRepository | undefined;

  /** Settles once no eviction pass is running. */
  async evictionsDone(): Promise<void> {
    while (this.evicting) await this.evicting;
  }

  /** Keeps the cache under its bound: least recently used repositories first, never one in use. */
  private async evict(keep: CachedRepository): Promise<void> {
    const reposDir = path.join(this.root, 'repos');
    const entries = await readdir(reposDir).catch(() => [] as string[]);
    const sized = await Promise.all(
      entries.map(async (name) => {
        const dir = path.join(reposDir, name);
        const used = await stat(path.join(dir, 'last-used')).then((stats) => stats.mtimeMs, () => 0);
        return { dir, used, bytes: await repositoryBytes(dir) };
      }),
    );
    let total = sized.reduce((sum, entry) => sum + entry.bytes, 0);
    for (const entry of sized.sort((a, b) => a.used - b.used)) {
      if (total <= this.options.cacheBytes) break;
      if (entry.dir === keep.dir) continue;
      const lock = path.join(entry.dir, 'lock');
      if (!(await tryFileLock(lock))) continue;
      try {
        // Moved aside first: a reader that opens it now finds it gone, not half deleted.
        const doomed = `${entry.dir}.evicted-${process.pid}-${Date.now()}`;
        await rename(entry.dir, doomed);
        await rm(doomed, { recursive: true, force: true });
        for (const [url, repository] of this.repositories) if (repository.dir === entry.dir) this.repositories.delete(url);
        total -= entry.bytes;
        this.stats.evictions++;
      } catch {
        await releaseFileLock(lock);
      }
    }
  }

  async close(): Promise<void> {
    await this.evictionsDone();
    const proxy = this.proxy;
    this.proxy = undefined;
    if (proxy) await (await proxy).close();
  }

  private startProxy(): Promise<GuardedGitProxy> {
    this.proxy ??= GuardedGitProxy.start({ allow: parseAllowList(this.options.allow), resolver: this.options.resolver, dialer: this.options.dialer });
    return this.proxy;
  }

  /** A credential helper scoped to the URL's origin; the secret travels in the environment only. */
  private credentialConfig(url: string): Pick<GitEnvironment, 'config' | 'env'> {
    const parsed = new URL(url);
    const credential = this.options.credentials?.get(parsed.host) ?? this.options.credentials?.get(parsed.hostname);
    if (!credential) return {};
    const helper = '!f() { test "$1" = get && printf "username=%s\\npassword=%s\\n" "$QUARRY_GIT_USERNAME" "$QUARRY_GIT_PASSWORD"; }; f';
    return {
      config: [`credential.${parsed.protocol}//${parsed.host}.helper=${helper}`],
      env: { QUARRY_GIT_USERNAME: credential.username, QUARRY_GIT_PASSWORD: credential.password },
    };
  }
}

/** One URL's bare partial clone, with its blob presence, measures and reader. */
export class CachedRepository {
  readonly gitDir: string;
  readonly measures: MeasureStore;
  private readonly presence: ObjectPresence;
  private readonly trees = new Map<string, GitTree>();
  private initialized: Promise<void> | undefined;

  constructor(
    private readonly cache: GitRepositoryCache,
    readonly url: string,
    readonly dir: string,
  ) {
    this.gitDir = path.join(dir, 'repo.git');
    this.presence = new ObjectPresence(this.gitDir);
    this.measures = new MeasureStore(path.join(dir, 'measures'));
  }

  init(): Promise<void> {
    this.initialized ??= this.create().catch((error: unknown) => {
      this.initialized = undefined;
      throw error;
    });
    return this.initialized;
  }

  hasCommit(commit: string): boolean {
    this.presence.refresh();
    return this.presence.has(commit);
  }

  /**
   * Fetches the commit and its trees (no history) unless they are here. Blobs are left to the
   * readers, except when `ref` is the ref the last commit fetched here was for: a branch that
   * moved is usually a few commits on, and the fetch then also brings the blobs the new commit
   * has and the last one had not (up to MOVED_REF_BLOB_LIMIT each; the server leaves out all
   * the last commit reaches). A re-scan after a push reads exactly those, without a second
   * round trip (~210 ms of a kernel re-scan on a slow VM). The price: a push of thousands of
   * files is fetched whole by every worker that opens its commit, where each would fetch only
   * its shards' share. Another ref may be far from the last one, with thousands of new blobs
   * that a scan's shards fetch on their own workers: its commit comes with trees only.
   */
  async ensureCommit(commit: string, signal?: AbortSignal, ref?: string): Promise<void> {
    await this.touch();
    if (this.hasCommit(commit)) return;
    let previous: string | undefined;
    await this.locked(async () => {
      if (this.hasCommit(commit)) return;
      const lastFetched = (file: string) => readFile(path.join(this.gitDir, file), 'utf8').then((text) => text.trim(), () => undefined);
      const [last, lastFor] = await Promise.all([lastFetched(LAST_FETCHED_REF), lastFetched(LAST_FETCHED_FOR)]);
      previous = last !== undefined && FULL_COMMIT.test(last) ? last : undefined;
      const moved = previous !== undefined && ref !== undefined && ref === lastFor;
      const filter = moved ? `--filter=blob:limit=${MOVED_REF_BLOB_LIMIT}` : '--filter=blob:none';
      this.cache.stats.commitFetches++;
      await this.cache.remote(this.url, ['--git-dir', this.gitDir, 'fetch', '--quiet', '--depth=1', filter, '--no-tags', '--no-write-fetch-head', 'origin', commit], { signal });
      this.presence.refresh();
      if (!this.presence.has(commit)) throw new QuarryError('ref_not_found', `${this.url} did not send commit ${commit}.`, { suggestion: 'Check the commit id.' });
      // A ref on the commit, so the next fetch offers it as "have": the server then sends only the
      // trees that changed since (a one-file commit of the kernel: a few trees, not all 5,000).
      // Written as git writes a loose ref (a file holding the id, replaced by a rename) rather than
      // by `git update-ref`: one process fewer to start per commit fetched (7–25 ms of a big
      // worker's main thread, to fork it). The cache never packs its refs (gc.auto=0).
      const refFile = path.join(this.gitDir, LAST_FETCHED_REF);
      await mkdir(path.dirname(refFile), { recursive: true });
      await writeFile(`${refFile}.${process.pid}.tmp`, `${commit}\n`);
      await rename(`${refFile}.${process.pid}.tmp`, refFile);
      await writeFile(path.join(this.gitDir, LAST_FETCHED_FOR), ref ?? '');
    }, signal);
    if (previous !== undefined && previous !== commit) this.prefetchChanged(previous, commit);
    this.cache.evictSoon(this);
  }

  /**
   * Starts fetching the blobs `commit` changed since `previous`, when they are few and not here
   * yet (a moved ref's fetch brought all but those over MOVED_REF_BLOB_LIMIT): a re-scan after
   * a small commit reads exactly these, and the fetch (a round trip to the server, ~150–250 ms)
   * then runs beside the tree's listing and the facts' look-up instead of after them. Whoever
   * reads them meanwhile waits for this fetch (`fetchBlobs` looks again under the lock) rather
   * than fetching them twice. Best effort: a failure here leaves them to be fetched when read.
   */
  private prefetchChanged(previous: string, commit: string): void {
    this.prefetched = this.changesBetween(previous, commit)
      .then((changes) => {
        // New contents of regular files (a deletion's new mode is 000000).
        const oids = changes.filter((change) => change.newMode.startsWith('100')).map((change) => change.newOid);
        if (oids.length > 0 && oids.length <= SPECULATIVE_BLOBS) return this.ensureBlobs(oids);
      })
      .catch(() => undefined);
  }

  /**
   * `git diff-tree` between two commits here (local: both trees are present), parsed. The last
   * pair asked for is kept: a re-scan asks twice for the same one, for the early fetch of the
   * changed blobs and for the derived tree.
   */
  private changesBetween(from: string, to: string): Promise<TreeChange[]> {
    const key = `${from}..${to}`;
    if (this.lastChanges?.key !== key) {
      const changes = runGit(this.cache.environment(), ['--git-dir', this.gitDir, 'diff-tree', '-r', '-z', '--no-renames', from, to], { timeoutMs: this.cache.options.timeoutMs }).then(parseTreeChanges);
      this.lastChanges = { key, changes };
    }
    return this.lastChanges.changes;
  }

  private lastChanges: { key: string; changes: Promise<TreeChange[]> } | undefined;

  /** The last fetch `prefetchChanged` started; settles when it is done, never rejects. */
  prefetched: Promise<void> = Promise.resolve();

  /**
   * Fetches the blobs of `oids` not already here. Requests that arrive within a few milliseconds of
   * each other (detection reading manifests 32 at a time) share one fetch.
   */
  async ensureBlobs(oids: Iterable<string>, signal?: AbortSignal): Promise<void> {
    const missing = this.presence.missing(oids);
    if (missing.length === 0) return;
    if (missing.length > 64) return this.fetchBlobs(missing, signal);
    let batch = this.pendingBatch;
    if (!batch) {
      const created: PendingBatch = { oids: new Set(), done: undefined as unknown as Promise<void> };
      created.done = new Promise<void>((resolve) => setTimeout(resolve, BATCH_WINDOW_MS)).then(() => {
        if (this.pendingBatch === created) this.pendingBatch = undefined;
        return this.fetchBlobs([...created.oids]);
      });
      created.done.catch(() => undefined);
      this.pendingBatch = batch = created;
    }
    for (const oid of missing) batch.oids.add(oid);
    await batch.done;
    signal?.throwIfAborted();
  }

  private pendingBatch: PendingBatch | undefined;

  private async fetchBlobs(oids: readonly string[], signal?: AbortSignal): Promise<void> {
    if (this.presence.missing(oids).length === 0) return;
    const wanted = [...new Set(oids)];
    await this.locked(async () => {
      const missing = this.presence.missing(wanted);
      if (missing.length === 0) return;
      this.cache.stats.blobFetches++;
      this.cache.stats.blobsFetched += missing.length;
      await this.cache.remote(
        this.url,
        ['-c', 'fetch.negotiationAlgorithm=noop', '--git-dir', this.gitDir, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--recurse-submodules=no', '--filter=blob:none', '--stdin', 'origin'],
        { input: `${missing.join('\n')}\n`, signal },
      );
      this.presence.refresh();
      const still = this.presence.missing(missing);
      if (still.length > 0) {
        throw new QuarryError('repo_unavailable', `${this.url} did not send ${still.length} of the ${missing.length} files asked for.`, { permanent: false, suggestion: 'The job is retried automatically.' });
      }
    }, signal);
    this.cache.evictSoon(this);
  }

  /** The commit's files (`git ls-tree -r`, local: trees are here after ensureCommit). */
  async tree(commit: string, signal?: AbortSignal): Promise<GitTree> {
    const cached = this.trees.get(commit);
    if (cached) return cached;
    let tree = await this.derivedTree(commit, signal);
    if (tree) this.cache.stats.treesDerived++;
    else {
      tree = GitTree.parse(await runGit(this.cache.environment(), ['--git-dir', this.gitDir, 'ls-tree', '-r', '-z', '--full-tree', commit], { timeoutMs: this.cache.options.timeoutMs, signal }));
      this.cache.stats.treesListed++;
    }
    if (tree.size > this.cache.options.maxFiles) {
      throw new QuarryError('repo_too_large', `${this.url} has ${tree.size.toLocaleString('en-US')} files at ${commit.slice(0, 12)}; the limit is ${this.cache.options.maxFiles.toLocaleString('en-US')} (QUARRY_GIT_MAX_FILES).`, {
        suggestion: 'Pick a smaller repository, or ask the operator to raise QUARRY_GIT_MAX_FILES.',
      });
    }
    // Only the latest listing stays: a kernel tree is tens of MB of paths and ids, and a worker
    // scans one commit of a repository at a time (a snapshot keeps its own tree while it is open).
    this.trees.clear();
    this.trees.set(commit, tree);
    return tree;
  }

  /**
   * The commit's tree from the last one listed here and the changes between them (`diff-tree`,
   * local): a re-scan after a small commit skips listing and parsing the whole tree again. Undefined
   * when there is no listing to start from or the commits differ by too much to gain from it.
   */
  private async derivedTree(commit: string, signal?: AbortSignal): Promise<GitTree | undefined> {
    const [previousCommit, previous] = this.trees.entries().next().value ?? [];
    if (!previousCommit || !previous || !this.hasCommit(previousCommit)) return undefined;
    const changes = await this.changesBetween(previousCommit, commit).catch(() => undefined);
    signal?.throwIfAborted();
    return changes && changes.length <= DERIVE_AT_MOST_CHANGES ? previous.derive(changes, previousCommit) : undefined;
  }

  /** A new `cat-file --batch` over this repository (its caller closes it). */
  blobReader(): BlobReader {
    return new BlobReader(this.cache.environment(), this.gitDir);
  }

  /** A checkout of the commit inside the cache (for tools that need files on disk), made once. */
  async checkout(commit: string, tree: GitTree, signal?: AbortSignal): Promise<string> {
    const target = path.join(this.dir, 'trees', commit);
    await this.touch();
    if (existsSync(target)) return target;
    await this.ensureBlobs(tree.blobs(), signal);
    await this.locked(async () => {
      if (existsSync(target)) return;
      this.cache.stats.checkouts++;
      const temporary = `${target}.tmp-${process.pid}`;
      await rm(temporary, { recursive: true, force: true });
      await mkdir(temporary, { recursive: true });
      const environment = { ...this.cache.environment(), env: { GIT_INDEX_FILE: `${temporary}.index` } };
      const options = { timeoutMs: this.cache.options.timeoutMs, signal };
      await runGit(environment, ['--git-dir', this.gitDir, '--work-tree', temporary, 'read-tree', commit], options);
      await runGit(environment, ['--git-dir', this.gitDir, '--work-tree', temporary, 'checkout-index', '--all', '--force'], options);
      await rm(`${temporary}.index`, { force: true });
      const sizes = await runGit(this.cache.environment(), ['--git-dir', this.gitDir, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit], options);
      let bytes = 0;
      for (const record of sizes.toString('utf8').split('\0')) bytes += Number(/^\S+ blob \S+ +(\d+)\t/.exec(record)?.[1] ?? 0);
      await writeFile(`${target}.bytes`, String(bytes));
      await rename(temporary, target);
    }, signal);
    this.cache.evictSoon(this);
    return target;
  }

  private async create(): Promise<void> {
    if (existsSync(path.join(this.gitDir, 'config')) && existsSync(path.join(this.dir, 'ready'))) return;
    await mkdir(this.dir, { recursive: true });
    await mkdir(path.join(this.cache.root, 'home'), { recursive: true });
    await this.locked(async () => {
      if (existsSync(path.join(this.dir, 'ready'))) return;
      const environment = this.cache.environment();
      const options = { timeoutMs: 60_000 };
      await rm(this.gitDir, { recursive: true, force: true });
      await runGit(environment, ['init', '--quiet', '--bare', this.gitDir], options);
      for (const [key, value] of [
        ['core.repositoryformatversion', '1'],
        ['extensions.partialClone', 'origin'],
        ['remote.origin.url', this.url],
        ['remote.origin.promisor', 'true'],
        ['remote.origin.partialclonefilter', 'blob:none'],
        ['gc.auto', '0'],
      ]) {
        await runGit(environment, ['--git-dir', this.gitDir, 'config', key, value], options);
      }
      await writeFile(path.join(this.dir, 'url'), `${this.url}\n`);
      await writeFile(path.join(this.dir, 'ready'), '');
    });
  }

  private locked<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withFileLock(path.join(this.dir, 'lock'), work, { timeoutMs: LOCK_WAIT_MS, signal });
  }

  private async touch(): Promise<void> {
    const file = path.join(this.dir, 'last-used');
    const now = new Date();
    await utimes(file, now, now).catch(() => writeFile(file, ''));
  }
}

/**
 * A repository's size on disk: its git directory and measures, file by file (a few packs), and its
 * checkouts by the size recorded when each was made (walking 78k files per eviction pass would not do).
 */
async function repositoryBytes(dir: string): Promise<number> {
  let total = await directoryBytes(path.join(dir, 'repo.git'));
  total += await stat(path.join(dir, 'measures')).then((stats) => stats.size, () => 0);
  const trees = await readdir(path.join(dir, 'trees')).catch(() => [] as string[]);
  for (const name of trees.filter((entry) => entry.endsWith('.bytes'))) {
    total += Number(await readFile(path.join(dir, 'trees', name), 'utf8').catch(() => '0')) || 0;
  }
  return total;
}

/** Sum of file sizes under `dir`, walked by hand (Node 20's recursive readdir with file types misses entries). */
async function directoryBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(full);
    else if (entry.isFile()) total += await stat(full).then((stats) => stats.size, () => 0);
  }
  return total;
}

