import type { JobResult } from '@quarry/contracts';
import type { BlobDerivation, BlobFactStore, ScanMemory, ShardExecutor, ShardIndexer, ShardLimits, CommitIndexStep } from '@quarry/blob-scan';
import type { DetectionMode, DetectionStates, RepoReader } from '@quarry/detect';
import type { LlmClient } from '@quarry/llm';
import type { Snapshot } from '@quarry/snapshot';
import type { FileCache } from '@quarry/workspace';
import type { ContextCorpusCache } from '@quarry/context';
import type { CodeIndexReader } from './code-index-reader';
import type { NavigationIndexes } from './navigation-indexes';
import type { RetrievalLayers } from './retrieval-layers';
import type { JobRun } from './job-run';
import type { RepositorySessions } from './repository-sessions';

/*
 * The ports of each job kind: what its use case needs from the process that runs it. The worker
 * builds them from Postgres and Redis (apps/worker/src/worker-ports.ts); the CLI and `quarry mcp`
 * in-process from memory (./local/in-process-ports.ts). A use case never knows which.
 */

/** Stack detection as this process runs it: the configured LLM behind the fallbacks, its answers cached where the process keeps them. */
export interface StackDetection {
  /** `root`: an absolute directory already inside the allowed roots, or a snapshot's reader. */
  detect(root: string | RepoReader, mode: DetectionMode | undefined, signal: AbortSignal): Promise<JobResult<'detect'>>;
  /** The mode used when a request names none (what a remembered detection's answer also depends on). */
  readonly mode: DetectionMode;
  /** Detections remembered per commit: a re-scan whose changes touch nothing a detection read keeps its stack. */
  readonly memory?: DetectionStates;
}

/** A URL as text, through the fetch job's guards: a child fetch job in the worker, the process's own fetcher in-process. */
export type UrlFetcher = (url: string, signal?: AbortSignal) => Promise<JobResult<'fetch'>>;

/** How workspace files and searches are read (QuarryConfig.files), and the process's cache of whole files. */
export interface FilePorts {
  allowSecrets: boolean;
  maxFileBytes: number;
  searchTimeoutMs: number;
  maxUrls: number;
  fileCache: FileCache;
}

/** Where a scan's shards run. */
export interface ShardPlacement {
  /**
   * The shards of this scan: child jobs any worker may take (a commit of a git URL), or this
   * process's threads (a directory, which no other worker can read; `--local`).
   */
  executor(snapshot: Snapshot, run: JobRun, codeIndex: BlobDerivation | undefined): ShardExecutor;
  /** This process's name in a scan's `workerIds`. */
  readonly workerId: string;
  readonly limits?: ShardLimits;
}

/** The search index (trigram segments per blob, a manifest per commit) kept beside the scans of git commits. */
export interface SearchIndexPorts {
  /** What each shard builds: the segment of its new blobs. */
  readonly shardIndexer: ShardIndexer;
  /** The step after a scan of `repository`'s commit: the segments the shards did not build, then the manifest. */
  forCommit(repository: string): CommitIndexStep;
}

export interface ScanPorts {
  repositories: RepositorySessions;
  /** Per-blob facts (lines, bytes, binary), shared by every scan of any commit. */
  facts: BlobFactStore;
  shards: ShardPlacement;
  /** The code index as a scan step (tokens, symbols per blob); absent: scans count lines and bytes only. */
  codeIndex?: BlobDerivation;
  /** Earlier scans, remembered for the next commit's (a re-scan works on what changed). */
  memory?: ScanMemory;
  stack: StackDetection;
  /** Absent: no search index (`QUARRY_SEARCH_INDEX=0`, or in-process). */
  searchIndex?: SearchIndexPorts;
}

export interface DetectPorts {
  repositories: RepositorySessions;
  stack: StackDetection;
}

export interface MentionsPorts {
  repositories: RepositorySessions;
  files: FilePorts;
  codeIndex: CodeIndexReader;
  fetchUrl: UrlFetcher;
  /** The commits a scan indexed; absent: searches read every file. */
  indexedCommits?: import('@quarry/search-index').IndexedCommits;
  /** How a local checkout is searched (its HEAD's index with the edits beside it, where this process keeps one); absent or undefined: every file is read. */
  checkoutSearch?: CheckoutSearch;
  /** Retrieval's corpora (the context job's): @codebase and @context: rank on them; absent: the mentions library's own cache. */
  corpora?: ContextCorpusCache;
  /** The navigation graphs of recent commits (shared with navigation reads), for @refs:; absent: built per prompt. */
  navigation?: NavigationIndexes;
  layers?: RetrievalLayers;
}

export interface InterpretPorts {
  repositories: RepositorySessions;
  files: FilePorts;
  stack: StackDetection;
  fetchUrl: UrlFetcher;
  llm?: LlmClient;
  indexedCommits?: import('@quarry/search-index').IndexedCommits;
  checkoutSearch?: CheckoutSearch;
  /** Retrieval (the context job's) for find_relevant_code; absent: that tool fails as unavailable. */
  codeIndex?: CodeIndexReader;
  corpora?: ContextCorpusCache;
  /** The navigation graphs of recent commits (shared with navigation reads), for @refs:; absent: built per prompt. */
  navigation?: NavigationIndexes;
  layers?: RetrievalLayers;
}

export interface FetchPorts {
  fetcher: { fetch(url: string, options: { force?: boolean; signal?: AbortSignal }): Promise<JobResult<'fetch'>> };
}

export interface CodeIndexPorts {
  repositories: RepositorySessions;
  codeIndex: CodeIndexReader;
}

export interface PackPorts extends CodeIndexPorts {
  artifacts: ArtifactPort;
}

/** Where pack documents go. */
export interface ArtifactPort {
  /** The file the pack of this run is written to (a temporary name beside it until complete). */
  fileFor(run: JobRun, style: string): string;
  /** Removes documents past their time (a worker's artifact directory, as a pack starts); absent: nothing is removed. */
  prune?(): Promise<void>;
}

/** What retrieval reads besides the code index: the commit's corpus (chunk rows per blob, kept beside the code index's). */
export interface ContextPorts extends CodeIndexPorts {
  corpora: ContextCorpusCache;
  /** The navigation graphs of recent commits (shared with navigation reads): retrieval's propagation walks the resolved graph. */
  navigation?: NavigationIndexes;
  /** Embeddings and rerank, when configured (QUARRY_EMBEDDINGS_*, QUARRY_CONTEXT_RERANK_TOP). */
  layers?: RetrievalLayers;
}

/** What navigation reads: the code index, and the process's navigation indexes of recent commits. */
export interface NavigationPorts extends CodeIndexPorts {
  navigation: NavigationIndexes;
}

/** The ports of every kind, by kind. */
export interface JobPorts {
  scan: ScanPorts;
  detect: DetectPorts;
  mentions: MentionsPorts;
  fetch: FetchPorts;
  interpret: InterpretPorts;
  symbols: CodeIndexPorts;
  map: CodeIndexPorts;
  pack: PackPorts;
  context: ContextPorts;
}

/** A directory's searcher, by its real path: undefined when every file must be read. */
export type CheckoutSearch = (root: string) => Promise<import('@quarry/search').SearchFunction | undefined>;
