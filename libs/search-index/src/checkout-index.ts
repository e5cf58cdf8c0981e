import { performance } from 'node:perf_hooks';
import { searchWorkspace, type SearchFunction } from '@quarry/search';
import { checkoutMayConvert, readCheckoutBlob, type GitEnvironment, type WorkingTreeState } from '@quarry/snapshot';
import { IndexBuild, saveManifest, type CommitIndexState, type IndexBuildStats } from './build';
import { IndexedCommit, type CommitFile } from './indexed-commit';
import { searchIndexed, type IndexOverlay } from './indexed-search';
import { DocKind, type SegmentReader } from './segment';
import type { SegmentSinks } from './segment-builder-thread';
import type { SegmentCache } from './segment-cache';
import type { CommitManifest, SearchIndexStore } from './store';

/** Files read at once while building (their bytes are hashed, then handed to the segment builder). */
const READ_CONCURRENCY = 8;
/** Progress is reported at most this often. */
const PROGRESS_EVERY_MS = 1_000;
/** An index replaced (HEAD moved) is closed this long after, so searches still reading it finish. */
const CLOSE_REPLACED_AFTER_MS = 60_000;
/**
 * A checkout without an index is looked at again this often: a process that does not build finds
 * one another process built, and a failed build (Postgres away, a blob git lacked) is tried again.
 */
const RECHECK_MS = 30_000;

export interface CheckoutIndexProgress {
  commit: string;
  /** Distinct blobs to build (those no saved segment holds), and how many are done. */
  blobs: number;
  blobsDone: number;
  /** Bytes read so far. */
  bytes: number;
}

export interface CheckoutBuildResult {
  manifest: CommitManifest;
  /** What this build added (zero when the manifest existed). */
  built: IndexBuildStats;
  /** Blobs read from the repository because the file no longer held them (edited before or during the build). */
  fromRepository: number;
  /** Blobs already in a saved segment (another commit's, a URL scan's): not built again. */
  reused: number;
  elapsedMs: number;
}

export interface CheckoutBuildOptions {
  environment: GitEnvironment;
  signal?: AbortSignal;
  segments?: SegmentSinks;
  onProgress?: (progress: CheckoutIndexProgress) => void;
  /** Where the commit's segments are opened: the manifest then counts the text of the reused blobs too (else only what was built). */
  cache?: SegmentCache;
}

/**
 * The search index of a checkout's HEAD, built from the checkout: HEAD's files (`files`, with
 * their blobs) whose blobs no saved segment holds are read from the working tree — each file's
 * bytes hashed and kept only when they are its blob's (else the blob is read from the repository),
 * so a segment always holds what its blob ids say, however the files change meanwhile — built into
 * segments (by the segment thread when given) and saved; the manifest of the commit is written
 * last. Blobs that any earlier build or scan saved (the same commit by URL, the previous HEAD) are
 * not read at all: a new commit costs its new blobs.
 */
export async function indexCheckout(root: string, commit: string, files: readonly CommitFile[], store: SearchIndexStore, options: CheckoutBuildOptions): Promise<CheckoutBuildResult> {
  const started = performance.now();
  const { signal } = options;
  const built: IndexBuildStats = { segments: 0, blobs: 0, textBytes: 0, indexBytes: 0 };
  const existing = await store.manifest(commit);
  if (existing) return { manifest: existing, built, fromRepository: 0, reused: 0, elapsedMs: performance.now() - started };
  const blobs = [...new Set(files.map((file) => file.blob))];
  const segmentOf = await store.segmentsOf(blobs);
  const uncovered = new Map<string, string>();
  for (const file of files) if (!segmentOf.has(file.blob) && !uncovered.has(file.blob)) uncovered.set(file.blob, file.path);

  let fromRepository = 0;
  const read = async (relative: string, blob: string) => {
    const found = await readCheckoutBlob(root, relative, blob, options.environment);
    if (found && !found.fromFile) fromRepository++;
    return found?.content;
  };
  const queue = [...uncovered];
  // What the build reads itself (nothing, unless a read below failed): through the same check.
  const build = new IndexBuild({ readFile: (relative) => read(relative, uncovered.get(relative) ?? '') }, [], store, { signal, segments: options.segments });
  const progress: CheckoutIndexProgress = { commit, blobs: queue.length, blobsDone: 0, bytes: 0 };
  let reported = 0;
  let next = 0;
  const work = async () => {
    while (next < queue.length) {
      signal?.throwIfAborted();
      const [blob, relative] = queue[next++];
      const content = await read(relative, blob);
      if (content) {
        build.add(relative, content, blob);
        progress.bytes += content.length;
      }
      progress.blobsDone++;
      if (options.onProgress && performance.now() - reported >= PROGRESS_EVERY_MS) {
        reported = performance.now();
        options.onProgress({ ...progress });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, queue.length) }, work));
  Object.assign(built, await build.finish());
  options.onProgress?.({ ...progress });
  for (const [blob, segment] of build.saved) segmentOf.set(blob, segment);
  const missing = blobs.filter((blob) => !segmentOf.has(blob));
  // Saved meanwhile by another process (the same commit searched through another gateway).
  if (missing.length > 0) for (const [blob, segment] of await store.segmentsOf(missing)) segmentOf.set(blob, segment);
  const lacking = blobs.filter((blob) => !segmentOf.has(blob));
  if (lacking.length > 0) throw new Error(`${lacking.length} blobs of ${commit} could not be read (first: ${uncovered.get(lacking[0]) ?? lacking[0]})`);

  const blobsPerSegment = new Map<string, number>();
  for (const blob of blobs) blobsPerSegment.set(segmentOf.get(blob) as string, (blobsPerSegment.get(segmentOf.get(blob) as string) ?? 0) + 1);
  const state: CommitIndexState = {
    commit,
    blobsPerSegment,
    segmentBytes: await store.segmentSizes([...blobsPerSegment.keys()]),
    files: files.length,
    textBytes: options.cache ? await textBytesThrough(options.cache, [...blobsPerSegment.keys()], blobs) : built.textBytes,
  };
  const manifest = await saveManifest(store, await store.manifest(commit), state, {});
  return { manifest, built, fromRepository, reused: blobs.length - uncovered.size, elapsedMs: performance.now() - started };
}

