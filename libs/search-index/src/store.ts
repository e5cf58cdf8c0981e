import type { BuiltSegment } from './segment';

/** Says a commit is indexed: every blob of it is in one of these segments. Written last. */
export interface CommitManifest {
  commit: string;
  segments: string[];
  /** Files listed when it was written, and the text bytes the segments cover for them. */
  files: number;
  textBytes: number;
  indexBytes: number;
}

/**
 * Where segments and manifests live: Postgres for workers and the gateway (@quarry/db), memory
 * in tests. Segments are immutable and named by their blobs, so writes are insert-or-keep.
 */
export interface SearchIndexStore {
  /** The segment holding each of these blobs (absent blobs are missing from the map). */
  segmentsOf(blobs: readonly string[]): Promise<Map<string, string>>;
  /** The segment and its blobs' rows, in one transaction: a crash leaves all of it or none. */
  saveSegment(segment: BuiltSegment): Promise<void>;
  loadSegment(id: string): Promise<Buffer | undefined>;
  /** Sizes of segments (for a manifest's totals). */
  segmentSizes(ids: readonly string[]): Promise<Map<string, number>>;
  manifest(commit: string): Promise<CommitManifest | undefined>;
  saveManifest(manifest: CommitManifest): Promise<void>;
}

export class MemorySearchIndexStore implements SearchIndexStore {
  readonly segments = new Map<string, Buffer>();
  private readonly blobSegments = new Map<string, string>();
  readonly manifests = new Map<string, CommitManifest>();

  async segmentsOf(blobs: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const blob of blobs) {
      const segment = this.blobSegments.get(blob);
      if (segment) found.set(blob, segment);
    }
    return found;
  }

  async saveSegment(segment: BuiltSegment): Promise<void> {
    if (!this.segments.has(segment.id)) this.segments.set(segment.id, segment.data);
    for (const blob of segment.blobs) if (!this.blobSegments.has(blob)) this.blobSegments.set(blob, segment.id);
  }

  async loadSegment(id: string): Promise<Buffer | undefined> {
    return this.segments.get(id);
  }

  async segmentSizes(ids: readonly string[]): Promise<Map<string, number>> {
    return new Map(ids.filter((id) => this.segments.has(id)).map((id) => [id, (this.segments.get(id) as Buffer).length]));
  }

  async manifest(commit: string): Promise<CommitManifest | undefined> {
    return this.manifests.get(commit);
  }

  async saveManifest(manifest: CommitManifest): Promise<void> {
    if (!this.manifests.has(manifest.commit)) this.manifests.set(manifest.commit, manifest);
  }
}
