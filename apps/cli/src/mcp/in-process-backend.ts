import path from 'node:path';
import type { QuarryConfig } from '@quarry/config/settings';
import type { IndexState, JobKind, NavigationInput, NavigationQuery, NavigationResult, WorkspaceToolInput, WorkspaceToolName } from '@quarry/contracts';
import type { SafeFetcher } from '@quarry/fetch';
import { InProcessPorts, navigationReads, runUseCase } from '@quarry/jobs/in-process';
import type { CheckoutIndexes } from '@quarry/search-index';
import {
  InProcessJobs,
  IndexStates,
  searchIndexStateOf,
  WorkspaceOperations,
  type IndexStateOptions,
  type JobWork,
  type QuarryBackend,
  type RepositoryFields,
  type RunOptions,
  type WorkspaceAnswer,
  type WorkspaceReadOptions,
} from '@quarry/mcp';
import { FileCache } from '@quarry/workspace';
import { snapshotProviderFor, type SnapshotProvider } from '@quarry/snapshot';
import { localRoot } from '../commands/local';

/** Where the search index's build reports (stderr's logger). */
export interface SearchIndexLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * `quarry mcp` without a server: every tool runs in this process, like the CLI's `--local`
 * commands — the same use cases (@quarry/jobs) with in-memory ports, no Redis or Postgres, kept
 * for the session (a second scan of a commit reuses the first's per-blob work). Repositories are
 * any directory the user can read (they are the user's own files); URLs go through the same SSRF
 * guards as the fetch job. Jobs live in memory for the session, so `quarry://jobs/{id}` works here too.
 */
export class InProcessBackend implements QuarryBackend {
  private readonly jobs = new InProcessJobs();
  private readonly ports: InProcessPorts;
  private readonly operations: WorkspaceOperations;
  /** The file tools' git URLs: this process's cache under QUARRY_DATA_DIR, as the --local commands use. */
  private readonly snapshots: SnapshotProvider;
  private readonly states: IndexStates;
  /** The local checkouts' search indexes (loaded with the first search of a directory; built in the background). */
  private checkouts: Promise<CheckoutIndexes> | undefined;
  private checkoutsLoaded: CheckoutIndexes | undefined;

  constructor(
    private readonly config: QuarryConfig,
    fetcher: Pick<SafeFetcher, 'fetch'>,
    readonly defaultRepository?: string,
    onIndexStateError?: (error: unknown) => void,
    private readonly log?: SearchIndexLog,
  ) {
    this.snapshots = snapshotProviderFor(config, ['/']);
    // One provider for the reads and the jobs: a directory is watched once.
    this.ports = new InProcessPorts(config, { fetcher, snapshots: this.snapshots, checkoutSearch: (root) => this.localSearcher(root) });
    this.operations = new WorkspaceOperations({
      resolveRoot: localRoot,
      snapshots: this.snapshots,
      localSearcherFor: (root) => this.localSearcher(root),
      ...config.files,
      fileCache: new FileCache(),
    });
    this.states = new IndexStates(
      {
        workingTree: async (root) => this.snapshots.workingTree(await localRoot(root)),
        headOf: async (root) => this.snapshots.headOf(await localRoot(root)),
        // The tree's listing is read only when the coverage is counted again (a new state).
        coverage: (target) => this.ports.indexCoverage('tree' in target ? { root: target.root, tree: { state: target.tree.version, files: () => target.tree.files } } : { root: target.git }),
        searchIndex: (root, commit) => searchIndexStateOf(this.checkoutsLoaded?.status(root), commit),
      },
      onIndexStateError,
    );
  }

  /** Starts watching the default repository now, so the first answer does not wait for the walk. */
  warmUp(): void {
    if (this.defaultRepository) void this.states.state({ root: this.defaultRepository }, { read: 'files' });
  }

  /**
   * How search_text reads a directory: through its HEAD's search index with the edits read beside
   * it once the index is open; until then (and while the tree's first walk runs) every file is
   * read, and the first search starts the index's build (QUARRY_SEARCH_INDEX=0: only an index
   * another process saved is used).
   */
  private async localSearcher(root: string) {
    const tree = await this.snapshots.workingTreeIfOpen(root).catch(() => undefined);
    if (!tree) return undefined;
    return (await this.checkoutIndexes()).searcher(tree).search;
  }

  /** Starts building (or opening) a scanned checkout's search index in the background; a directory outside git has none. */
  private async startSearchIndex(input: { root?: string; source?: { path?: string } }): Promise<void> {
    const directory = input.source?.path ?? input.root;
    if (directory === undefined) return;
    try {
      const tree = await this.snapshots.workingTree(await localRoot(directory));
      if (tree.kind === 'git') (await this.checkoutIndexes()).searcher(tree);
    } catch (error) {
      this.log?.warn({ root: directory, err: error }, 'search index: not started after the scan');
    }
  }

  private checkoutIndexes(): Promise<CheckoutIndexes> {
    this.checkouts ??= (async () => {
      // Loaded with the first search of a directory, not at start-up.
      const { CheckoutIndexes, FileSearchIndexStore, SegmentCache, SegmentThread } = await import('@quarry/search-index');
      const store = new FileSearchIndexStore(this.config.dataDir);
      this.checkoutsLoaded = new CheckoutIndexes({
        store,
        cache: new SegmentCache(this.config.dataDir, store),
        environment: this.snapshots.git.environment(),
        build: this.config.searchIndex,
        segments: new SegmentThread().sink,
        onProgress: (root, progress) => this.log?.info({ root, ...progress }, 'search index: building'),
        onBuilt: (root, { manifest, built, reused, elapsedMs }) =>
          this.log?.info({ root, commit: manifest.commit, files: manifest.files, textBytes: manifest.textBytes, indexBytes: manifest.indexBytes, builtBlobs: built.blobs, reusedBlobs: reused, elapsedMs: Math.round(elapsedMs) }, 'search index: built'),
        onError: (root, error) => this.log?.warn({ root, err: error }, 'search index: not available, searches read the files'),
      });
      return this.checkoutsLoaded;
    })();
    return this.checkouts;
  }

  /** Releases the git caches' proxies and processes. */
  async close(): Promise<void> {
    this.checkoutsLoaded?.close();
    await this.ports.close();
    await this.snapshots.close();
  }

  runJob<K extends JobKind>(kind: K, input: Parameters<JobWork<K>>[0], options: RunOptions) {
    const work: JobWork<K> = async (checked, signal, onProgress, id) => {
      const result = await runUseCase(kind, checked, await this.ports.ports(kind), { id, signal, progress: onProgress });
      // An agent on this machine reads the document where it is.
      if (kind === 'pack') {
        const packed = result as Awaited<ReturnType<JobWork<'pack'>>>;
        return { ...packed, artifact: { ...packed.artifact, path: path.join(this.config.artifactDir, packed.artifact.name) } } as typeof result;
      }
      // A scan of a checkout also makes it searchable through its HEAD's index, as a scan of a URL's commit does.
      if (kind === 'scan') void this.startSearchIndex(checked as { root?: string; source?: { path?: string } });
      return result;
    };
    return this.jobs.run(kind, input, options, work);
  }

  runWorkspaceTool<T extends WorkspaceToolName>(name: T, input: WorkspaceToolInput<T>, signal: AbortSignal, options?: WorkspaceReadOptions): Promise<WorkspaceAnswer<T>> {
    return this.operations.run(name, input, signal, options);
  }

  indexState(repository: RepositoryFields, options: IndexStateOptions): Promise<IndexState | undefined> {
    return this.states.state(repository, options);
  }

  async navigate<Q extends NavigationQuery>(input: NavigationInput & { query: Q }, { signal, onProgress }: Omit<RunOptions, 'onJob'>): Promise<NavigationResult<Q>> {
    const reads = await navigationReads();
    return reads.navigate(input, await this.ports.navigation(), { id: 'navigation', signal, progress: onProgress });
  }

  async getJob(id: string) {
    return this.jobs.get(id);
  }

  async listJobs(limit: number) {
    return this.jobs.list(limit);
  }
}