/** What a process knows of one checkout's search index. */
export interface CheckoutIndexStatus {
  commit: string;
  /**
   * `ready`: searches use it. `building`: being built or opened (searches read the files).
   * `absent`: none, and this process builds none. `unsupported`: git converts the checkout's
   * content (autocrlf, filters), so no index keyed by blob may stand for its files. `failed`: the
   * build failed (`error`); searches read the files.
   */
  state: 'ready' | 'building' | 'absent' | 'unsupported' | 'failed';
  progress?: CheckoutIndexProgress;
  build?: CheckoutBuildResult;
  error?: string;
}

export interface CheckoutIndexesOptions {
  store: SearchIndexStore;
  cache: SegmentCache;
  environment: GitEnvironment;
  /** Build a missing index in the background (a long-lived process: `quarry mcp`, the gateway); false: use one only when present. */
  build: boolean;
  segments?: SegmentSinks;
  onProgress?: (root: string, progress: CheckoutIndexProgress) => void;
  onBuilt?: (root: string, result: CheckoutBuildResult) => void;
  onError?: (root: string, error: unknown) => void;
  /** How long an absent or failed index is left before it is looked for (or built) again (default 30 s). */
  recheckMs?: number;
}

interface Entry {
  status: CheckoutIndexStatus;
  indexed?: IndexedCommit;
  checkedAt: number;
  controller: AbortController;
}

/**
 * The search indexes of the local checkouts a process searches, one per checkout at its HEAD. The
 * first search of a checkout starts opening its HEAD's index (building it first when none is saved
 * and this process builds) and is answered by reading the files meanwhile; once it is open, a
 * search reads only the candidate files the index selects among the files the working tree has
 * unchanged since HEAD, plus every changed, added or renamed file (the watched working tree names
 * them), and leaves the deleted ones out — so an edit is in the very next answer, and the answer
 * is the cold search's. A moved HEAD is a new commit: its index is built from the blobs the last
 * one lacks.
 */
