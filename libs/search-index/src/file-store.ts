import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { segmentFileBlobs, type BuiltSegment } from './segment';
import { writeWhole } from './segment-cache';
import type { CommitManifest, SearchIndexStore } from './store';

const SEGMENT_ID = /^[0-9a-f]{40}$/;
const COMMIT = /^[0-9a-f]{40,64}$/;

/**
 * The search index on this machine's disk, for a process without Postgres (`quarry mcp`, the
 * `--local` commands): `<dataDir>/search-index/segments/<id>` — the very directory SegmentCache
 * opens segments from, so nothing is copied — and `manifests/<commit>.json`. Segments are
 * immutable and named by their blobs, a manifest is written after every segment it names: each
 * file is written under a temporary name and renamed into place, so several processes may share
 * the directory and a killed build leaves only whole files. Which segment holds a blob is read
 * from the segments' own document tables (no second record to keep in step), once per process and
 * then for the segments other processes added since.
 */
export class FileSearchIndexStore implements SearchIndexStore {
  private readonly segmentsDirectory: string;
  private readonly manifestsDirectory: string;
  private readonly blobSegments = new Map<string, string>();
  private readonly known = new Set<string>();

  constructor(dataDir: string) {
    this.segmentsDirectory = path.join(dataDir, 'search-index', 'segments');
    this.manifestsDirectory = path.join(dataDir, 'search-index', 'manifests');
  }

  async segmentsOf(blobs: readonly string[]): Promise<Map<string, string>> {
    this.learnNewSegments();
    const found = new Map<string, string>();
    for (const blob of blobs) {
      const segment = this.blobSegments.get(blob);
      if (segment) found.set(blob, segment);
    }
    return found;
  }

  async saveSegment(segment: BuiltSegment): Promise<void> {
    const file = path.join(this.segmentsDirectory, segment.id);
    if (!existsSync(file)) writeWhole(file, segment.data);
    this.remember(segment.id, segment.blobs);
  }

  async loadSegment(id: string): Promise<Buffer | undefined> {
    if (!SEGMENT_ID.test(id)) return undefined;
    return readFile(path.join(this.segmentsDirectory, id)).catch(() => undefined);
  }

  async segmentSizes(ids: readonly string[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    for (const id of ids) {
      const size = SEGMENT_ID.test(id) ? statSync(path.join(this.segmentsDirectory, id), { throwIfNoEntry: false })?.size : undefined;
      if (size !== undefined) sizes.set(id, size);
    }
    return sizes;
  }

  async manifest(commit: string): Promise<CommitManifest | undefined> {
    if (!COMMIT.test(commit)) return undefined;
    const text = await readFile(path.join(this.manifestsDirectory, `${commit}.json`), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const manifest = JSON.parse(text) as CommitManifest;
      // A manifest whose segments another process's clean-up removed is no manifest.
      return manifest.segments.every((id) => SEGMENT_ID.test(id) && existsSync(path.join(this.segmentsDirectory, id))) ? manifest : undefined;
    } catch {
      return undefined;
    }
  }

  async saveManifest(manifest: CommitManifest): Promise<void> {
    if (!COMMIT.test(manifest.commit)) throw new Error(`bad commit ${JSON.stringify(manifest.commit)}`);
    const file = path.join(this.manifestsDirectory, `${manifest.commit}.json`);
    if (!existsSync(file)) writeWhole(file, Buffer.from(JSON.stringify(manifest)));
  }

  /** The segments written since this process last looked (by it or another): their blobs. */
  private learnNewSegments(): void {
    let names: string[];
    try {
      names = readdirSync(this.segmentsDirectory);
    } catch {
      return; // nothing written yet
    }
    for (const name of names) {
      if (!SEGMENT_ID.test(name) || this.known.has(name)) continue;
      try {
        this.remember(name, segmentFileBlobs(path.join(this.segmentsDirectory, name)));
      } catch {
        this.known.add(name); // not a segment (cut short by a full disk): never trusted
      }
    }
  }

  private remember(id: string, blobs: readonly string[]): void {
    this.known.add(id);
    for (const blob of blobs) if (!this.blobSegments.has(blob)) this.blobSegments.set(blob, id);
  }
}
