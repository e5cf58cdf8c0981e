import type { ScanResult } from '@quarry/contracts';
import { languageOf } from '@quarry/workspace';
import type { BlobIndexer } from '../index/blob-index';
import { blobIndexKey, distinctKeys, indexVariant, type BlobIndexBrief, type BlobIndexStore } from './blob-index-store';
import { indexMissingBlobs, sharedBlobIndexer, type BlobFile } from './index-blobs';

type Readable = { readFile(path: string): Promise<Buffer | undefined>; prefetch?(paths: readonly string[], signal?: AbortSignal): Promise<void> };

/**
 * The code index as part of a scan (`@quarry/blob-scan`'s BlobDerivation): each shard indexes
 * its blobs that have no row yet (read, indexed, stored, dropped: a shard's memory is one file and
 * a batch of rows), and the scan result gets `tokens` and `symbols` summed from the rows of the
 * commit's files — whichever workers computed them, so 1 or N workers give equal totals.
 */
export class CodeIndexScanStep {
  constructor(
    private readonly store: BlobIndexStore,
    private readonly indexer: () => Promise<BlobIndexer> = () => sharedBlobIndexer(),
  ) {}

  async missing(files: readonly BlobFile[]): Promise<Set<string>> {
    const indexer = await this.indexer();
    const known = await this.store.briefs(distinctKeys(files), indexer.encoding);
    const missing = new Set<string>();
    for (const file of files) if (!known.has(blobIndexKey(file.blob, indexVariant(file.path)))) missing.add(file.blob);
    return missing;
  }

  async derive(snapshot: Readable, files: readonly BlobFile[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<void> {
    await indexMissingBlobs(files, { store: this.store, indexer: await this.indexer(), read: (path) => snapshot.readFile(path), signal, onProgress, prefetch: (paths) => snapshot.prefetch?.(paths, signal) });
  }

  async summarize(snapshot: Readable, files: readonly BlobFile[], signal?: AbortSignal): Promise<Pick<ScanResult, 'tokens' | 'symbols'>> {
    const indexer = await this.indexer();
    const keys = distinctKeys(files);
    let briefs = await this.store.briefs(keys, indexer.encoding);
    // The shards indexed the blobs; what no row holds yet (a scan whose shards ran without the step) is indexed here.
    if (briefs.size < keys.length) {
      await indexMissingBlobs(files, { store: this.store, indexer, read: (path) => snapshot.readFile(path), signal, prefetch: (paths) => snapshot.prefetch?.(paths, signal) });
      briefs = await this.store.briefs(keys, indexer.encoding);
    }
    return summarizeBriefs(files, briefs, indexer.encoding);
  }
}

/**
 * `tokens` and `symbols` of a scan result from the briefs of a commit's files: per language (the
 * scan's language of the path; "Other" for none) and per top-level directory, largest first.
 * A file whose row is missing (unreadable) counts nowhere, like in the scan's own totals.
 */
export function summarizeBriefs(files: readonly BlobFile[], briefs: ReadonlyMap<string, BlobIndexBrief>, encoding: string): Pick<ScanResult, 'tokens' | 'symbols'> {
  const languages = new Map<string, { language: string; files: number; tokens: number }>();
  const directories = new Map<string, { path: string; files: number; tokens: number }>();
  const parse = { parsed: 0, failed: 0, skipped: 0 };
  let total = 0;
  let definitions = 0;
  let warnings = 0;
  for (const file of files) {
    const brief = briefs.get(blobIndexKey(file.blob, indexVariant(file.path)));
    if (brief === undefined || brief.binary) continue;
    definitions += brief.definitions;
    warnings += brief.warnings;
    if (brief.symbols !== 'unsupported') parse[brief.symbols]++;
    total += brief.tokens;
    const language = languageOf(file.path) ?? 'Other';
    const languageRow = languages.get(language) ?? languages.set(language, { language, files: 0, tokens: 0 }).get(language)!;
    languageRow.files++;
    languageRow.tokens += brief.tokens;
    const slash = file.path.indexOf('/');
    const top = slash === -1 ? '.' : file.path.slice(0, slash);
    const directoryRow = directories.get(top) ?? directories.set(top, { path: top, files: 0, tokens: 0 }).get(top)!;
    directoryRow.files++;
    directoryRow.tokens += brief.tokens;
  }
  const largestFirst = <T extends { tokens: number }>(rows: Iterable<T>, key: (row: T) => string) =>
    [...rows].sort((a, b) => b.tokens - a.tokens || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return {
    tokens: { total, encoding, byLanguage: largestFirst(languages.values(), (row) => row.language), byDirectory: largestFirst(directories.values(), (row) => row.path) },
    symbols: { definitions, files: parse, warnings },
  };
}
