import type {
  IndexState,
  JobInput,
  JobKind,
  JobProgress,
  JobResult,
  JobView,
  NavigationInput,
  NavigationQuery,
  NavigationResult,
  WorkspaceToolInput,
  WorkspaceToolName,
} from '@quarry/contracts';
import type { WorkspaceAnswer, WorkspaceReadOptions } from './workspace-operations';

export interface RunOptions {
  /** Aborted when the MCP client cancels the call: the job is cancelled. */
  signal: AbortSignal;
  /** The job's progress, as often as it comes; the caller throttles what reaches the client. */
  onProgress(progress: JobProgress): void;
  /** Called once, as soon as the job has an id (before it runs). */
  onJob?(jobId: string): void;
}

/**
 * Where the MCP tools' work is done: in this process (`quarry mcp`), or through the gateway's
 * jobs service for one API key (Streamable HTTP at /mcp). The tool table only talks to this.
 * Every failure is a QuarryError with a typed kind.
 */
export interface QuarryBackend {
  /**
   * Runs a job to its end and resolves with its id and result. A failed job rejects with its
   * typed error; a job cancelled through `signal` (or by anyone) rejects with `job_cancelled`.
   */
  runJob<K extends JobKind>(kind: K, input: JobInput<K>, options: RunOptions): Promise<{ jobId: string; result: JobResult<K> }>;
  /** One read-only workspace operation; `input.root` is checked against this backend's allowed repositories. */
  runWorkspaceTool<T extends WorkspaceToolName>(name: T, input: WorkspaceToolInput<T>, signal: AbortSignal, options?: WorkspaceReadOptions): Promise<WorkspaceAnswer<T>>;
  /**
   * The state of a repository an answer read, as the answer reports it (`structuredContent.index`):
   * the commit, the working tree's changes since it, the code index's coverage and whether it is
   * building. Cheap enough for every call (a watched working tree, cached look-ups).
   */
  indexState?(repository: RepositoryFields, options: IndexStateOptions): Promise<IndexState | undefined>;
  /**
   * One navigation read (references, callers, an outline, the impact of a diff…), answered in the
   * call on the commit the repository is at, as `POST /v1/navigation` answers it. The first read
   * of a commit indexes its tree: `onProgress` reports that.
   */
  navigate<Q extends NavigationQuery>(input: NavigationInput & { query: Q }, options: Omit<RunOptions, 'onJob'>): Promise<NavigationResult<Q>>;
  /** A job this caller may see, or `job_not_found`. */
  getJob(id: string): Promise<JobView>;
  /** This caller's most recent jobs, newest first. */
  listJobs(limit: number): Promise<JobView[]>;
  /** The repository tools use when called without one (`quarry mcp --root`, or a gateway's only workspace root). */
  readonly defaultRepository?: string;
}

/** A repository as a tool input names it: a directory, or a git URL at a ref. */
export type RepositoryFields = { root: string } | { source: { git: string; ref?: string } };

export interface IndexStateOptions {
  /** The commit the answer read, when it pinned one (a git URL). */
  commit?: string;
  /** How the answer was computed: from the index, or by reading the files. */
  read: IndexState['read'];
  signal?: AbortSignal;
}
