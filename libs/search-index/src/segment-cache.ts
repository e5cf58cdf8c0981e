import { mkdirSync, renameSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SegmentReader } from './segment';
import type { SearchIndexStore } from './store';

const SEGMENT_ID = /^[0-9a-f]{40}$/;

/**
 * Segments on this machine's disk (`<dataDir>/search-index/segments/<id>`): fetched from the store
 * once, then opened from the file, whose pages the OS caches. A segment never changes, so a file
 * present is a file complete: it is written under a temporary name and renamed into place.
 */
export class SegmentCache {
  private readonly directory: string;

  constructor(dataDir: string, private readonly store: SearchIndexStore) {
    this.directory = path.join(dataDir, 'search-index', 'segments');
  }

  async open(id: string): Promise<SegmentReader> {
    if (!SEGMENT_ID.test(id)) throw new Error(`bad segment id ${JSON.stringify(id)}`);
    const file = path.join(this.directory, id);
    if (!existsSync(file)) {
      const data = await this.store.loadSegment(id);
      if (!data) throw new Error(`segment ${id} is missing from the store`);
      writeWhole(file, data);
    }
    return SegmentReader.fromFile(file);
  }
}

/** A file written whole or not at all (readers never see half a segment): a temporary name, then a rename. */
export function writeWhole(file: string, data: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
