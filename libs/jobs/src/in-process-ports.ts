import type { QuarryConfig } from '@quarry/config/settings';
import type { JobKind } from '@quarry/contracts';
import type { ContextCorpusCache } from '@quarry/context';
import type { SafeFetcher } from '@quarry/fetch';
import type { SnapshotProvider } from '@quarry/snapshot';
import type { CodeIndexReader } from './code-index-reader';
import type { NavigationIndexes } from './navigation-indexes';
import type { ArtifactPort, CheckoutSearch, FilePorts, JobPorts, NavigationPorts, StackDetection, UrlFetcher } from './ports';
import type { RepositorySessions } from './repository-sessions';
import type { RetrievalLayers } from './retrieval-layers';

/**
 * The ports of every job kind for a process that runs jobs itself, with no Redis or Postgres: the
 * CLI's in-process commands and `quarry mcp` in-process. What the worker keeps in Postgres
 * (per-blob facts and code-index rows, remembered scans, LLM answers) is kept in memory for the
 * session; repositories are any directory the user can read (they are the user's own files) and
 * git URLs fetched into this process's cache under QUARRY_DATA_DIR; URLs go through the same SSRF
 * guards as the fetch job. Each kind's ports — and the libraries behind them — load on first use,
 * so a command loads only what its kind needs.
 */
export class InProcessPorts {
  private repositoriesMade?: Promise<RepositorySessions>;
  private fetcherMade?: Promise<SafeFetcher>;
  private codeIndexMade?: Promise<CodeIndexReader>;
  private corporaMade?: Promise<ContextCorpusCache>;
  private navigationMade?: Promise<NavigationIndexes>;
  private layersMade?: Promise<RetrievalLayers>;
  private stackMade?: Promise<StackDetection>;
  private scanMade?: Promise<Omit<JobPorts['scan'], 'repositories' | 'stack'>>;
  private fileCache?: FilePorts['fileCache'];
  /** Whether a kind that searches ran (mentions, interpret): their search threads are released on close. */
  private searched = false;

  constructor(
    private readonly config: QuarryConfig,
    private readonly options: {
      /** A fetcher to use instead of one made from QUARRY_FETCH_* (the caller closes it). */
      fetcher?: Pick<SafeFetcher, 'fetch'>;
      /** Where packs go (default: QUARRY_ARTIFACT_DIR, by job id, as a worker writes them). */
      artifacts?: ArtifactPort;
      /**
       * The repositories, shared with the caller's own reads (`quarry mcp`'s file tools), so a
       * directory is watched once (default: a provider of its own, any directory allowed).
       */
      snapshots?: SnapshotProvider;
      /** How @search/@grep and the interpret job's searches read a local checkout (quarry mcp: its HEAD's index with the edits beside it). */
      checkoutSearch?: CheckoutSearch;
      /**
       * Whether scans store retrieval's chunk rows with the code index (default true). A one-shot
       * `quarry scan --local` says false: its rows end with the process, unread.
       */
      chunkRowsInScans?: boolean;
    } = {},
  ) {}

  async ports<K extends JobKind>(kind: K): Promise<JobPorts[K]> {
    return (await this.build(kind)) as JobPorts[K];
  }

  private async build(kind: JobKind): Promise<JobPorts[JobKind]> {
    switch (kind) {
      case 'scan':
        return { repositories: await this.repositories(), stack: await this.stack(), ...(await this.scan()) };
      case 'detect':
        return { repositories: await this.repositories(), stack: await this.stack() };
      case 'fetch':
        return { fetcher: { fetch: async (url, options) => (await this.fetcher()).fetch(url, options) } };
      case 'mentions':
        this.searched = true;
        return {
          repositories: await this.repositories(),
          files: await this.files(),
          codeIndex: await this.codeIndex(),
          fetchUrl: this.fetchUrl,
          corpora: await this.corpora(),
          navigation: await this.navigationIndexes(),
          layers: await this.layers(),
          checkoutSearch: this.options.checkoutSearch,
        };
      case 'interpret':
        this.searched = true;
        return {
          repositories: await this.repositories(),
          files: await this.files(),
          stack: await this.stack(),
          fetchUrl: this.fetchUrl,
          llm: await this.llm(),
          codeIndex: await this.codeIndex(),
          corpora: await this.corpora(),
          navigation: await this.navigationIndexes(),
          layers: await this.layers(),
          checkoutSearch: this.options.checkoutSearch,
        };
      case 'symbols':
      case 'map':
        return { repositories: await this.repositories(), codeIndex: await this.codeIndex() };
      case 'pack':
        return { repositories: await this.repositories(), codeIndex: await this.codeIndex(), artifacts: this.options.artifacts ?? (await import('./artifact-directory')).artifactDirectory(this.config.artifactDir, this.config.artifactTtlMs) };
      case 'context':
        return { repositories: await this.repositories(), codeIndex: await this.codeIndex(), corpora: await this.corpora(), navigation: await this.navigationIndexes(), layers: await this.layers() };
    }
  }

  /** The ports of navigation reads (not a job kind: they answer in the call). */
  async navigation(): Promise<NavigationPorts> {
    const [repositories, codeIndex] = await Promise.all([this.repositories(), this.codeIndex()]);
    return { repositories, codeIndex, navigation: await this.navigationIndexes() };
  }

