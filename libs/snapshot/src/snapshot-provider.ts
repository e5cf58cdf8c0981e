import { QuarryError } from '@quarry/contracts/errors';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { GitRepositoryCache, type GitCacheOptions, type ResolvedGitSource } from './git-repository-cache';
import { GitSnapshot } from './git-snapshot';
import { runGit } from './git-process';
import { LocalSnapshot, isCheckoutTop } from './local-snapshot';
import type { ResolvedSource, Snapshot } from './snapshot';
import { WorkingTrees, type WorkingTreeState } from './working-tree';

/** What a job names: a git URL (and ref), or a directory on the worker. */
export type SourceInput = { git: string; ref?: string } | { path: string };

export interface SnapshotProviderOptions {
  /** QUARRY_WORKSPACE_ROOTS: where local paths may point. */
  workspaceRoots: readonly string[];
  git: GitCacheOptions;
}

/**
 * A worker's (or an in-process CLI's) access to repositories: resolve a source once when the job
 * starts (the ref → a commit; a directory → HEAD or a content hash), then open that exact
 * snapshot. One per process: it owns the git cache and its proxy.
 */
export class SnapshotProvider {
  readonly git: GitRepositoryCache;
  private trees: WorkingTrees | undefined;

  constructor(private readonly options: SnapshotProviderOptions) {
    this.git = new GitRepositoryCache(options.git);
  }

  /** Pins the source: the commit a git ref names now, or the identity of a directory. */
  async resolve(input: SourceInput, signal?: AbortSignal): Promise<ResolvedSource> {
    if ('git' in input) return this.git.resolve(input.git, input.ref, signal);
    const snapshot = await this.openLocal(input.path);
    return snapshot.identify(signal);
  }

  /**
   * The snapshot of a resolved git source, or of a directory (whose identity is computed beside
   * the work: call `identify()` on it, or pass `resolved` when the job row already has it).
   */
  async open(input: SourceInput | ResolvedSource, signal?: AbortSignal): Promise<Snapshot> {
    if ('git' in input) {
      const resolved = 'commit' in input ? (input as ResolvedGitSource) : await this.git.resolve(input.git, input.ref, signal);
      const repository = await this.git.repository(resolved.git);
      await repository.ensureCommit(resolved.commit, signal, resolved.ref);
      const tree = await repository.tree(resolved.commit, signal);
      return new GitSnapshot(resolved, repository, tree);
    }
    return this.openLocal(input.path);
  }

  async openLocal(root: string): Promise<LocalSnapshot> {
    const real = await resolveWorkspaceRoot(root, this.options.workspaceRoots);
    return new LocalSnapshot(real, this.git.environment());
  }

  /**
   * A directory's working tree against its last commit, watched from the first call on (so the
   * next calls cost a turn of the event loop, not a walk): what the answers that read it say of
   * their index state, and the overlay of the edits not yet committed.
   */
  async workingTree(root: string): Promise<WorkingTreeState> {
    const real = await resolveWorkspaceRoot(root, this.options.workspaceRoots);
    this.trees ??= new WorkingTrees({ environment: this.git.environment() });
    return this.trees.state(real);
  }

  /** `workingTree` when the directory is watched already; else undefined, and its first walk started. */
  async workingTreeIfOpen(root: string): Promise<WorkingTreeState | undefined> {
    const real = await resolveWorkspaceRoot(root, this.options.workspaceRoots);
    this.trees ??= new WorkingTrees({ environment: this.git.environment() });
    return this.trees.stateIfOpen(real);
  }

  /** HEAD of a checkout (one `git rev-parse`), or undefined: what an answer names before the working tree is watched. */
  async headOf(root: string): Promise<string | undefined> {
    const real = await resolveWorkspaceRoot(root, this.options.workspaceRoots);
    if (!isCheckoutTop(real)) return undefined;
    try {
      const head = (await runGit(this.git.environment(), ['rev-parse', 'HEAD'], { cwd: real, timeoutMs: 10_000 })).toString('utf8').trim();
      return /^[0-9a-f]{40,64}$/.test(head) ? head : undefined;
    } catch {
      return undefined;
    }
  }

  close(): Promise<void> {
    this.trees?.close();
    return this.git.close();
  }
}

/** The source of a job input: `source`, or the older `root` (a local path). */
export function sourceOf(input: { source?: SourceInput; root?: string }): SourceInput {
  if (input.source) return input.source;
  if (input.root !== undefined) return { path: input.root };
  throw new QuarryError('input_invalid', 'The input names no repository: give source ({"git": url, "ref"?} or {"path": dir}) or root.', {
    suggestion: 'Add "source": {"git": "https://host/owner/repo.git"} or "root": "/abs/dir".',
  });
}

export function isGitSource(source: ResolvedSource | SourceInput): source is ResolvedGitSource | { git: string; ref?: string } {
  return 'git' in source;
}


/** The settings a process's provider is built from (QuarryConfig has them all). */
export interface SnapshotSettings {
  workspaceRoots: readonly string[];
  dataDir: string;
  fetch: { allow: readonly string[] };
  git: { cacheBytes: number; maxBytes: number; maxFiles: number; timeoutMs: number; credentials: GitCacheOptions['credentials'] };
}

export function snapshotProviderFor(config: SnapshotSettings, workspaceRoots: readonly string[] = config.workspaceRoots): SnapshotProvider {
  return new SnapshotProvider({
    workspaceRoots,
    git: { dataDir: config.dataDir, allow: config.fetch.allow, ...config.git },
  });
}
