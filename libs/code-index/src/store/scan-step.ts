import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ScanResult } from '@quarry/contracts';
import { languageOf } from '@quarry/workspace';
import type { BlobIndexer } from '../index/blob-index';
import { blobIndexKey, distinctKeys, indexVariant, type BlobIndexBrief, type BlobIndexStore, type EncodedBlobIndex } from './blob-index-store';
import { DEFAULT_TOKEN_ENCODING } from '../tokens/token-counter';
import { indexMissingBlobs, sharedBlobIndexer, type BlobFile } from './index-blobs';

/** The compiled module a shard thread loads to index its blobs (thread-derivation.ts). */
const THREAD_MODULE = path.join(__dirname, 'thread-derivation.js');

type Readable = { readFile(path: string): Promise<Buffer | undefined>; prefetch?(paths: readonly string[], signal?: AbortSignal): Promise<void> };

/**
 * The code index as part of a scan (`@quarry/blob-scan`'s BlobDerivation): each shard indexes
 * its blobs that have no row yet (read, indexed, stored, dropped: a shard's memory is one file and
 * a batch of rows), and the scan result gets `tokens` and `symbols` summed from the rows of the
 * commit's files — whichever workers computed them, so 1 or N workers give equal totals.
 */
export class CodeIndexScanStep {
  private readonly indexer: () => Promise<BlobIndexer>;
  private readonly indexesInThreads: boolean;

  /**
   * `indexer`: a custom one (tests); without it, shard threads can index with their own (`inThreads`).
   * `chunks: false`: rows without retrieval's chunk rows, for a scan whose rows no question will read.
   */
  constructor(
    private readonly store: BlobIndexStore,
    indexer?: () => Promise<BlobIndexer>,
    private readonly options: { chunks?: boolean } = {},
  ) {
    this.indexer = indexer ?? (() => sharedBlobIndexer(DEFAULT_TOKEN_ENCODING, options));
    this.indexesInThreads = indexer === undefined && existsSync(THREAD_MODULE);
  }

  /**
   * Shard threads index their own blobs (a thread's indexer is the shared default one, so only a
   * step without a custom indexer, running from the compiled build, can hand its work to them).
   */
  inThreads(): { spec: { module: string; settings: unknown }; accept: (rows: unknown) => Promise<number> } | undefined {
    if (!this.indexesInThreads) return undefined;
    return { spec: { module: THREAD_MODULE, settings: { encoding: DEFAULT_TOKEN_ENCODING, chunks: this.options.chunks !== false } }, accept: (rows) => this.store.recordEncoded(rows as EncodedBlobIndex[]) };
  }

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

  /**
   * The code index's totals over a commit's files, which a re-scan of a next commit updates with
   * the files that changed (`update`) rather than summing every file again.
   */
  async summarize(snapshot: Readable, files: readonly BlobFile[], signal?: AbortSignal): Promise<BriefTotals> {
    const indexer = await this.indexer();
    const totals = new BriefTotals(indexer.encoding, this);
    await totals.update(snapshot, { added: files, removed: [] }, signal);
    return totals;
  }

  /** Totals from `BriefTotals.toJSON` (a remembered scan), or undefined when they are not in this step's encoding. */
  async restore(json: unknown): Promise<BriefTotals | undefined> {
    return BriefTotals.fromJSON(json, (await this.indexer()).encoding, this);
  }

  /**
   * The briefs of these files, by `blobIndexKey`, indexing first (from `snapshot`, when given)
   * those no row holds yet: a scan whose shards ran without the step.
   */
  async briefsOf(snapshot: Readable | undefined, files: readonly BlobFile[], signal?: AbortSignal): Promise<Map<string, BlobIndexBrief>> {
    if (files.length === 0) return new Map();
    const indexer = await this.indexer();
    const keys = distinctKeys(files);
    let briefs = await this.store.briefs(keys, indexer.encoding);
    if (snapshot && briefs.size < keys.length) {
      await indexMissingBlobs(files, { store: this.store, indexer, read: (path) => snapshot.readFile(path), signal, prefetch: (paths) => snapshot.prefetch?.(paths, signal) });
      briefs = await this.store.briefs(keys, indexer.encoding);
    }
    return briefs;
  }
}

type TokenRow<K extends string> = { [key in K]: string } & { files: number; tokens: number };

interface BriefTotalsJson {
  version: 1;
  encoding: string;
  /** total, definitions, warnings, parsed, failed, skipped */
  counts: [number, number, number, number, number, number];
  languages: TokenRow<'language'>[];
  directories: TokenRow<'path'>[];
}

/**
 * Running `tokens` and `symbols` of a scan result over a commit's files: per language (the scan's
 * language of the path; "Other" for none) and per top-level directory, largest first. A file
 * whose row is missing (unreadable) counts nowhere, like in the scan's own totals. Files are added
 * and taken back (a re-scan's changes), and the result is that of summing the files now counted.
 */
