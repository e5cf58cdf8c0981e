import type { ScanTotals, WalkSkipped } from '@quarry/workspace';
import type { DerivedTotals } from './blob-derivation';

/**
 * A commit's scan as a worker keeps it for the scan of a next commit of the same repository:
 * its running sums, not its 78k files. A re-scan after a small commit updates them with the
 * files that changed (the walks of the two commits compared where their trees differ) instead of
 * listing, looking up and summing every file again.
 */
export interface RememberedScan {
  commit: string;
  /** What else the result depends on (the code index or not, the largest files' count): a scan with other settings starts afresh. */
  settings: string;
  totals: ScanTotals;
  skipped: WalkSkipped;
  /** Files the walk listed (text, binary and unreadable). */
  listed: number;
  /** Paths per distinct blob of the listed files: `blobs.total`, and which blobs a change adds or drops. */
  pathsOfBlob: Map<string, number>;
  derived?: DerivedTotals;
}

/**
 * The last state (a scan's sums, an index's counts) of each of a few repositories (by URL), for
 * the work on the next commit to start from. Work takes the state it starts from out (`take`), so
 * two jobs never update the same state, and puts its own back when it succeeds (`keep`); work
 * that fails leaves nothing, and the next job on that repository starts afresh.
 */
export class RepositoryMemory<T extends { commit: string }> {
  private readonly states = new Map<string, T>();

  /** `repositories`: how many repositories' states are kept (a scan's is a few MB for a kernel-sized tree). */
  constructor(private readonly repositories = 4) {}

  /** The state of `commit` of `repository`, if kept and `fits`, taken out. */
  take(repository: string, commit: string, fits: (state: T) => boolean = () => true): T | undefined {
    const state = this.states.get(repository);
    if (!state || state.commit !== commit || !fits(state)) return undefined;
    this.states.delete(repository);
    return state;
  }

  keep(repository: string, state: T): void {
    this.states.delete(repository);
    if (this.repositories <= 0) return;
    this.states.set(repository, state);
    while (this.states.size > this.repositories) this.states.delete(this.states.keys().next().value as string);
  }
}

/** The scans a worker remembers (`ShardedScanOptions.memory`). */
export class ScanMemory extends RepositoryMemory<RememberedScan> {}
