import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import IORedis from 'ioredis';
import type { JobKind } from '@quarry/contracts';
import { ScanMemory, StateMemory } from '@quarry/blob-scan';
import { CodeIndexCache, CodeIndexScanStep, type BlobIndexStore } from '@quarry/code-index';
import { QUARRY_CONFIG, QuarryConfig, packageVersion } from '@quarry/config';
import { BlobCodeIndexRepository, BlobFactRepository, ChunkEmbeddingRepository, FetchedDocumentRepository, LlmAnswerRepository, ScanStateRepository, SearchIndexRepository } from '@quarry/db';
import { RedisDomainLimiter, SafeFetcher } from '@quarry/fetch';
import { CodeIndexReader, NavigationIndexes, StackDetector, artifactDirectory, retrievalLayers, threadShards, type ArtifactPort, type FilePorts, type JobPorts, type JobRun, type RetrievalLayers, type ScanPorts } from '@quarry/jobs';
import { ContextCorpusCache } from '@quarry/context';
import { LlmClient } from '@quarry/llm';
import { redisOptions } from '@quarry/queue';
import { IndexedCommits, ScanIndexing } from '@quarry/search-index';
import { FileCache } from '@quarry/workspace';
import { ChildJobs } from './child-jobs';
import type { JobContext } from './job-handler';
import { JobSnapshots } from './job-snapshots';
import { ScanShards } from './scan-shards';

/**
 * The worker's ports of every job kind, from Postgres and Redis: per-blob facts and code-index
 * rows, remembered scans and LLM answers shared by every worker; a commit's shards as child jobs
 * any worker may take; URLs as child fetch jobs (they obey the fetch queue's per-domain limits).
 * One per worker process; the caches and memories in it serve every job the process runs.
 */
@Injectable()
export class WorkerPorts implements OnApplicationShutdown {
  private readonly stack: StackDetector;
  private readonly scan: Omit<ScanPorts, 'repositories' | 'stack'>;
  private readonly codeIndex: CodeIndexReader;
  private readonly files: FilePorts;
  private readonly llm: LlmClient | undefined;
  private readonly redis: IORedis;
  private readonly fetcher: SafeFetcher;
  /** QUARRY_ARTIFACT_DIR, which the gateway serves: workers and gateway must share it. */
  private readonly artifacts: ArtifactPort;
  /**
   * The retrieval corpora of recent trees, assembled from the chunk rows of the code index (the
   * scan's per-blob rows). Public for its `chunkedFromText` count: files chunked from their text
   * because their row had no chunk section, 0 on trees a scan indexed.
   */
  readonly corpora = new ContextCorpusCache();
  /** The navigation graphs of recent commits, which retrieval's propagation walks. */
  private readonly navigation = new NavigationIndexes();
  /** Embeddings (vectors in Postgres, shared by every worker) and rerank, when configured. */
  private readonly layers: RetrievalLayers;

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly snapshots: JobSnapshots,
    private readonly shards: ScanShards,
    private readonly children: ChildJobs,
    private readonly indexedCommits: IndexedCommits,
    codeIndexCache: CodeIndexCache,
    fileCache: FileCache,
    facts: BlobFactRepository,
    codeIndexStep: CodeIndexScanStep,
    @Inject(BlobCodeIndexRepository) codeIndexStore: BlobIndexStore,
    searchIndexStore: SearchIndexRepository,
    states: ScanStateRepository,
    answers: LlmAnswerRepository,
    documents: FetchedDocumentRepository,
    embeddings: ChunkEmbeddingRepository,
  ) {
    // A state made by another version of Quarry (other languages, other sums) is never read.
    const version = packageVersion();
    this.llm = config.llm && new LlmClient(config.llm);
    this.stack = new StackDetector(config.detectionMode, this.llm, answers, new StateMemory(states, { version }));
    const indexing = new ScanIndexing(searchIndexStore, new StateMemory(states, { version }));
    this.scan = {
      facts,
      codeIndex: codeIndexStep,
      memory: new ScanMemory(states, { version }),
      shards: {
        workerId: shards.id,
        limits: config.shardLimits,
        // A commit's shards go to any worker (each reads from its own cache); a directory's run
        // here, on shard threads: no other worker can read its disk.
        executor: (snapshot, run, derive) =>
          snapshot.kind === 'git' && 'git' in snapshot.source
            ? shards.executorFor(run.id, snapshot.source, derive !== undefined)
            : threadShards(snapshot, { facts, provider: shards.threadProvider, workerId: shards.id, derive }),
      },
      searchIndex: config.searchIndex ? { shardIndexer: shards.indexer, forCommit: (repository) => indexing.forCommit(repository) } : undefined,
    };
    this.codeIndex = new CodeIndexReader(codeIndexCache, codeIndexStore);
    this.files = { ...config.files, fileCache };
    this.artifacts = artifactDirectory(config.artifactDir, config.artifactTtlMs);
    this.layers = retrievalLayers(config, () => embeddings, this.llm);
    // One fetcher per worker keeps its connection pool; the cache is Postgres and the per-domain
    // limits live in Redis, so every worker on every machine shares them.
    this.redis = new IORedis(redisOptions(config.redisUrl));
    this.fetcher = new SafeFetcher({
      allow: config.fetch.allow,
      maxBytes: config.fetch.maxBytes,
      timeoutMs: config.fetch.timeoutMs,
      cacheTtlMs: config.fetch.cacheTtlMs,
      cache: documents,
      limiter: new RedisDomainLimiter(this.redis, config.queuePrefix, { ratePerSecond: config.fetch.ratePerSecond, concurrency: config.fetch.domainConcurrency }),
    });
  }

  /** The ports of one job of `kind`. */
  for<K extends JobKind>(kind: K, context: JobContext): JobPorts[K] {
    const repositories = this.snapshots.sessions;
    const fetchUrl = (url: string) => this.children.fetch(context, url);
    const ports: { [C in JobKind]: () => JobPorts[C] } = {
      scan: () => ({ repositories, stack: this.stack, ...this.scan }),
      detect: () => ({ repositories, stack: this.stack }),
      fetch: () => ({ fetcher: this.fetcher }),
      mentions: () => ({ repositories, files: this.files, codeIndex: this.codeIndex, fetchUrl, indexedCommits: this.indexedCommits, corpora: this.corpora, navigation: this.navigation, layers: this.layers }),
      interpret: () => ({
        repositories,
        files: this.files,
        stack: this.stack,
        fetchUrl,
        llm: this.llm,
        indexedCommits: this.indexedCommits,
        codeIndex: this.codeIndex,
        corpora: this.corpora,
        navigation: this.navigation,
        layers: this.layers,
      }),
      symbols: () => ({ repositories, codeIndex: this.codeIndex }),
      map: () => ({ repositories, codeIndex: this.codeIndex }),
      pack: () => ({ repositories, codeIndex: this.codeIndex, artifacts: this.artifacts }),
      context: () => ({ repositories, codeIndex: this.codeIndex, corpora: this.corpora, navigation: this.navigation, layers: this.layers }),
    };
    return ports[kind]();
  }

  /** After the worker drained its jobs (beforeApplicationShutdown), not before. */
  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** A job's run as the use cases see it: the job row keeps the commit it reads. */
export function runOf(context: JobContext): JobRun {
  return {
    id: context.jobId,
    signal: context.signal,
    progress: (progress) => context.progress(progress),
    pins: {
      pinned: context.pinnedSource,
      pin: context.pinSource && ((source) => context.pinSource!(source)),
      record: context.recordSource && ((source) => context.recordSource!(source)),
    },
  };
}
