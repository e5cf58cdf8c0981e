import { answerSearch, type SearchFunction } from '@quarry/search';
import type { SearchAnswer, SearchInput } from '@quarry/contracts';
import type { FileMeasure } from '@quarry/workspace';
import { blobId, type Snapshot, type SnapshotProvider } from '@quarry/snapshot';
import { searchIndexed } from './indexed-search';
import { IndexedCommit, type CommitFile } from './indexed-commit';
import type { SegmentReader } from './segment';
import { inThreadSegments, type SegmentSink, type SegmentSinks } from './segment-builder-thread';
import type { SegmentCache } from './segment-cache';
import type { CommitManifest, SearchIndexStore } from './store';

/** A segment closes once its text passes this: bounds the builder's memory (about 2 bytes of pairs per text byte). */
export const SEGMENT_TEXT_BYTES = 48 * 1024 * 1024;

export interface IndexBuildOptions {
  signal?: AbortSignal;
  /** Close a segment once its text passes this many bytes (default SEGMENT_TEXT_BYTES). */
  segmentTextBytes?: number;
  /** Where segments are built: here (the default), or a SegmentThread's `sink`. */
  segments?: SegmentSinks;
}
const SYMLINK_MODE = '120000';

/** A file to index: its path in the snapshot and, when the listing knows it, its blob. */
export interface IndexFile {
  path: string;
  blob?: string;
}

export interface IndexBuildStats {
  segments: number;
  blobs: number;
  textBytes: number;
  indexBytes: number;
}

/**
 * An index build fed as content arrives (a scan shard hands over the bytes it measures), then
 * finished: the files it was not handed are read, the last segment closed and every segment
 * saved. A segment is saved whole (segment and blob rows in one transaction), so a build killed
 * half-way leaves some complete segments and no partial one; its blobs are built again next time.
 */
export class IndexBuild {
  private readonly sinks: SegmentSinks;
  private builder: SegmentSink;
  private readonly added = new Set<string>();
  private readonly blobOf: Map<string, string>;
  private saves: Promise<void> = Promise.resolve();
  private readonly segmentTextBytes: number;
  readonly stats: IndexBuildStats = { segments: 0, blobs: 0, textBytes: 0, indexBytes: 0 };
  /** The segment each blob of this build was saved in. */
  readonly saved = new Map<string, string>();

  constructor(
    private readonly snapshot: Pick<Snapshot, 'readFile'>,
    private readonly files: readonly IndexFile[],
    private readonly store: SearchIndexStore,
    private readonly options: IndexBuildOptions = {},
  ) {
    this.blobOf = new Map(files.filter((file) => file.blob !== undefined).map((file) => [file.path, file.blob as string]));
    this.segmentTextBytes = options.segmentTextBytes ?? SEGMENT_TEXT_BYTES;
    this.sinks = options.segments ?? inThreadSegments;
    this.builder = this.sinks();
  }

  /** A file's bytes (its blob: given, listed, or computed). */
  add(path: string, content: Buffer, blob = this.blobOf.get(path) ?? blobId(content)): void {
    if (this.added.has(blob)) return;
    this.added.add(blob);
    this.builder.add(blob, content);
    if (this.builder.textBytes >= this.segmentTextBytes || this.builder.full) this.close();
  }

  /** Reads the files not handed over (and not in a saved segment already), then saves everything. */
  async finish(): Promise<IndexBuildStats> {
    const { signal } = this.options;
    const unread = this.files.filter((file) => file.blob === undefined || !this.added.has(file.blob));
    const listed = [...new Set(unread.flatMap((file) => (file.blob === undefined ? [] : [file.blob])))];
    const covered = listed.length === 0 ? new Map<string, string>() : await this.store.segmentsOf(listed);
    for (const file of unread) {
      if (file.blob !== undefined && covered.has(file.blob)) continue;
      signal?.throwIfAborted();
      const content = await this.snapshot.readFile(file.path);
      if (content !== undefined) this.add(file.path, content, file.blob);
    }
    this.close();
    await this.saves;
    return this.stats;
  }

  /** Encodes the open segment and queues its save (saves run one after another). */
  private close(): void {
    if (this.builder.size === 0) return;
    const built = Promise.resolve(this.builder.finish());
    built.catch(() => undefined); // awaited in turn below
    this.builder = this.sinks();
    this.saves = this.saves.then(async () => {
      for (const segment of await built) {
        await this.store.saveSegment(segment);
        for (const blob of segment.blobs) this.saved.set(blob, segment.id);
        this.stats.segments++;
        this.stats.blobs += segment.blobs.length;
        this.stats.textBytes += segment.textBytes;
        this.stats.indexBytes += segment.data.length;
      }
    });
    this.saves.catch(() => undefined); // awaited in finish
  }
}

