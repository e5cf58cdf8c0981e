import { createHash } from 'node:crypto';
import type { JobInput, JobProgress } from '@quarry/contracts';
import { isBinaryContent, languageOf, secretPathReason } from '@quarry/workspace';
import { decodeText, type BlobIndex, type BlobIndexer } from '../index/blob-index';
import { indexedTree, type IndexedFile, type IndexedTree } from '../index/indexed-tree';
import { writePackReporting, type PackTreeResult } from '../pack/pack-report';
import { validateCodeIndexInput } from '../validate-input';
import { compilePathFilter, validatePatterns } from '../pack/path-filter';
import type { PackSink } from '../pack/sinks';
import { writePack, type PackFile } from '../pack/write-pack';
import { DEFAULT_TOKEN_ENCODING, type TokenEncoding } from '../tokens/token-counter';
import { blobIndexKey, distinctKeys, indexVariant, type BlobIndexBrief, type BlobIndexStore } from './blob-index-store';
import { indexMissingBlobs, type BlobFile } from './index-blobs';

/**
 * What the code index needs of a repository snapshot (`@quarry/snapshot`'s Snapshot has it all):
 * the files git would see, each file's blob id, and its bytes.
 */
export interface IndexableSnapshot {
  /** The directory, or `url@commit`-like name: the tree's `root` in results. */
  readonly root: string;
  walk(options?: { signal?: AbortSignal }): Promise<{ files: string[] }>;
  entry(path: string): Promise<{ blob: string } | undefined>;
  readFile(path: string): Promise<Buffer | undefined>;
  /** Makes these files local in one batch before they are read one by one (a git snapshot's missing blobs). */
  prefetch?(paths: readonly string[], signal?: AbortSignal): Promise<void>;
  /**
   * A scan's measure of files (binary or text, and bytes), streamed one blob at a time and
   * remembered per blob by a git snapshot: how pack learns what it needs of unindexed files.
   */
  measure?(paths: readonly string[], onMeasured: (path: string, measure: { kind: string; bytes?: number }) => void, options?: { signal?: AbortSignal }): Promise<void>;
}

export interface SnapshotFiles {
  /** Sorted by path; credential files (`.env`, keys) left out. */
  files: BlobFile[];
  secretFiles: number;
  /** A hash of every (path, blob): the tree's identity for caches. */
  state: string;
}

export interface SnapshotIndexOptions {
  store: BlobIndexStore;
  /** In the encoding the caller wants the rows in. */
  indexer: BlobIndexer;
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
}

const ENTRY_CONCURRENCY = 16;

/** The snapshot's files with their blob ids (a git tree lists them; a directory's are hashed). */
export async function listSnapshotFiles(snapshot: IndexableSnapshot, signal?: AbortSignal): Promise<SnapshotFiles> {
  const walked = await snapshot.walk({ signal });
  const candidates = walked.files.filter((file) => secretPathReason(file) === undefined).sort();
  const found: (BlobFile | undefined)[] = new Array(candidates.length);
  let next = 0;
  const lane = async () => {
    while (next < candidates.length) {
      const index = next++;
      if (index % 1024 === 0) signal?.throwIfAborted();
      const entry = await snapshot.entry(candidates[index]);
      if (entry !== undefined) found[index] = { path: candidates[index], blob: entry.blob };
    }
  };
  await Promise.all(Array.from({ length: ENTRY_CONCURRENCY }, lane));
  const files = found.filter((file): file is BlobFile => file !== undefined);
  const hash = createHash('sha1');
  for (const file of files) hash.update(`${file.path}\0${file.blob}\n`);
  return { files, secretFiles: walked.files.length - candidates.length, state: hash.digest('hex') };
}

/**
 * A snapshot's code index from the stored per-blob rows (any worker's, any commit's): the rows
 * of the tree's blobs are loaded, the few missing are computed here and stored for the next
 * caller. The result is what `findSymbols`, `mapTree` and `@symbol:` read; retrieval reads the
 * rows' chunk sections through its `storedChunks`.
 */
export async function indexSnapshotTree(snapshot: IndexableSnapshot, listing: SnapshotFiles, options: SnapshotIndexOptions): Promise<IndexedTree> {
  const { store, indexer, signal, onProgress } = options;
  const total = listing.files.length;
  onProgress?.({ stage: 'indexing', done: 0, total, message: 'loading stored indexes' });
  const indexes: Map<string, BlobIndex> = await store.load(distinctKeys(listing.files), indexer.encoding);
  const missing = listing.files.filter((file) => !indexes.has(blobIndexKey(file.blob, indexVariant(file.path))));
  if (missing.length > 0) {
    await snapshot.prefetch?.(missing.map((file) => file.path), signal);
    await indexMissingBlobs(missing, {
      store,
      indexer,
      read: (path) => snapshot.readFile(path),
      signal,
      onProgress: (done) => onProgress?.({ stage: 'indexing', done: total - missing.length + done, total, message: `${missing.length} files not indexed before` }),
      onIndexed: (file, index) => indexes.set(blobIndexKey(file.blob, indexVariant(file.path)), index),
    });
  }
  const files: IndexedFile[] = [];
  for (const file of listing.files) {
    const index = indexes.get(blobIndexKey(file.blob, indexVariant(file.path)));
    if (index !== undefined) files.push({ path: file.path, index });
  }
  onProgress?.({ stage: 'indexed', done: total, total, message: `${files.length} files, ${total - missing.length} from stored indexes` });
  // Loaded rows come without their chunk rows; retrieval asks for them when it builds a corpus.
  const storedChunks = async () => {
    const wanted = listing.files.filter((file) => indexes.get(blobIndexKey(file.blob, indexVariant(file.path)))?.chunks === undefined);
    const rows = wanted.length === 0 ? new Map<string, Uint8Array>() : await store.loadChunks(distinctKeys(wanted), indexer.encoding);
    const byPath = new Map<string, Uint8Array>();
    for (const file of wanted) {
      const row = rows.get(blobIndexKey(file.blob, indexVariant(file.path)));
      if (row !== undefined) byPath.set(file.path, row);
    }
    return byPath;
  };
  return indexedTree(snapshot.root, listing.state, files, listing.secretFiles, storedChunks);
}