export class BriefTotals {
  private readonly languages = new Map<string, TokenRow<'language'>>();
  private readonly directories = new Map<string, TokenRow<'path'>>();
  private readonly parse = { parsed: 0, failed: 0, skipped: 0 };
  private total = 0;
  private definitions = 0;
  private warnings = 0;

  constructor(
    private readonly encoding: string,
    private readonly step?: CodeIndexScanStep,
  ) {}

  /** Takes back `removed` and adds `added`, with their briefs (rows still missing for `added` are indexed first, from `snapshot`). */
  async update(snapshot: Readable, changes: { added: readonly BlobFile[]; removed: readonly BlobFile[] }, signal?: AbortSignal): Promise<void> {
    if (!this.step) throw new Error('BriefTotals.update needs the scan step');
    // A removed file was counted with its row, which every file summed has (or none, unreadable).
    const [added, removed] = await Promise.all([this.step.briefsOf(snapshot, changes.added, signal), this.step.briefsOf(undefined, changes.removed, signal)]);
    for (const file of changes.removed) this.count(file, removed, -1);
    for (const file of changes.added) this.count(file, added, 1);
  }

  /** Counts a file (sign 1) or takes it back (-1). */
  count(file: BlobFile, briefs: ReadonlyMap<string, BlobIndexBrief>, sign: 1 | -1): void {
    const brief = briefs.get(blobIndexKey(file.blob, indexVariant(file.path)));
    if (brief === undefined || brief.binary) return;
    this.definitions += sign * brief.definitions;
    this.warnings += sign * brief.warnings;
    if (brief.symbols !== 'unsupported') this.parse[brief.symbols] += sign;
    this.total += sign * brief.tokens;
    const language = languageOf(file.path) ?? 'Other';
    addTokens(this.languages, 'language', language, sign, brief.tokens);
    const slash = file.path.indexOf('/');
    addTokens(this.directories, 'path', slash === -1 ? '.' : file.path.slice(0, slash), sign, brief.tokens);
  }

  toJSON(): BriefTotalsJson {
    return {
      version: 1,
      encoding: this.encoding,
      counts: [this.total, this.definitions, this.warnings, this.parse.parsed, this.parse.failed, this.parse.skipped],
      languages: [...this.languages.values()].map((row) => ({ ...row })),
      directories: [...this.directories.values()].map((row) => ({ ...row })),
    };
  }

  /** Totals from `toJSON`'s output in `encoding`; undefined for anything else. */
  static fromJSON(json: unknown, encoding: string, step?: CodeIndexScanStep): BriefTotals | undefined {
    const data = json as Partial<BriefTotalsJson> | undefined;
    if (data?.version !== 1 || typeof data.encoding !== 'string' || !Array.isArray(data.counts) || !Array.isArray(data.languages) || !Array.isArray(data.directories)) return undefined;
    if (data.encoding !== encoding) return undefined;
    const totals = new BriefTotals(data.encoding, step);
    [totals.total, totals.definitions, totals.warnings, totals.parse.parsed, totals.parse.failed, totals.parse.skipped] = data.counts;
    for (const row of data.languages) totals.languages.set(row.language, { ...row });
    for (const row of data.directories) totals.directories.set(row.path, { ...row });
    return totals;
  }

  result(): Pick<ScanResult, 'tokens' | 'symbols'> {
    const largestFirst = <T extends { tokens: number }>(rows: Iterable<T>, key: (row: T) => string) =>
      [...rows].map((row) => ({ ...row })).sort((a, b) => b.tokens - a.tokens || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    return {
      tokens: { total: this.total, encoding: this.encoding, byLanguage: largestFirst(this.languages.values(), (row) => row.language), byDirectory: largestFirst(this.directories.values(), (row) => row.path) },
      symbols: { definitions: this.definitions, files: { ...this.parse }, warnings: this.warnings },
    };
  }
}

/** Adds a file's tokens to its row (made when missing, dropped when its last file is taken back). */
function addTokens<K extends 'language' | 'path'>(rows: Map<string, TokenRow<K>>, field: K, key: string, sign: 1 | -1, tokens: number): void {
  const row = rows.get(key);
  if (!row) {
    rows.set(key, { [field]: key, files: sign, tokens: sign * tokens } as TokenRow<K>);
    return;
  }
  row.files += sign;
  row.tokens += sign * tokens;
  if (row.files === 0) rows.delete(key);
}

/** `tokens` and `symbols` of a scan result from the briefs of a commit's files (see BriefTotals). */
export function summarizeBriefs(files: readonly BlobFile[], briefs: ReadonlyMap<string, BlobIndexBrief>, encoding: string): Pick<ScanResult, 'tokens' | 'symbols'> {
  const totals = new BriefTotals(encoding);
  for (const file of files) totals.count(file, briefs, 1);
  return totals.result();
}