/** Builds and saves the segments of the files' blobs that no saved segment holds yet. */
export function indexFiles(snapshot: Snapshot, files: readonly IndexFile[], store: SearchIndexStore, options: IndexBuildOptions = {}): Promise<IndexBuildStats> {
  return new IndexBuild(snapshot, files, store, options).finish();
}

/** Every file git lists in the snapshot, with its blob: what an index of the commit covers. */
export async function listCommit(snapshot: Snapshot, signal?: AbortSignal): Promise<CommitFile[]> {
  const listing = await snapshot.walk({ signal });
  const files: CommitFile[] = [];
  for (const path of listing.files.sort()) {
    const entry = await snapshot.entry(path);
    if (entry) files.push({ path, blob: entry.blob, ...(entry.mode === SYMLINK_MODE ? { symlink: true } : {}) });
  }
  return files;
}

export interface IndexCommitOptions extends IndexBuildOptions {
  /** The commit's files with their blobs, when the caller has them (a scan just listed them); else listed here. */
  files?: readonly CommitFile[];
  /** Bytes of text among these distinct blobs, when the caller knows them (a scan's blob facts); else measured through the snapshot. */
  textBytes?: (blobs: readonly string[]) => Promise<number>;
  /**
   * The segments of the commit's blobs as the store knew them before (`store.segmentsOf`, started
   * while the scan ran): only the blobs it lacks are looked up again — those the scan's shards
   * have indexed since, and those no segment holds yet.
   */
  segmentsBefore?: Promise<Map<string, string>>;
  /** Receives the commit's index as a worker keeps it for the next commit's (`indexCommitChanges`). */
  onIndexed?: (state: CommitIndexState) => void;
}

/**
 * A commit's index as a worker keeps it for the next commit of the repository: how many of the
 * commit's distinct blobs each segment holds, so a commit that gains and loses a few blobs gets
 * its manifest from those few (`indexCommitChanges`) rather than from all its blobs' segments.
 */
export interface CommitIndexState {
  commit: string;
  blobsPerSegment: Map<string, number>;
  segmentBytes: Map<string, number>;
  files: number;
  textBytes: number;
}

/** What a commit changed from the one a `CommitIndexState` describes. */
export interface CommitIndexChanges {
  /** Distinct blobs the commit gained, each with a path (to read it from). */
  gained: readonly CommitFile[];
  /** Distinct blobs it no longer has. */
  lost: readonly string[];
  /** The commit's listed files, and the text bytes of its distinct blobs. */
  files: number;
  textBytes: number;
}

/**
 * Makes a git commit searchable through the index: builds what the scan's shards did not (blobs
 * scanned before the index existed, a shard killed before its segment was saved), then writes the
 * manifest — last, so a manifest always names complete segments covering every blob. The store is
 * asked once which segment holds each blob: a re-scan after a small commit finds all but a few.
 */
export async function indexCommit(snapshot: Snapshot, store: SearchIndexStore, options: IndexCommitOptions = {}): Promise<CommitManifest> {
  const { signal } = options;
  const commit = snapshot.source.commit;
  const existing = await store.manifest(commit);
  if (existing && !options.onIndexed) return existing;
  const files = options.files ?? (await listCommit(snapshot, signal));
  const blobs = [...new Set(files.map((file) => file.blob))];
  // Without a look-up started before, every blob is lacking: one look-up either way.
  const segmentOf = (await options.segmentsBefore) ?? new Map<string, string>();
  const lacking = blobs.filter((blob) => !segmentOf.has(blob));
  if (lacking.length > 0) for (const [blob, segment] of await store.segmentsOf(lacking)) segmentOf.set(blob, segment);
  await buildUncovered(snapshot, store, files, segmentOf, options);
  const blobsPerSegment = new Map<string, number>();
  for (const blob of blobs) {
    const segment = segmentOf.get(blob) as string;
    blobsPerSegment.set(segment, (blobsPerSegment.get(segment) ?? 0) + 1);
  }
  const state: CommitIndexState = {
    commit,
    blobsPerSegment,
    segmentBytes: await store.segmentSizes([...blobsPerSegment.keys()]),
    files: files.length,
    textBytes: existing?.textBytes ?? (options.textBytes ? await options.textBytes(blobs) : await textBytesOf(snapshot, files)),
  };
  return saveManifest(store, existing, state, options);
}