  private navigationIndexes(): Promise<NavigationIndexes> {
    return (this.navigationMade ??= import('./navigation-indexes').then(({ NavigationIndexes }) => new NavigationIndexes()));
  }

  private readonly fetchUrl: UrlFetcher = async (url, signal) => (await this.fetcher()).fetch(url, { signal });

  private repositories(): Promise<RepositorySessions> {
    return (this.repositoriesMade ??= (async () => {
      const [{ snapshotProviderFor }, { RepositorySessions }] = await Promise.all([import('@quarry/snapshot'), import('./repository-sessions')]);
      // Any directory the user can read: they are the user's own files.
      return new RepositorySessions(this.options.snapshots ?? snapshotProviderFor(this.config, ['/']));
    })());
  }

  private fetcher(): Promise<Pick<SafeFetcher, 'fetch'>> {
    if (this.options.fetcher) return Promise.resolve(this.options.fetcher);
    return (this.fetcherMade ??= (async () => {
      const { SafeFetcher } = await import('@quarry/fetch');
      const { allow, maxBytes, timeoutMs } = this.config.fetch;
      return new SafeFetcher({ allow, maxBytes, timeoutMs });
    })());
  }

  private async files(): Promise<FilePorts> {
    const { FileCache } = await import('@quarry/workspace');
    return { ...this.config.files, fileCache: (this.fileCache ??= new FileCache()) };
  }

  private async llm() {
    return this.config.llm && new (await import('@quarry/llm')).LlmClient(this.config.llm);
  }

  private stack(): Promise<StackDetection> {
    return (this.stackMade ??= (async () => {
      const [{ StackDetector }, { StateMemory }, llm] = await Promise.all([import('./stack-detector'), import('@quarry/blob-scan'), this.llm()]);
      return new StackDetector(this.config.detectionMode, llm, undefined, new StateMemory());
    })());
  }

  private codeIndex(): Promise<CodeIndexReader> {
    return (this.codeIndexMade ??= (async () => {
      const [{ CodeIndexCache, MemoryBlobIndexStore }, { CodeIndexReader }, repositories] = await Promise.all([import('@quarry/code-index'), import('./code-index-reader'), this.repositories()]);
      // A directory is listed from its watched working tree: an edit re-indexes the edited file alone.
      return new CodeIndexReader(new CodeIndexCache(), new MemoryBlobIndexStore(), { directoriesByStat: true, workingTree: (root) => repositories.provider.workingTree(root) });
    })());
  }

  /** Retrieval's optional layers, as configured; vectors kept in memory for the session. */
  private layers(): Promise<RetrievalLayers> {
    return (this.layersMade ??= (async () => {
      const [{ retrievalLayers }, llm] = await Promise.all([import('./retrieval-layers'), this.llm()]);
      const { MemoryChunkEmbeddingStore } = await import('@quarry/context');
      return retrievalLayers(this.config, () => new MemoryChunkEmbeddingStore(), llm);
    })());
  }

  private corpora(): Promise<ContextCorpusCache> {
    return (this.corporaMade ??= import('@quarry/context').then(({ ContextCorpusCache }) => new ContextCorpusCache()));
  }

  private scan(): Promise<Omit<JobPorts['scan'], 'repositories' | 'stack'>> {
    return (this.scanMade ??= (async () => {
      const [{ MemoryBlobFacts, ScanMemory, workerId }, { CodeIndexScanStep }, { threadShards }] = await Promise.all([import('@quarry/blob-scan'), import('@quarry/code-index'), import('./thread-shards')]);
      const reader = await this.codeIndex();
      const facts = new MemoryBlobFacts();
      const id = workerId();
      const provider = { workspaceRoots: ['/'], git: { dataDir: this.config.dataDir, allow: this.config.fetch.allow, ...this.config.git } };
      return {
        facts,
        codeIndex: new CodeIndexScanStep(reader.store, undefined, { chunks: this.options.chunkRowsInScans !== false }),
        memory: new ScanMemory(),
        // No other worker here: a commit's shards run on this process's threads, as a directory's do.
        shards: { workerId: id, limits: this.config.shardLimits, executor: (snapshot, _run, derive) => threadShards(snapshot, { facts, provider, workerId: id, derive }) },
      };
    })());
  }

  /**
   * How much of a repository's code index this process holds (`quarry mcp`'s answers report it):
   * the share of a watched directory's files indexed in their current version, or 1 for a commit
   * once indexed; nothing when no code index was asked for yet.
   */
  async indexCoverage(target: { root: string; tree?: { state: string; files: () => ReadonlyMap<string, string> } }): Promise<{ coverage: number; building: boolean }> {
    if (!this.codeIndexMade) return { coverage: 0, building: false };
    const { cache } = await this.codeIndexMade;
    return cache.coverage(target.root, target.tree);
  }

  /** Releases the git cache's proxy and processes, the fetcher's sockets and the search threads. */
  async close(): Promise<void> {
    // A provider the caller shared is the caller's to close.
    if (this.repositoriesMade && !this.options.snapshots) await (await this.repositoriesMade).close();
    if (this.fetcherMade) await (await this.fetcherMade).close();
    if (this.searched) await (await import('@quarry/search')).closeSharedSearchPool();
  }
}
