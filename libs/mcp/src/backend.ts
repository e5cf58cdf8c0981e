import type {
  JobInput,
  JobKind,
  JobProgress,
  JobResult,
  JobView,
  WorkspaceToolInput,
  WorkspaceToolName,
  WorkspaceToolResult,
} from '@quarry/contracts';

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
  runWorkspaceTool<T extends WorkspaceToolName>(name: T, input: WorkspaceToolInput<T>, signal: AbortSignal): Promise<WorkspaceToolResult<T>>;
  /** A job this caller may see, or `job_not_found`. */
  getJob(id: string): Promise<JobView>;
  /** This caller's most recent jobs, newest first. */
  listJobs(limit: number): Promise<JobView[]>;
  /** The repository tools use when called without one (`quarry mcp --root`, or a gateway's only workspace root). */
  readonly defaultRepository?: string;
}