export class CheckoutIndexes {
  private readonly entries = new Map<string, Entry>();
  /** Builds run one at a time in a process: each keeps a core busy. */
  private builds: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: CheckoutIndexesOptions) {}

  /**
   * How to search the working tree `tree` now: through its HEAD's index with the edits overlaid
   * when that index is open and the tree is watched (its changes are current), else by reading
   * every file. Starts opening (or building) the index on first use.
   */
  searcher(tree: WorkingTreeState): { search: SearchFunction; indexed: boolean } {
    const cold: SearchFunction = async (request, options) => ({ ...(await searchWorkspace(request, options)), indexed: false });
    if (tree.kind !== 'git' || this.closed) return { search: cold, indexed: false };
    const entry = this.entryFor(tree);
    const indexed = entry.indexed;
    // Unwatched, the tree's changes may be seconds old: only a read of the files is current.
    if (!indexed || !tree.watching) return { search: cold, indexed: false };
    const overlay = overlayOf(tree);
    return { search: (request, options) => searchIndexed(request, indexed, options, overlay), indexed: true };
  }

  /** What this process knows of the checkout's index (undefined: never searched here). */
  status(root: string): CheckoutIndexStatus | undefined {
    return this.entries.get(root)?.status;
  }

  /** Waits for the checkout's index to be opened or given up on (tests, the benchmark). */
  async settled(root: string): Promise<CheckoutIndexStatus | undefined> {
    while (this.entries.get(root)?.status.state === 'building') await new Promise((resolve) => setTimeout(resolve, 50));
    return this.status(root);
  }

  close(): void {
    this.closed = true;
    for (const entry of this.entries.values()) {
      entry.controller.abort(new Error('closed'));
      entry.indexed?.close();
    }
    this.entries.clear();
  }

  private entryFor(tree: WorkingTreeState): Entry {
    const current = this.entries.get(tree.root);
    if (current && current.status.commit === tree.commit) {
      const again = current.status.state === 'absent' || current.status.state === 'failed';
      if (again && Date.now() - current.checkedAt >= (this.options.recheckMs ?? RECHECK_MS)) this.open(tree);
      return this.entries.get(tree.root) as Entry;
    }
    if (current) this.retire(current);
    return this.open(tree);
  }

  private open(tree: WorkingTreeState): Entry {
    const entry: Entry = { status: { commit: tree.commit, state: 'building' }, checkedAt: Date.now(), controller: new AbortController() };
    this.entries.set(tree.root, entry);
    const { store, cache, environment } = this.options;
    const signal = entry.controller.signal;
    void (async () => {
      if (await checkoutMayConvert(tree.root, environment, tree.head)) {
        entry.status = { commit: tree.commit, state: 'unsupported' };
        return;
      }
      let manifest = await store.manifest(tree.commit);
      if (!manifest) {
        if (!this.options.build) {
          entry.status = { commit: tree.commit, state: 'absent' };
          return;
        }
        // HEAD's files the working tree still lists (or holds changed): what a search can ask of the index.
        const deleted = new Set(tree.changes.filter((change) => change.status === 'deleted' || change.status === 'renamed').map((change) => (change.status === 'deleted' ? change.path : (change.from as string))));
        const files = [...tree.head].filter(([path]) => !deleted.has(path)).map(([path, blob]) => ({ path, blob }));
        const run = this.builds.then(() => {
          signal.throwIfAborted();
          return indexCheckout(tree.root, tree.commit, files, store, {
            environment,
            signal,
            segments: this.options.segments,
            cache,
            onProgress: (progress) => {
              entry.status = { ...entry.status, progress };
              this.options.onProgress?.(tree.root, progress);
            },
          });
        });
        this.builds = run.catch(() => undefined);
        const result = await run;
        entry.status = { ...entry.status, build: result };
        this.options.onBuilt?.(tree.root, result);
        manifest = result.manifest;
      }
      const segments: SegmentReader[] = [];
      try {
        for (const id of manifest.segments) {
          signal.throwIfAborted();
          segments.push(await cache.open(id));
        }
      } catch (error) {
        for (const segment of segments) segment.close();
        throw error;
      }
      const files = [...tree.head].map(([path, blob]) => ({ path, blob }));
      if (signal.aborted || this.entries.get(tree.root) !== entry) {
        for (const segment of segments) segment.close();
        return;
      }
      entry.indexed = new IndexedCommit(tree.commit, files, segments);
      entry.status = { ...entry.status, state: 'ready', progress: undefined };
    })().catch((error: unknown) => {
      if (signal.aborted) return;
      entry.status = { commit: tree.commit, state: 'failed', error: error instanceof Error ? error.message : String(error) };
      this.options.onError?.(tree.root, error);
    });
    return entry;
  }

  private retire(entry: Entry): void {
    entry.controller.abort(new Error('HEAD moved'));
    const indexed = entry.indexed;
    if (indexed) setTimeout(() => indexed.close(), CLOSE_REPLACED_AFTER_MS).unref();
  }
}

/** The working tree's edits as an overlay on its HEAD's index. */
function overlayOf(tree: WorkingTreeState): IndexOverlay {
  const read: string[] = [];
  const excluded = new Set<string>();
  for (const change of tree.changes) {
    excluded.add(change.path);
    if (change.from !== undefined) excluded.add(change.from);
    if (change.status !== 'deleted') read.push(change.path);
  }
  return { read, excluded };
}

async function textBytesThrough(cache: SegmentCache, ids: readonly string[], blobs: readonly string[]): Promise<number> {
  const segments: SegmentReader[] = [];
  try {
    for (const id of ids) segments.push(await cache.open(id));
    return textBytesOf(blobs, segments);
  } finally {
    for (const segment of segments) segment.close();
  }
}

/** Bytes of text among a commit's distinct blobs, from its opened segments. */
function textBytesOf(blobs: Iterable<string>, segments: readonly SegmentReader[]): number {
  const wanted = new Set(blobs);
  let bytes = 0;
  for (const segment of segments) {
    segment.blobs.forEach((blob, doc) => {
      if (!wanted.delete(blob)) return;
      if (segment.kinds[doc] === DocKind.Text) bytes += segment.sizes[doc];
    });
  }
  return bytes;
}
