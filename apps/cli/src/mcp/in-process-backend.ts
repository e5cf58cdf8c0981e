import type { QuarryConfig } from '@quarry/config/settings';
import type { JobKind, WorkspaceToolInput, WorkspaceToolName, WorkspaceToolResult } from '@quarry/contracts';
import { detectStack, scanWithStack, type DetectionMode } from '@quarry/detect';
import type { SafeFetcher } from '@quarry/fetch';
import { interpretQuery, workspaceTools } from '@quarry/interpret';
import { LlmClient } from '@quarry/llm';
import { InProcessJobs, WorkspaceOperations, type JobWork, type QuarryBackend, type RunOptions } from '@quarry/mcp';
import { expandMentions } from '@quarry/mentions';
import { FileCache } from '@quarry/workspace';
import path from 'node:path';
import { CodeIndexCache, MemoryBlobIndexStore, findSymbols, mapTree, packArtifactName, packSnapshot, packToFile, packToFileWith, sharedBlobIndexer, type IndexedTree } from '@quarry/code-index';
import { repoReaderOf, snapshotProviderFor, type SnapshotProvider } from '@quarry/snapshot';
import { localRoot, withLocalSnapshot } from '../commands/local';

/**
 * `quarry mcp` without a server: every tool runs in this process, like the CLI's `--local`
 * commands — no Redis or Postgres. Repositories are any directory the user can read (they are
 * the user's own files); URLs go through the same SSRF guards as the fetch job. Jobs live in
 * memory for the session, so `quarry://jobs/{id}` works here too.
 */
export class InProcessBackend implements QuarryBackend {
  private readonly jobs = new InProcessJobs();
  private readonly files = new FileCache();
  private readonly codeIndex = new CodeIndexCache();
  /** Per-blob code indexes of git URLs' commits, for the session (no Postgres here). */
  private readonly blobIndexes = new MemoryBlobIndexStore();
  private readonly operations: WorkspaceOperations;
  /** The file tools' git URLs: this process's cache under QUARRY_DATA_DIR, as the --local commands use. */
  private readonly snapshots: SnapshotProvider;
  private readonly llm: LlmClient | undefined;

  constructor(
    private readonly config: QuarryConfig,
    private readonly fetcher: SafeFetcher,
    readonly defaultRepository?: string,
  ) {
    this.llm = config.llm && new LlmClient(config.llm);
    this.snapshots = snapshotProviderFor(config, ['/']);
    this.operations = new WorkspaceOperations({ resolveRoot: localRoot, snapshots: this.snapshots, ...config.files, fileCache: this.files });
  }

  /** Releases the git cache's proxy and processes. */
  close(): Promise<void> {
    return this.snapshots.close();
  }

  runJob<K extends JobKind>(kind: K, input: Parameters<JobWork<K>>[0], options: RunOptions) {
    return this.jobs.run(kind, input, options, this.work[kind] as JobWork<K>);
  }

  runWorkspaceTool<T extends WorkspaceToolName>(name: T, input: WorkspaceToolInput<T>, signal: AbortSignal): Promise<WorkspaceToolResult<T>> {
    return this.operations.run(name, input, signal);
  }

  /** The indexed tree of a code-index job's repository: a git URL's commit (rows in memory), or a local directory. */
  private async onTree<R extends object>(
    input: { root?: string; source?: { git: string; ref?: string } | { path: string } },
    signal: AbortSignal,
    onProgress: Parameters<JobWork<'symbols'>>[2],
    work: (tree: IndexedTree) => R,
  ): Promise<R> {
    const target = repository(input);
    if ('source' in target) {
      const done = await withLocalSnapshot(this.config, target, async (snapshot) => work(await this.codeIndex.snapshotTree(snapshot, this.blobIndexes, { signal, onProgress })));
      return { ...done.result, source: done.source };
    }
    return work(await this.codeIndex.tree(await localRoot(target.root), { signal, onProgress }));
  }

  async getJob(id: string) {
    return this.jobs.get(id);
  }

  async listJobs(limit: number) {
    return this.jobs.list(limit);
  }

  private detect(root: string | ReturnType<typeof repoReaderOf>, mode: DetectionMode | undefined, signal: AbortSignal) {
    const chosen = mode ?? this.config.detectionMode;
    return detectStack(root, { mode: chosen, llm: chosen === 'static' ? undefined : this.llm, signal });
  }

