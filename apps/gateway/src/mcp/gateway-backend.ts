import type { QuarryConfig } from '@quarry/config';
import {
  QuarryError,
  isTerminal,
  type IndexState,
  type ErrorKind,
  type JobInput,
  type JobKind,
  type JobResult,
  type JobView,
  type NavigationInput,
  type NavigationQuery,
  type NavigationResult,
  type QuarryErrorBody,
  type WorkspaceToolInput,
  type WorkspaceToolName,
} from '@quarry/contracts';
import { navigate, type NavigationPorts } from '@quarry/jobs';
import type { IndexStateOptions, IndexStates, QuarryBackend, RepositoryFields, RunOptions, WorkspaceAnswer, WorkspaceOperations, WorkspaceReadOptions } from '@quarry/mcp';
import type { Principal } from '../auth/principal';
import type { JobEventsEmitter } from '../events/job-events.emitter';
import type { JobsService } from '../jobs/jobs.service';

/** How often a waiting call re-reads its job from Postgres, in case a relayed event was missed. */
const BACKSTOP_POLL_MS = 2_000;

type Outcome = { status: 'succeeded'; result: unknown } | { status: 'failed'; error: QuarryErrorBody } | { status: 'cancelled' };

/**
 * The MCP tools of one session, run as the session's API key: jobs through the jobs service
 * (stored, queued, run by the workers, owned by the key, visible in the dashboard), their events
 * from this gateway's relay, and workspace and navigation reads here, inside QUARRY_WORKSPACE_ROOTS
 * (navigation on the graphs `POST /v1/navigation` keeps).
 */
export class GatewayBackend implements QuarryBackend {
  readonly defaultRepository: string | undefined;

  constructor(
    private readonly principal: Principal,
    private readonly jobs: JobsService,
    private readonly emitter: JobEventsEmitter,
    private readonly operations: WorkspaceOperations,
    config: QuarryConfig,
    private readonly navigation: NavigationPorts,
    private readonly states?: IndexStates,
  ) {
    // With one workspace root there is only one place a repository can be.
    this.defaultRepository = config.workspaceRoots.length === 1 ? config.workspaceRoots[0] : undefined;
  }

  async runJob<K extends JobKind>(kind: K, input: JobInput<K>, options: RunOptions): Promise<{ jobId: string; result: JobResult<K> }> {
    options.signal.throwIfAborted();
    const job = await this.jobs.submit({ kind, input }, this.principal);
    options.onJob?.(job.id);
    const outcome = await this.outcomeOf(job.id, options);
    if (outcome.status === 'succeeded') return { jobId: job.id, result: outcome.result as JobResult<K> };
    if (outcome.status === 'failed') {
      throw new QuarryError(outcome.error.kind as ErrorKind, outcome.error.message, { suggestion: outcome.error.suggestion });
    }
    throw new QuarryError('job_cancelled', `The ${kind} job ${job.id} was cancelled.`, { suggestion: 'Call the tool again to run it again.' });
  }

  runWorkspaceTool<T extends WorkspaceToolName>(name: T, input: WorkspaceToolInput<T>, signal: AbortSignal, options?: WorkspaceReadOptions): Promise<WorkspaceAnswer<T>> {
    return this.operations.run(name, input, signal, options);
  }

  async indexState(repository: RepositoryFields, options: IndexStateOptions): Promise<IndexState | undefined> {
    return this.states?.state(repository, options);
  }

  navigate<Q extends NavigationQuery>(input: NavigationInput & { query: Q }, { signal, onProgress }: Omit<RunOptions, 'onJob'>): Promise<NavigationResult<Q>> {
    return navigate(input, this.navigation, { id: 'navigation', signal, progress: onProgress });
  }

  getJob(id: string): Promise<JobView> {
    return this.jobs.get(id, this.principal);
  }

  async listJobs(limit: number): Promise<JobView[]> {
    return (await this.jobs.list({ limit }, this.principal)).items;
  }

  /**
   * Waits for the job's end: live events from the relay (progress, outcome), a read right after
   * subscribing (it may have ended already) and a slow backstop poll. Cancelling the call cancels
   * the job (a running scan stops within a second).
   */
  private outcomeOf(jobId: string, { signal, onProgress }: RunOptions): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const settle = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        stopWatching();
        clearInterval(poll);
        signal.removeEventListener('abort', cancel);
        resolve(outcome);
      };
      const stopWatching = this.emitter.watch(jobId, (event) => {
        if (event.type === 'progress') onProgress(event.progress);
        else if (event.type === 'completed') settle({ status: 'succeeded', result: event.result });
        else if (event.type === 'failed') settle({ status: 'failed', error: event.error });
        else if (event.type === 'cancelled') settle({ status: 'cancelled' });
      });
      const check = () =>
        this.jobs.get(jobId, this.principal).then(
          (job) => isTerminal(job.status) && settle(outcomeFrom(job)),
          () => undefined, // Postgres away for a moment: the next poll or event decides
        );
      const poll = setInterval(check, BACKSTOP_POLL_MS);
      const cancel = () => {
        this.jobs.cancel(jobId, this.principal).catch(() => undefined); // already over: nothing to cancel
        settle({ status: 'cancelled' });
      };
      signal.addEventListener('abort', cancel, { once: true });
      if (signal.aborted) cancel();
      else void check();
    });
  }
}

function outcomeFrom(job: JobView): Outcome {
  if (job.status === 'succeeded') return { status: 'succeeded', result: job.result };
  if (job.status === 'failed') return { status: 'failed', error: job.error ?? { kind: 'internal', message: 'The job failed.' } };
  return { status: 'cancelled' };
}