/**
 * `indexCommit` for a commit that differs from the one `base` describes by `changes`: segments
 * are looked up (or built) for the blobs gained and lost only. `base` is updated into the commit's
 * state, which `onIndexed` receives.
 */
export async function indexCommitChanges(snapshot: Snapshot, store: SearchIndexStore, base: CommitIndexState, changes: CommitIndexChanges, options: Omit<IndexCommitOptions, 'files' | 'textBytes' | 'segmentsBefore'> = {}): Promise<CommitManifest> {
  const existing = await store.manifest(snapshot.source.commit);
  const segmentOf = await store.segmentsOf([...changes.gained.map((file) => file.blob), ...changes.lost]);
  await buildUncovered(snapshot, store, changes.gained, segmentOf, options);
  const { blobsPerSegment, segmentBytes } = base;
  for (const blob of changes.lost) {
    const segment = segmentOf.get(blob);
    if (segment === undefined) throw new Error(`blob ${blob} of ${base.commit} has no segment`);
    const count = (blobsPerSegment.get(segment) ?? 0) - 1;
    if (count > 0) blobsPerSegment.set(segment, count);
    else {
      blobsPerSegment.delete(segment);
      segmentBytes.delete(segment);
    }
  }
  for (const file of changes.gained) {
    const segment = segmentOf.get(file.blob) as string;
    blobsPerSegment.set(segment, (blobsPerSegment.get(segment) ?? 0) + 1);
  }
  const unsized = [...blobsPerSegment.keys()].filter((segment) => !segmentBytes.has(segment));
  if (unsized.length > 0) for (const [segment, size] of await store.segmentSizes(unsized)) segmentBytes.set(segment, size);
  const state: CommitIndexState = { commit: snapshot.source.commit, blobsPerSegment, segmentBytes, files: changes.files, textBytes: changes.textBytes };
  return saveManifest(store, existing, state, options);
}

/**
 * Builds the segments of the files' blobs that `segmentOf` lacks (blobs scanned before the index
 * existed, a shard killed before its segment was saved), adding them to `segmentOf`.
 */
async function buildUncovered(snapshot: Snapshot, store: SearchIndexStore, files: readonly CommitFile[], segmentOf: Map<string, string>, options: IndexBuildOptions): Promise<void> {
  const uncovered = new Map<string, CommitFile>();
  for (const file of files) if (!segmentOf.has(file.blob) && !uncovered.has(file.blob)) uncovered.set(file.blob, file);
  if (uncovered.size > 0) {
    const build = new IndexBuild(snapshot, [...uncovered.values()], store, options);
    await build.finish();
    for (const [blob, segment] of build.saved) segmentOf.set(blob, segment);
    // Blobs another build saved meanwhile (two scans of neighbouring commits at once).
    const stillMissing = [...uncovered.keys()].filter((blob) => !segmentOf.has(blob));
    if (stillMissing.length > 0) for (const [blob, segment] of await store.segmentsOf(stillMissing)) segmentOf.set(blob, segment);
  }
  const missing = files.filter((file) => !segmentOf.has(file.blob));
  if (missing.length > 0) throw new Error(`${missing.length} blobs have no segment after the build (first: ${missing[0].path})`);
}

/** The manifest of a commit's state, saved last (unless one is saved already), so a manifest always names complete segments. */
export async function saveManifest(store: SearchIndexStore, existing: CommitManifest | undefined, state: CommitIndexState, options: Pick<IndexCommitOptions, 'onIndexed'>): Promise<CommitManifest> {
  const segments = [...state.blobsPerSegment.keys()].sort();
  const manifest: CommitManifest = existing ?? {
    commit: state.commit,
    segments,
    files: state.files,
    textBytes: state.textBytes,
    indexBytes: segments.reduce((sum, segment) => sum + (state.segmentBytes.get(segment) ?? 0), 0),
  };
  if (!existing) await store.saveManifest(manifest);
  options.onIndexed?.(state);
  return manifest;
}

/** Bytes of the commit's distinct blobs, from the snapshot's measures (cached per blob by the scan). */
async function textBytesOf(snapshot: Snapshot, files: readonly CommitFile[]): Promise<number> {
  const firstOfBlob = new Map<string, string>();
  for (const file of files) if (!firstOfBlob.has(file.blob)) firstOfBlob.set(file.blob, file.path);
  let bytes = 0;
  await snapshot.measure([...firstOfBlob.values()], (_path, measure) => {
    if (measure.kind === 'text') bytes += measure.bytes;
  });
  return bytes;
}

