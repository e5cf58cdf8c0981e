import { createHash } from 'node:crypto';
import { BlobIndexer, CodeIndexCache, MemoryBlobIndexStore, indexSnapshotTree, indexedTree, listSnapshotFiles, type IndexableSnapshot, type IndexedTree } from '@quarry/code-index';
import type { ContextCorpus } from '../corpus/context-corpus';
import { rankForTask } from '../retrieve';
import { GOLDEN_REPO, GOLDEN_TASKS } from '../testing/golden-repo';
import { ContextCorpusCache } from './context-corpus-cache';

/**
 * The corpus of an indexed tree comes from the chunk rows the code index computed with each blob's
 * index (in this process, or stored by a scan): building it reads no file, and ranks exactly as
 * chunking every file's text did.
 */

let indexer: BlobIndexer;
beforeAll(async () => {
  indexer = await BlobIndexer.create();
});

/** GOLDEN_REPO as a snapshot whose reads are counted. */
function snapshotOf(files: Record<string, string>): IndexableSnapshot & { reads: string[] } {
  const reads: string[] = [];
  return {
    root: 'golden',
    reads,
    walk: async () => ({ files: Object.keys(files) }),
    entry: async (path) => (path in files ? { blob: createHash('sha1').update(files[path]).digest('hex') } : undefined),
    readFile: async (path) => (reads.push(path), path in files ? Buffer.from(files[path]) : undefined),
  };
}

function counting(files: Record<string, string>) {
  const reads: string[] = [];
  return { reads, read: async (path: string) => (reads.push(path), path in files ? Buffer.from(files[path]) : undefined) };
}

/** Every golden task's ranked files and spans, by path and lines, with their scores and signals. */
function rankings(corpus: ContextCorpus) {
  return GOLDEN_TASKS.map((task) => {
    const ranking = rankForTask(corpus, task);
    return {
      files: ranking.files.map((ranked) => [corpus.paths[ranked.file], ranked.score, ranked.why]),
      spans: ranking.spans.map((span) => [corpus.paths[corpus.chunkFile[span.chunk]], corpus.chunk(span.chunk).startLine, span.score, span.why]),
    };
  });
}

/** The same tree with the chunk rows taken out of its indexes: what chunking each file's text on the first query did. */
function withoutRows(tree: IndexedTree): IndexedTree {
  return indexedTree(tree.root, `${tree.state}-bare`, tree.files.map((file) => ({ path: file.path, index: { ...file.index, chunks: undefined } })), tree.secretFiles);
}

describe('ContextCorpusCache', () => {
  it('builds the corpus of a tree indexed in this process from its rows: no file read, the same ranking as chunking the texts', async () => {
    const snapshot = snapshotOf(GOLDEN_REPO);
    const tree = await new CodeIndexCache({ indexer: async () => indexer }).snapshotTree(snapshot, new MemoryBlobIndexStore());
    expect(tree.files.every((file) => file.index.chunks !== undefined)).toBe(true);

    const cache = new ContextCorpusCache();
    const fromRows = counting(GOLDEN_REPO);
    const corpus = await cache.corpus(tree, fromRows.read);
    expect(fromRows.reads).toEqual([]);
    expect(cache.chunkedFromText).toBe(0);

    // The old way: every file read and chunked.
    const fromText = counting(GOLDEN_REPO);
    const chunked = await new ContextCorpusCache().corpus(withoutRows(tree), fromText.read);
    expect(fromText.reads.sort()).toEqual(Object.keys(GOLDEN_REPO).sort());
    expect(rankings(corpus)).toEqual(rankings(chunked));
    expect(rankings(corpus)[0].files.length).toBeGreaterThan(3);
  });

  it("reads the chunk rows of a tree loaded from a store through the tree, not the files; a row without one is chunked from its text", async () => {
    const store = new MemoryBlobIndexStore();
    const first = snapshotOf(GOLDEN_REPO);
    await indexSnapshotTree(first, await listSnapshotFiles(first), { store, indexer });
    expect(first.reads.length).toBe(Object.keys(GOLDEN_REPO).length);

    // Another process: every row comes from the store, without its chunk row, which the corpus loads.
    const again = snapshotOf(GOLDEN_REPO);
    const tree = await indexSnapshotTree(again, await listSnapshotFiles(again), { store, indexer });
    expect(again.reads).toEqual([]);
    expect(tree.files.some((file) => file.index.chunks !== undefined)).toBe(false);
    const cache = new ContextCorpusCache();
    const read = counting(GOLDEN_REPO);
    const progress: string[] = [];
    const corpus = await cache.corpus(tree, read.read, { onProgress: (event) => progress.push(`${event.stage} ${event.message}`) });
    expect(read.reads).toEqual([]);
    expect(progress).toContain(`chunked ${Object.keys(GOLDEN_REPO).length} files, 0 chunked from their text`);

    // One row whose chunk section is missing (an index made by other code): that one file is read.
    const partial = indexedTree(tree.root, `${tree.state}-partial`, tree.files, tree.secretFiles, async () => {
      const rows = new Map(await tree.storedChunks!());
      rows.delete('shop/cart.py');
      return rows;
    });
    const fallback = counting(GOLDEN_REPO);
    const mixed = await cache.corpus(partial, fallback.read);
    expect(fallback.reads).toEqual(['shop/cart.py']);
    expect(cache.chunkedFromText).toBe(1);
    expect(rankings(mixed)).toEqual(rankings(corpus));
  });
});
