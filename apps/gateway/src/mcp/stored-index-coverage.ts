import { blobIndexKey, distinctKeys, indexVariant, type BlobIndexStore } from '@quarry/code-index';
import type { JobView } from '@quarry/contracts';
import type { CoverageTarget, IndexCoverage } from '@quarry/mcp';

/** The scans running now, as the jobs table lists them. */
export type RunningScans = () => Promise<JobView[]>;

/** A commit's search manifest: written last by a scan that indexed every blob of it. */
export interface CommitManifests {
  manifest(commit: string): Promise<unknown>;
}

/** How long the list of running scans is reused: every answer asks, a scan lasts seconds to hours. */
const RUNNING_SCANS_TTL_MS = 1_000;
/** Blobs asked about in one query. */
const BLOBS_PER_QUERY = 5_000;
const ENCODING = 'o200k_base';
/** While a scan of a directory runs, its coverage is counted again at most this often. */
const RECOUNT_WHILE_BUILDING_MS = 5_000;

/**
 * How much of a repository the scans' stored indexes cover, for the gateway's answers: a commit of
 * a git URL is covered once its search manifest exists (a scan writes it after every blob's
 * segment and code-index row); a watched directory by the share of its files whose blob has a
 * code-index row. The rows of a commit's blobs are looked up once per commit and kept; after an
 * edit only the changed blobs are looked up. `building` while a scan of the repository runs.
 */
export class StoredIndexCoverage {
  private running: { at: number; scans: Promise<JobView[]> } | undefined;
  /** Keys (blob and variant) with a row, per commit: the unchanged files' part of the answer. */
  private readonly commits = new Map<string, Promise<Set<string>>>();
  /** Changed blobs looked up since: edits come and go, their rows rarely do. */
  private readonly blobs = new Map<string, boolean>();
  /**
   * The last share counted per directory: reused while its working tree is in the same state and
   * no scan runs, and during a scan (which adds rows) for RECOUNT_WHILE_BUILDING_MS: counting
   * reads the whole listing and, after a scan, looks up every blob of the commit again.
   */
  private readonly counted = new Map<string, { version: string; coverage: number; at: number; building: boolean }>();

  constructor(
    private readonly store: BlobIndexStore,
    private readonly manifests: CommitManifests,
    private readonly runningScans: RunningScans,
  ) {}

  async coverage(target: CoverageTarget): Promise<IndexCoverage> {
    const scan = await this.runningScanOf(target);
    const building = scan !== undefined;
    if ('git' in target) {
      if (await this.manifests.manifest(target.commit)) return { coverage: 1, building };
      const progress = scan?.progress;
      return { coverage: progress?.total ? progress.done / progress.total : 0, building };
    }
    if (target.tree.kind !== 'git') return { coverage: 0, building }; // a directory outside git has no blob ids to look up
    const counted = this.counted.get(target.root);
    const fresh = counted?.version === target.tree.version && (building ? Date.now() - counted.at < RECOUNT_WHILE_BUILDING_MS : !counted.building);
    if (counted && fresh) return { coverage: counted.coverage, building };
    // Rows were added since the commit's were looked up (a scan ran, or runs).
    if (counted?.building || building) this.commits.delete(target.tree.commit);
    const files = [...target.tree.files].map(([path, blob]) => ({ path, blob }));
    const changed = new Set(target.tree.changes.map((change) => change.path));
    const atCommit = await this.rowsOf(target.tree.commit, files.filter((file) => !changed.has(file.path)));
    const edited = distinctKeys(files.filter((file) => changed.has(file.path)));
    const unknown = edited.filter((key) => !this.blobs.has(blobIndexKey(key.blob, key.variant)));
    if (unknown.length) {
      const found = await this.store.briefs(unknown, ENCODING);
      for (const key of unknown) this.blobs.set(blobIndexKey(key.blob, key.variant), found.has(blobIndexKey(key.blob, key.variant)));
    }
    let indexed = 0;
    for (const file of files) {
      const key = blobIndexKey(file.blob, indexVariant(file.path));
      if (changed.has(file.path) ? this.blobs.get(key) : atCommit.has(key)) indexed++;
    }
    const coverage = files.length ? indexed / files.length : 1;
    this.counted.set(target.root, { version: target.tree.version, coverage, at: Date.now(), building });
    return { coverage, building };
  }

  private rowsOf(commit: string, files: { path: string; blob: string }[]): Promise<Set<string>> {
    let rows = this.commits.get(commit);
    if (!rows) {
      rows = (async () => {
        const keys = distinctKeys(files);
        const found = new Set<string>();
        for (let at = 0; at < keys.length; at += BLOBS_PER_QUERY) {
          for (const key of (await this.store.briefs(keys.slice(at, at + BLOBS_PER_QUERY), ENCODING)).keys()) found.add(key);
        }
        return found;
      })();
      this.commits.set(commit, rows);
      rows.catch(() => this.commits.delete(commit));
      // A scan adds rows: a commit looked up while incomplete is looked up again after it.
      while (this.commits.size > 8) this.commits.delete(this.commits.keys().next().value as string);
    }
    return rows;
  }

  private async runningScanOf(target: CoverageTarget): Promise<JobView | undefined> {
    const now = Date.now();
    if (!this.running || now - this.running.at > RUNNING_SCANS_TTL_MS) this.running = { at: now, scans: this.runningScans().catch(() => []) };
    const scans = await this.running.scans;
    const scan = scans.find((job) => {
      const input = job.input as { root?: string; source?: { path?: string; git?: string } };
      return 'git' in target ? input.source?.git === target.git : input.root === target.root || input.source?.path === target.root;
    });
    return scan;
  }
}