type PackInput = Omit<JobInput<'pack'>, 'root' | 'source'>;

export interface SnapshotPackOptions extends Omit<SnapshotIndexOptions, 'indexer'> {
  title?: string;
  /**
   * The indexer whose grammars `compress` uses, asked for only by a compressed pack: the others
   * need no parser, and the grammars are ~25 MB of a worker's memory.
   */
  indexer: () => Promise<BlobIndexer>;
}

/**
 * `pack` of a snapshot, from the stored briefs of its blobs (tokens, size, binary; written by the
 * scan's shards) and, for the rare blob with credentials, its stored findings: a pack after a scan
 * neither counts nor searches anything again. A file no scan indexed is probed for binary content
 * and counted and searched as it is written — the pack needs no parse, so it does not pay for one
 * (nor store a row: a row is the whole index). Memory holds the file list and briefs (tens of
 * bytes a file) and pack's read-ahead window, never the document or all indexes.
 */
export async function packSnapshot(snapshot: IndexableSnapshot, input: PackInput, sink: PackSink, options: SnapshotPackOptions): Promise<PackTreeResult> {
  validateCodeIndexInput('pack', input as Record<string, unknown>);
  const { store, signal, onProgress } = options;
  const encoding = (input.encoding ?? DEFAULT_TOKEN_ENCODING) as TokenEncoding;
  const listing = await listSnapshotFiles(snapshot, signal);
  const selected = compilePathFilter({ include: validatePatterns(input.include, 'include'), ignore: validatePatterns(input.ignore, 'ignore') });
  const wanted = listing.files.filter((file) => selected(file.path));
  const briefs = await store.briefs(distinctKeys(wanted), encoding);
  const keyOf = (file: BlobFile) => blobIndexKey(file.blob, indexVariant(file.path));
  // Findings are in the full rows: loaded only for the blobs that have any.
  const withSecrets = wanted.filter((file) => (briefs.get(keyOf(file))?.secrets ?? 0) > 0);
  const secretsOf = new Map<string, BlobIndex['secrets']>();
  if (withSecrets.length > 0) {
    for (const [key, index] of await store.load(distinctKeys(withSecrets), encoding)) secretsOf.set(key, index.secrets);
  }
  // Every file to write is read: the ones this worker's cache lacks are fetched in one batch first.
  await snapshot.prefetch?.(wanted.map((file) => file.path), signal);
  const unindexed = wanted.filter((file) => !briefs.has(keyOf(file)));
  const measured = await measureUnindexed(snapshot, unindexed, signal);
  onProgress?.({ stage: 'packing', done: 0, total: wanted.length, message: `${wanted.length - unindexed.length} files from stored indexes` });

  const files: PackFile[] = listing.files.map((file) => {
    const key = keyOf(file);
    const brief: BlobIndexBrief | undefined = briefs.get(key);
    const read = async () => decodeText((await snapshot.readFile(file.path)) ?? Buffer.alloc(0));
    const language = languageOf(file.path);
    if (brief === undefined) {
      // Not indexed by any scan: counted and searched as it is written.
      const measure = measured.get(file.path);
      return { path: file.path, language, binary: measure === undefined || measure.kind !== 'text', ...(measure?.bytes === undefined ? {} : { bytes: measure.bytes }), read };
    }
    return { path: file.path, language, bytes: brief.bytes, binary: brief.binary, tokens: brief.tokens, encoding, secrets: secretsOf.get(key) ?? [], read };
  });
  const symbols = input.compress ? (await options.indexer()).symbols : undefined;
  return writePackReporting(files, sink, input, { encoding, symbols, title: options.title, signal, onProgress, progressTotal: wanted.length, secretFiles: listing.secretFiles });
}


/**
 * Binary or text, and the size, of files no scan indexed (the globs' selection only): through the
 * snapshot's measure, which streams one blob at a time (memory holds one file, however large its
 * neighbours: Linux keeps 10–25 MB register headers side by side) and remembers measures per blob.
 * Without one, each file is read in turn.
 */
async function measureUnindexed(snapshot: IndexableSnapshot, files: readonly BlobFile[], signal?: AbortSignal): Promise<Map<string, { kind: string; bytes?: number }>> {
  const measured = new Map<string, { kind: string; bytes?: number }>();
  if (files.length === 0) return measured;
  if (snapshot.measure) {
    await snapshot.measure(
      files.map((file) => file.path),
      (path, measure) => measured.set(path, measure),
      { signal },
    );
    return measured;
  }
  for (const file of files) {
    signal?.throwIfAborted();
    const content = await snapshot.readFile(file.path);
    if (content !== undefined) measured.set(file.path, { kind: isBinaryContent(content) ? 'binary' : 'text', bytes: content.byteLength });
  }
  return measured;
}
