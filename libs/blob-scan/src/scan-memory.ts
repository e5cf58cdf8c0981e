import { ScanTotals, type WalkSkipped } from '@quarry/workspace';
import type { BlobDerivation, DerivedTotals } from './blob-derivation';

/**
 * A commit's scan as it is remembered for the scan of a next commit of the same repository: its
 * running sums, not its 78k files. A re-scan after a small commit updates them with the files
 * that changed (the walks of the two commits compared where their trees differ) instead of
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
  /** The distinct blobs of the listed files. */
  blobs: number;
  derived?: DerivedTotals;
}

/**
 * Where remembered states outlive a worker and reach the others (Postgres: @quarry/db's
 * ScanStateRepository), keyed by repository, kind and commit. States are small (sums, not files).
 */
export interface ScanStateStore {
  load(repository: string, kind: string, commit: string): Promise<unknown>;
  save(repository: string, kind: string, commit: string, state: unknown): Promise<void>;
}

export interface StateKey {
  repository: string;
  /** What the state is (a scan under given settings, a commit's search index). */
  kind: string;
  commit: string;
}

/**
 * The last state of each (repository, kind) a worker made, in memory, and every state in the store
 * when there is one: a worker that did not make the state of a commit finds it there. A state
 * taken from memory is taken out (`take`), so two jobs never update the same objects; one read
 * from the store is a new copy. Work that succeeds keeps its own state (`keep`). The store is a
 * speed-up, never a dependency: a failed load is a miss and a failed save is forgotten, and the
 * next job on that repository starts afresh.
 */
export class StateMemory {
  private readonly states = new Map<string, { commit: string; state: unknown }>();

  private readonly store?: ScanStateStore;
  private readonly entries: number;
  private readonly version: string | undefined;

  /**
   * `entries`: how many (repository, kind) states are kept in memory (a scan's is a few KB).
   * `version`: the code's version, part of every stored state's kind: a state made by another
   * version (whose language table or sums may differ) is never read.
   */
  constructor(store?: ScanStateStore, options: { entries?: number; version?: string } = {}) {
    this.store = store;
    this.entries = options.entries ?? 16;
    this.version = options.version;
  }

  async take<T>(key: StateKey, decode: (json: unknown) => T | undefined | Promise<T | undefined>): Promise<T | undefined> {
    key = this.versioned(key);
    const slot = `${key.repository}\n${key.kind}`;
    const held = this.states.get(slot);
    if (held?.commit === key.commit) {
      this.states.delete(slot);
      return held.state as T;
    }
    if (!this.store) return undefined;
    const json = await this.store.load(key.repository, key.kind, key.commit).catch(() => undefined);
    return json === undefined || json === null ? undefined : decode(json);
  }

  async keep<T>(key: StateKey, state: T, encode: (state: T) => unknown): Promise<void> {
    key = this.versioned(key);
    const slot = `${key.repository}\n${key.kind}`;
    this.states.delete(slot);
    if (this.entries > 0) this.states.set(slot, { commit: key.commit, state });
    while (this.states.size > this.entries) this.states.delete(this.states.keys().next().value as string);
    await this.store?.save(key.repository, key.kind, key.commit, encode(state)).catch(() => undefined);
  }

  private versioned(key: StateKey): StateKey {
    return this.version === undefined ? key : { ...key, kind: `${key.kind} @${this.version}` };
  }
}

/** The scans a worker remembers (`ShardedScanOptions.memory`), in memory and in the store when given. */
export class ScanMemory {
  private readonly states: StateMemory;

  constructor(store?: ScanStateStore, options: { entries?: number; version?: string } = {}) {
    this.states = new StateMemory(store, options);
  }

  /** The remembered scan of `commit` under `settings`; its derived totals restored through `derive`. */
  take(repository: string, commit: string, settings: string, derive?: BlobDerivation): Promise<RememberedScan | undefined> {
    return this.states.take({ repository, kind: `scan ${settings}`, commit }, (json) => decodeScan(json, derive));
  }

  keep(repository: string, scan: RememberedScan): Promise<void> {
    return this.states.keep({ repository, kind: `scan ${scan.settings}`, commit: scan.commit }, scan, encodeScan);
  }
}

interface ScanJson {
  commit: string;
  settings: string;
  totals: unknown;
  skipped: WalkSkipped;
  listed: number;
  blobs: number;
  derived?: unknown;
}

function encodeScan(scan: RememberedScan): ScanJson {
  return { commit: scan.commit, settings: scan.settings, totals: scan.totals.toJSON(), skipped: scan.skipped, listed: scan.listed, blobs: scan.blobs, derived: scan.derived?.toJSON() };
}

/** A stored scan, or undefined when it cannot be restored (another version's shape, derived totals this worker cannot restore). */
async function decodeScan(json: unknown, derive: BlobDerivation | undefined): Promise<RememberedScan | undefined> {
  const scan = json as Partial<ScanJson>;
  if (typeof scan.commit !== 'string' || typeof scan.settings !== 'string' || typeof scan.listed !== 'number' || typeof scan.blobs !== 'number' || !scan.skipped) return undefined;
  const totals = ScanTotals.fromJSON(scan.totals);
  if (!totals) return undefined;
  let derived: DerivedTotals | undefined;
  if (scan.derived !== undefined) {
    derived = await derive?.restore?.(scan.derived);
    if (!derived) return undefined;
  }
  return { commit: scan.commit, settings: scan.settings, totals, skipped: scan.skipped, listed: scan.listed, blobs: scan.blobs, derived };
}
