import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { JobProgress } from '@quarry/contracts';
import { decodeText, type BlobIndex, type IndexedTree, buildBlobChunks, decodeBlobChunks, encodeBlobChunks } from '@quarry/code-index';
import { ContextCorpusBuilder, type ContextCorpus } from '../corpus/context-corpus';

export interface ContextCorpusOptions {
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
}

/** Chunking is synchronous; the event loop gets a turn at least this often (progress, cancel). */
const SLICE_MS = 50;

/**
 * The retrieval corpus of indexed trees, for a process of its own (`quarry context --local`, the
 * MCP server in-process) and the worker. Each file's chunk row is part of its code index: computed
 * by `BlobIndexer.index` (the scan's shards, or this process's code index cache, which re-indexes
 * one file after an edit) and carried encoded by the `BlobIndex` or, for rows loaded from a store,
 * loaded through the tree's `storedChunks`. So a corpus on an indexed tree reads no file: it
 * decodes the rows a file at a time into a `ContextCorpusBuilder` (a kernel tree's rows are
 * ~270 MB encoded, several GB as objects; only the compact corpus stays). The corpus of each tree
 * state is kept (the last few) so repeated questions on one tree only rank.
 *
 * A row without a chunk section (an index made by other code, or of another chunking version) is
 * chunked here from the file's text, and that row kept beside its `BlobIndex` for the next tree.
 */
export class ContextCorpusCache {
  private readonly rows = new WeakMap<BlobIndex, Buffer>();
  /** Files chunked from their text, over every corpus built: 0 while the code index carries every row. */
  chunkedFromText = 0;
  /** Most recently used last. */
  private readonly corpora = new Map<string, Promise<ContextCorpus>>();

  constructor(private readonly maxTrees = 2) {}

  corpus(tree: IndexedTree, read: (path: string) => Promise<Buffer | undefined>, options: ContextCorpusOptions = {}): Promise<ContextCorpus> {
    const key = `${tree.root}\0${tree.state}`;
    const cached = this.corpora.get(key);
    if (cached !== undefined) {
      this.corpora.delete(key);
      this.corpora.set(key, cached);
      return cached;
    }
    const building = this.build(tree, read, options);
    this.corpora.set(key, building);
    building.catch(() => this.corpora.get(key) === building && this.corpora.delete(key));
    while (this.corpora.size > this.maxTrees) this.corpora.delete(this.corpora.keys().next().value as string);
    return building;
  }

  private async build(tree: IndexedTree, read: (path: string) => Promise<Buffer | undefined>, options: ContextCorpusOptions): Promise<ContextCorpus> {
    const builder = new ContextCorpusBuilder();
    const total = tree.files.length;
    // The builder takes files in path order.
    const files = [...tree.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    // A tree loaded from a store gets its chunk rows now (encoded: ~270 MB for a kernel, dropped after the build).
    if (tree.storedChunks) options.onProgress?.({ stage: 'chunking', done: 0, total, message: 'loading stored chunk rows' });
    const stored = (await tree.storedChunks?.()) ?? new Map<string, Uint8Array>();
    let fromText = 0;
    let sliceStarted = performance.now();
    for (const [done, file] of files.entries()) {
      if (file.index.binary) continue;
      if (performance.now() - sliceStarted > SLICE_MS) {
        options.signal?.throwIfAborted();
        options.onProgress?.({ stage: 'chunking', done, total, message: file.path });
        await yieldToEventLoop();
        sliceStarted = performance.now();
      }
      const row = file.index.chunks ?? stored.get(file.path) ?? this.rows.get(file.index);
      let chunks = row === undefined ? undefined : decodeBlobChunks(row);
      if (chunks === undefined) {
        const content = await read(file.path);
        if (content === undefined) continue; // gone since it was indexed
        chunks = buildBlobChunks({ text: decodeText(content), definitions: file.index.definitions });
        this.rows.set(file.index, encodeBlobChunks(chunks));
        fromText++;
      }
      builder.add({ path: file.path, definitions: file.index.definitions, references: file.index.references, chunks });
    }
    this.chunkedFromText += fromText;
    options.onProgress?.({ stage: 'chunked', done: total, total, message: `${builder.fileCount} files, ${fromText} chunked from their text` });
    return builder.build();
  }
}

let shared: ContextCorpusCache | undefined;

/** One cache per process for callers that do not bring their own (the CLI, tests). */
export function sharedContextCorpusCache(): ContextCorpusCache {
  return (shared ??= new ContextCorpusCache());
}