/**
 * The indexed commits a process has opened, by commit, a few at a time: a commit's listing and
 * segments are opened once and serve every later query. A commit without a manifest is not
 * indexed (undefined): the caller searches cold. Snapshots of directories are never indexed.
 */
export class IndexedCommits {
  private readonly open = new Map<string, Promise<IndexedCommit | undefined>>();

  constructor(
    private readonly store: SearchIndexStore,
    private readonly cache: SegmentCache,
    private readonly keep = 4,
  ) {}

  async forSnapshot(snapshot: Snapshot, signal?: AbortSignal): Promise<IndexedCommit | undefined> {
    if (snapshot.kind !== 'git') return undefined;
    const commit = snapshot.source.commit;
    let loading = this.open.get(commit);
    if (loading) {
      // Most recently used last.
      this.open.delete(commit);
      this.open.set(commit, loading);
      const found = await loading;
      if (found) return found;
    }
    loading = this.load(snapshot, commit, signal);
    this.open.set(commit, loading);
    loading.then((found) => found === undefined && this.open.get(commit) === loading && this.open.delete(commit), () => this.open.delete(commit));
    while (this.open.size > this.keep) {
      const [oldest, promise] = this.open.entries().next().value as [string, Promise<IndexedCommit | undefined>];
      this.open.delete(oldest);
      void promise.then((found) => found?.close(), () => undefined);
    }
    return loading;
  }

  private async load(snapshot: Snapshot, commit: string, signal?: AbortSignal): Promise<IndexedCommit | undefined> {
    const manifest = await this.store.manifest(commit);
    if (!manifest) return undefined;
    const files = await listCommit(snapshot, signal);
    const segments: SegmentReader[] = [];
    try {
      for (const id of manifest.segments) segments.push(await this.cache.open(id));
    } catch (error) {
      for (const segment of segments) segment.close();
      throw error;
    }
    return new IndexedCommit(commit, files, segments);
  }

  close(): void {
    for (const promise of this.open.values()) void promise.then((found) => found?.close(), () => undefined);
    this.open.clear();
  }
}

/** The scan's hook (blob-scan's ShardIndexer): each shard builds the segment of its new blobs from the bytes it measures. */
export function shardIndexer(store: SearchIndexStore, segments?: SegmentSinks): { start(snapshot: Snapshot, files: readonly IndexFile[], signal?: AbortSignal): IndexBuild } {
  return { start: (snapshot, files, signal) => new IndexBuild(snapshot, files, store, { signal, segments }) };
}

/**
 * How to search a snapshot: its working tree (a checkout of the commit in the cache), through the
 * commit's index when it has one. An index that cannot be opened (a segment missing from the
 * store) is passed over: the search is cold, and as exact.
 */
export async function snapshotSearch(
  snapshot: Snapshot,
  commits: IndexedCommits | undefined,
  signal?: AbortSignal,
): Promise<{ root: string; search: SearchFunction; indexed: boolean }> {
  const [root, commit] = await Promise.all([snapshot.workingTree(signal), commits?.forSnapshot(snapshot, signal).catch(() => undefined)]);
  return { root, search: (request, options) => searchIndexed(request, commit, options), indexed: commit !== undefined };
}

/**
 * `POST /v1/search` and `quarry search` of a git URL: its ref pinned to a commit now, the commit
 * opened from `provider`'s cache, its working tree searched through the commit's index when a
 * scan built one (else read cold, with the same answer), the snapshot closed after.
 */
export async function answerSourceSearch(
  provider: Pick<SnapshotProvider, 'resolve' | 'open'>,
  source: { git: string; ref?: string },
  input: SearchInput,
  options: { commits?: IndexedCommits; timeoutMs?: number; signal?: AbortSignal },
): Promise<SearchAnswer> {
  const pinned = await provider.resolve(source, options.signal);
  const snapshot = await provider.open(pinned, options.signal);
  try {
    const { root, search } = await snapshotSearch(snapshot, options.commits, options.signal);
    return { ...(await answerSearch(root, input, { timeoutMs: options.timeoutMs, signal: options.signal, search })), commit: pinned.commit };
  } finally {
    snapshot.close();
  }
}

/**
 * Where the search index keeps each commit's state for the next commit's scan (blob-scan's
 * StateMemory: this process's memory, and Postgres for every worker).
 */
export interface IndexStates {
  take<T>(key: { repository: string; kind: string; commit: string }, decode: (json: unknown) => T | undefined): Promise<T | undefined>;
  keep<T>(key: { repository: string; kind: string; commit: string }, state: T, encode: (state: T) => unknown): Promise<void>;
}