  /** Each kind's work, as its worker processor does it. */
  private readonly work: { [K in JobKind]: JobWork<K> } = {
    scan: async (input, signal, onProgress) => {
      const { result, source } = await withLocalSnapshot(this.config, repository(input), (snapshot) =>
        scanWithStack(snapshot, { detect: (detectSignal) => this.detect(repoReaderOf(snapshot), undefined, detectSignal), signal, onProgress }),
      );
      return { ...result, source };
    },
    detect: async (input, signal, onProgress) => {
      const { result } = await withLocalSnapshot(this.config, repository(input), async (snapshot) => {
        onProgress({ stage: 'detecting', done: 0, total: 1, message: input.mode ?? this.config.detectionMode });
        const services = await this.detect(repoReaderOf(snapshot), input.mode, signal);
        onProgress({ stage: 'detected', done: 1, total: 1, message: `${services.length} service${services.length === 1 ? '' : 's'}` });
        return services;
      });
      return result;
    },
    mentions: async (input, signal, onProgress) =>
      (
        await withLocalSnapshot(this.config, repository(input), async (snapshot) =>
          expandMentions(
            { prompt: input.prompt, maxBytes: input.budget?.maxBytes },
            {
              root: await snapshot.workingTree(signal),
              ...this.config.files,
              fileCache: this.files,
              codeIndex: this.codeIndex,
              fetchUrl: (url, fetchSignal) => this.fetcher.fetch(url, { signal: fetchSignal ?? signal }),
              signal,
              onProgress,
            },
          ),
        )
      ).result,
    fetch: async (input, signal, onProgress) => {
      onProgress({ stage: 'fetching', done: 0, total: 1, message: input.url });
      const result = await this.fetcher.fetch(input.url, { force: input.force, signal });
      onProgress({ stage: 'fetched', done: 1, total: 1, message: result.fromCache ? 'from cache' : `${result.bytes} bytes` });
      return result;
    },
    interpret: async (input, signal, onProgress) => (await withLocalSnapshot(this.config, repository(input), async (snapshot) => {
      const root = await snapshot.workingTree(signal);
      const host = workspaceTools({
        root,
        ...this.config.files,
        fileCache: this.files,
        detectStack: (directory, stepSignal) => this.detect(directory, undefined, stepSignal ?? signal),
        fetchUrl: (url, stepSignal) => this.fetcher.fetch(url, { signal: stepSignal ?? signal }),
      });
      return interpretQuery({ query: input.query, context: input.context, root, llm: input.ai === 'off' ? undefined : this.llm, ai: input.ai, execute: input.execute, host, signal, onProgress });
    })).result,
    symbols: async (input, signal, onProgress) => this.onTree(input, signal, onProgress, (tree) => findSymbols(tree, input)),
    map: async (input, signal, onProgress) => this.onTree(input, signal, onProgress, (tree) => mapTree(tree, input)),
    pack: async (input, signal, onProgress) => {
      const id = `pack-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      const file = path.join(this.config.artifactDir, packArtifactName(id, input.style));
      const target = repository(input);
      let result: Awaited<ReturnType<typeof packToFile>>;
      if ('source' in target) {
        const indexer = () => sharedBlobIndexer(input.encoding);
        const packed = await withLocalSnapshot(this.config, target, (snapshot) =>
          packToFileWith(file, (sink) => packSnapshot(snapshot, input, sink, { store: this.blobIndexes, indexer, signal, onProgress, title: path.basename(snapshot.root).replace(/\.git$/, '') })),
        );
        result = { ...packed.result, source: packed.source };
      } else {
        const root = await localRoot(target.root);
        result = await packToFile(root, input, file, { cache: this.codeIndex, signal, onProgress, title: path.basename(root) });
      }
      return { ...result, artifact: { ...result.artifact, path: file } };
    },
  };
}

/** A job input's repository as the CLI names it: the git source, or the root resolved against the current directory. */
function repository(input: { root?: string; source?: { git: string; ref?: string } | { path: string } }): { source: { git: string; ref?: string } } | { root: string } {
  if (input.source && 'git' in input.source) return { source: input.source };
  return { root: path.resolve(input.root ?? (input.source as { path: string }).path) };
}
