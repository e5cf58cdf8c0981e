import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { JobProgress } from '@quarry/contracts';
import { decodeText, type BlobIndex, type IndexedTree } from '@quarry/code-index';
import { buildBlobChunks } from '../chunks/blob-chunks';
import { decodeBlobChunks, encodeBlobChunks } from '../chunks/blob-chunks-store';
import { ContextCorpusBuilder, type ContextCorpus } from '../corpus/context-corpus';

export interface ContextCorpusOptions {
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
}

/** Chunking is synchronous; the event loop gets a turn at least this often (progress, cancel). */
const SLICE_MS = 50;

/**
 * The retrieval corpus of indexed trees, for a process of its own (`quarry context --local`, the
 * MCP server in-process) and the worker: each file's chunk row is computed from its text once and
 * kept beside its `BlobIndex` (the code index cache hands back the same index object while a file
 * is unchanged, so an edit re-chunks one file), and the corpus of each tree state is kept (the
 * last few) so repeated questions on one tree only rank.
 *
 * Rows are kept encoded (`encodeBlobChunks`, the stored form: a kernel tree's are ~270 MB, where
 * decoded objects would take several GB), and a corpus is built from them a file at a time
 * (`ContextCorpusBuilder`): only the compact corpus stays.
 */
export class ContextCorpusCache {
  private readonly rows = new WeakMap<BlobIndex, Buffer>();
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
    let sliceStarted = performance.now();
    for (const [done, file] of files.entries()) {
      if (file.index.binary) continue;
      if (performance.now() - sliceStarted > SLICE_MS) {
        options.signal?.throwIfAborted();
        options.onProgress?.({ stage: 'chunking', done, total, message: file.path });
        await yieldToEventLoop();
        sliceStarted = performance.now();
      }
      const row = this.rows.get(file.index);
      let chunks = row === undefined ? undefined : decodeBlobChunks(row);
      if (chunks === undefined) {
        const content = await read(file.path);
        if (content === undefined) continue; // gone since it was indexed
        chunks = buildBlobChunks({ text: decodeText(content), definitions: file.index.definitions });
        this.rows.set(file.index, encodeBlobChunks(chunks));
      }
      builder.add({ path: file.path, definitions: file.index.definitions, references: file.index.references, chunks });
    }
    options.onProgress?.({ stage: 'chunked', done: total, total, message: `${builder.fileCount} files` });
    return builder.build();
  }
}

let shared: ContextCorpusCache | undefined;

/** One cache per process for callers that do not bring their own (the CLI, tests). */
export function sharedContextCorpusCache(): ContextCorpusCache {
  return (shared ??= new ContextCorpusCache());
}
