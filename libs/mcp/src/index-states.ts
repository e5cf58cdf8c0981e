import type { IndexState } from '@quarry/contracts';
import type { WorkingTreeState } from '@quarry/snapshot';
import type { IndexStateOptions, RepositoryFields } from './backend';

/** How much of a repository's code index is built, and whether a build runs now. */
export interface IndexCoverage {
  coverage: number;
  building: boolean;
}

/** A repository whose index coverage is asked: a watched directory, or a commit of a git URL. */
export type CoverageTarget = { root: string; tree: WorkingTreeState } | { git: string; commit: string };

/** Where a backend learns a repository's state: its working trees, and its code index. */
export interface IndexStateSources {
  /** The directory's working tree against its last commit (watched: cheap after the first call). */
  workingTree(root: string): Promise<WorkingTreeState>;
  /** HEAD of a checkout, quickly: named while the working tree is still being opened (a first walk of a large tree). */
  headOf?(root: string): Promise<string | undefined>;
  coverage(target: CoverageTarget): Promise<IndexCoverage>;
  /** A checkout's search index as this process knows it (undefined: no search asked for it yet). */
  searchIndex?(root: string, commit: string): SearchIndexState | undefined;
}

/** `structuredContent.index.searchIndex`. */
export type SearchIndexState = NonNullable<IndexState['searchIndex']>;

/**
 * What every answer that read a repository says of it (`structuredContent.index`): the commit,
 * how many files of the working tree differ from it, how much of the code index covers it, and
 * whether a build runs. Never fails an answer: a state that cannot be told is left out.
 */
export class IndexStates {
  constructor(
    private readonly sources: IndexStateSources,
    private readonly onError: (error: unknown) => void = () => undefined,
    /** An answer waits this long for a working tree opened by its call; then it names HEAD and goes on. */
    private readonly openWaitMs = 1_500,
  ) {}

  async state(repository: RepositoryFields, options: IndexStateOptions): Promise<IndexState | undefined> {
    try {
      if ('root' in repository) {
        const opening = this.sources.workingTree(repository.root);
        opening.catch(() => undefined);
        const tree = await Promise.race([opening, delay(this.openWaitMs)]);
        if (!tree) {
          // The first walk of a large tree (or a repository named by mistake, such as /) goes on
          // in the background; this answer names the commit and says the state is being built.
          const head = await this.sources.headOf?.(repository.root);
          return { commit: head ?? 'unknown', dirty: 0, coverage: 0, building: true, read: options.read };
        }
        const { coverage, building } = await this.sources.coverage({ root: tree.root, tree });
        const searchIndex = this.sources.searchIndex?.(tree.root, tree.commit);
        return {
          commit: tree.commit,
          dirty: tree.changes.length,
          coverage: round(coverage),
          building: building || searchIndex?.state === 'building',
          read: options.read,
          ...(searchIndex ? { searchIndex } : {}),
        };
      }
      if (options.commit === undefined) return undefined;
      const { coverage, building } = await this.sources.coverage({ git: repository.source.git, commit: options.commit });
      return { commit: options.commit, dirty: 0, coverage: round(coverage), building, read: options.read };
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

/** Three decimals: enough to see progress, short in an answer. */
function round(coverage: number): number {
  return Math.min(1, Math.max(0, Math.round(coverage * 1000) / 1000));
}

/**
 * A checkout index's status (@quarry/search-index's CheckoutIndexStatus, by shape: this library
 * does not load that one) as an answer states it, when it describes `commit`.
 */
export function searchIndexStateOf(
  status: { commit: string; state: 'ready' | 'building' | 'absent' | 'unsupported' | 'failed'; progress?: { blobs: number; blobsDone: number } } | undefined,
  commit: string,
): SearchIndexState | undefined {
  if (!status || status.commit !== commit) return undefined;
  if (status.state === 'ready') return { state: 'ready' };
  if (status.state !== 'building') return { state: 'none' };
  const progress = status.progress && status.progress.blobs > 0 ? Math.round((status.progress.blobsDone / status.progress.blobs) * 1000) / 1000 : undefined;
  return { state: 'building', ...(progress !== undefined ? { progress: Math.min(1, progress) } : {}) };
}
