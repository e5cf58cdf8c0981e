import type { ResolvedSourceBody, SourceInputBody } from '@quarry/contracts';
import { openPinned, sourceOf, type Snapshot, type SnapshotProvider } from '@quarry/snapshot';
import type { JobRun } from './job-run';

/** How a job input names its repository: `source` (a git URL and ref, or a path), or the older `root`. */
export interface RepositoryInput {
  root?: string;
  source?: SourceInput;
}
type SourceInput = SourceInputBody;

/**
 * How every use case opens the repository its input names: a snapshot from this process's
 * provider (its git cache under QUARRY_DATA_DIR; directories inside the roots it allows), the
 * commit pinned once per job. A git ref is resolved before the work (or taken from the job row
 * when an earlier attempt pinned it); a directory's identity (HEAD, or a content hash) is
 * computed beside the work and recorded with the result.
 */
export class RepositorySessions {
  constructor(readonly provider: SnapshotProvider) {}

  /** Runs `work` on the repository's snapshot; the result comes with the commit it describes. */
  async withSnapshot<R>(input: RepositoryInput, run: JobRun, work: (snapshot: Snapshot) => Promise<R>): Promise<{ result: R; source: ResolvedSourceBody }> {
    const { result, source } = await this.open(input, run, work, true);
    return { result, source: source as ResolvedSourceBody };
  }

  /**
   * Runs `work` on the repository's snapshot when the result does not name the commit (mentions,
   * interpret): a directory's identity is computed only where a job row records it (the worker).
   */
  async withFiles<R>(input: RepositoryInput, run: JobRun, work: (snapshot: Snapshot) => Promise<R>): Promise<R> {
    return (await this.open(input, run, work, run.pins !== undefined)).result;
  }

  private async open<R>(input: RepositoryInput, run: JobRun, work: (snapshot: Snapshot) => Promise<R>, identity: boolean): Promise<{ result: R; source?: ResolvedSourceBody }> {
    const requested = sourceOf(input);
    const pins = run.pins;
    const pinned = await openPinned(this.provider, requested, pins?.pinned ?? undefined, run.signal, { prepareIdentity: identity });
    try {
      if ('git' in requested) {
        const source = await pinned.source();
        run.progress({ stage: 'resolved', done: 0, message: `${'git' in source ? source.ref : ''} → ${source.commit.slice(0, 12)}` });
        await pins?.pin?.(source);
      }
      const result = await work(pinned.snapshot);
      if (!identity) return { result };
      const source = await pinned.source();
      // A git commit was pinned before the work; a directory's identity goes with the result.
      if (!('git' in requested)) {
        if (pins?.record) pins.record(source);
        else await pins?.pin?.(source);
      }
      return { result, source };
    } finally {
      pinned.snapshot.close();
    }
  }

  close(): Promise<void> {
    return this.provider.close();
  }
}
