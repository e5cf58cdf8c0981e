import type { SearchFunction } from '@quarry/search';
import { blobId, type Snapshot } from '@quarry/snapshot';
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
    private readonly snapshot: Snapshot,
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
  if (existing) return existing;
  const files = options.files ?? (await listCommit(snapshot, signal));
  const blobs = [...new Set(files.map((file) => file.blob))];
  // Without a look-up started before, every blob is lacking: one look-up either way.
  const segmentOf = (await options.segmentsBefore) ?? new Map<string, string>();
  const lacking = blobs.filter((blob) => !segmentOf.has(blob));
  if (lacking.length > 0) for (const [blob, segment] of await store.segmentsOf(lacking)) segmentOf.set(blob, segment);
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
  const segments = [...new Set(segmentOf.values())].sort();
  const sizes = await store.segmentSizes(segments);
  const manifest: CommitManifest = {
    commit,
    segments,
    files: files.length,
    textBytes: options.textBytes ? await options.textBytes(blobs) : await textBytesOf(snapshot, files),
    indexBytes: [...sizes.values()].reduce((sum, size) => sum + size, 0),
  };
  await store.saveManifest(manifest);
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