/** What changed since the remembered scan of commit `base`, as the scan that updated it knows it. */
export interface ScannedChanges {
  base: string;
  /** Distinct blobs the commit gained, a path each. */
  gained: readonly CommitFile[];
  /** Distinct blobs it no longer has. */
  lost: readonly string[];
  /** The facts of both. */
  facts: ReadonlyMap<string, FileMeasure>;
  /** The commit's listed files. */
  files: number;
}

/**
 * The search index of each commit a worker scans, written as the scan's last step (the scan's
 * `CommitIndexStep`): from the changed blobs alone (`indexCommitChanges`) when the scan worked on
 * the changes from a remembered commit whose index is remembered too, else from the scan's listing
 * and facts (`indexCommit`). A directory changes under the index, so only commits are indexed.
 */
export class ScanIndexing {
  constructor(
    private readonly store: SearchIndexStore,
    private readonly states: IndexStates,
  ) {}

  /** The step of one scan of a commit of `repository`: it starts the look-up of the commit's segments as soon as the scan lists its blobs. */
  forCommit(repository: string) {
    let segmentsBefore: Promise<Map<string, string>> | undefined;
    return {
      listed: (blobs: ReadonlySet<string>) => {
        segmentsBefore = this.store.segmentsOf([...blobs]);
        segmentsBefore.catch(() => undefined); // awaited by indexCommit
      },
      assembled: async (snapshot: Snapshot, commit: { files: readonly CommitFile[]; facts: ReadonlyMap<string, FileMeasure> }, signal: AbortSignal) => {
        // The scan's own listing and facts: nothing is listed, looked up or measured twice.
        await this.remembering(repository, (onIndexed) =>
          indexCommit(snapshot, this.store, { signal, files: commit.files, textBytes: async (blobs) => textBytesAmong(blobs, commit.facts), segmentsBefore, onIndexed }),
        );
      },
      changed: async (snapshot: Snapshot, changes: ScannedChanges, signal: AbortSignal) => {
        const base = await this.states.take({ repository, kind: INDEX_STATE, commit: changes.base }, decodeIndexState);
        await this.remembering(repository, (onIndexed) => {
          if (!base) return indexCommit(snapshot, this.store, { signal, onIndexed });
          const { gained, lost, facts, files } = changes;
          const textBytes = base.textBytes + textBytesAmong(gained.map((file) => file.blob), facts) - textBytesAmong(lost, facts);
          return indexCommitChanges(snapshot, this.store, base, { gained, lost, files, textBytes }, { signal, onIndexed });
        });
      },
    };
  }

  /** Runs an index write, then keeps the commit's index state it reported for the next commit's scan. */
  private async remembering(repository: string, write: (onIndexed: (state: CommitIndexState) => void) => Promise<CommitManifest>): Promise<CommitManifest> {
    let indexed: CommitIndexState | undefined;
    const manifest = await write((state) => void (indexed = state));
    if (indexed) await this.states.keep({ repository, kind: INDEX_STATE, commit: indexed.commit }, indexed, encodeIndexState);
    return manifest;
  }
}

const INDEX_STATE = 'search-index';

function encodeIndexState(state: CommitIndexState): unknown {
  return { version: 1, commit: state.commit, blobsPerSegment: [...state.blobsPerSegment], segmentBytes: [...state.segmentBytes], files: state.files, textBytes: state.textBytes };
}

function decodeIndexState(json: unknown): CommitIndexState | undefined {
  const data = json as { version?: number; commit?: string; blobsPerSegment?: Array<[string, number]>; segmentBytes?: Array<[string, number]>; files?: number; textBytes?: number };
  if (data.version !== 1 || typeof data.commit !== 'string' || !Array.isArray(data.blobsPerSegment) || !Array.isArray(data.segmentBytes) || typeof data.files !== 'number' || typeof data.textBytes !== 'number') return undefined;
  return { commit: data.commit, blobsPerSegment: new Map(data.blobsPerSegment), segmentBytes: new Map(data.segmentBytes), files: data.files, textBytes: data.textBytes };
}

/** Bytes of the text blobs among `blobs`, from a scan's facts. */
function textBytesAmong(blobs: readonly string[], facts: ReadonlyMap<string, FileMeasure>): number {
  let bytes = 0;
  for (const blob of blobs) {
    const measure = facts.get(blob);
    if (measure?.kind === 'text') bytes += measure.bytes;
  }
  return bytes;
}
