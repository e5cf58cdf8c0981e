/**
 * Task-aware retrieval on the Linux tree, in a process of its own (bench (l)):
 *
 *   node dist/bench/context-linux.js index ROOT CACHE   every tracked file's code index and chunk rows, on worker threads, kept in CACHE
 *   node dist/bench/context-linux.js query ROOT CACHE   the commit's statistics assembled from the rows, then the tasks below, each ranked and answered
 *
 * `node --expose-gc …` makes the heap figures (corpusHeapMB, heapAfterQueriesMB) what is live after a full collection.
 *
 * The cache holds what a scan's shards leave in Postgres for a commit (the stored form of each
 * blob's code index and chunk rows), so the query side reads rows, as a query on an indexed commit
 * does. Prints one JSON line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { BlobIndexer, decodeBlobIndex, encodeBlobIndex, indexBlob } from '@quarry/code-index';
import { onIndexThreads, postRowsInBatches, trackedFiles } from './linux-tree';
import { latencyStats } from './support';
import { ContextCorpusBuilder, decodeBlobChunks, rankForTask, retrieveContext, type ContextCorpus } from '@quarry/context';

/** Tasks of the kinds agents bring: an issue title, oopses with call traces, questions, a report naming functions. */
export const LINUX_TASKS: readonly string[] = [
  "ext4: use-after-free in ext4_xattr_set_entry when the inode's extended attribute block is shared",
  [
    'BUG: kernel NULL pointer dereference, address: 0000000000000008',
    'RIP: 0010:btrfs_search_slot+0x2a/0x9a0 [btrfs]',
    'Call Trace:',
    ' btrfs_lookup_inode+0x3a/0xc0',
    ' btrfs_iget_path+0x1a4/0x6f0',
    ' btrfs_lookup_dentry+0x3c2/0x520',
    ' btrfs_lookup+0xe/0x30',
    ' __lookup_slow+0x82/0x130',
  ].join('\n'),
  'Where is the TCP congestion window reduced after a retransmission timeout?',
  'The `kmalloc` of the skb head in `__alloc_skb` can fail silently when gfp flags forbid reclaim; callers in net/core do not check',
  'usb: xhci: ring expansion fails with "ERROR: unexpected command completion code 0x11" on suspend',
  'How does the scheduler pick the next task in the CFS run queue?',
  "nfsd: a client's lock state leaks when the delegation is recalled during nfsd4_open",
  [
    'WARNING: CPU: 1 PID: 123 at mm/page_alloc.c:5353 __alloc_pages+0x2e5/0x330',
    'Call Trace:',
    ' alloc_pages+0x90/0x160',
    ' kmalloc_order+0x2a/0xa0',
    ' kmalloc_large+0x1b/0x70',
    ' __kmalloc_node+0x2d3/0x3a0',
  ].join('\n'),
];

const maxRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

type Row = [file: string, index: Uint8Array, chunks: Uint8Array | null];

async function indexThread(): Promise<void> {
  const indexer = await BlobIndexer.create();
  await postRowsInBatches<Row>((root, file) => {
    const index = indexBlob(indexer, file, fs.readFileSync(path.join(root, file)));
    // The indexer computes the chunk row with the rest (absent for binary content).
    return [file, encodeBlobIndex(index), index.chunks ?? null];
  });
}

async function indexTree(root: string, cache: string) {
  const files = trackedFiles(root, '.');
  const started = performance.now();
  const out = fs.openSync(`${cache}.partial`, 'w');
  let indexBytes = 0;
  let chunkBytes = 0;
  // Rows go to disk as they arrive (unsorted: the query side sorts by path).
  const write = ([file, index, chunks]: Row) => {
    const name = Buffer.from(file);
    const header = Buffer.alloc(12);
    header.writeUInt32LE(name.length, 0);
    header.writeUInt32LE(index.length, 4);
    header.writeUInt32LE(chunks?.length ?? 0, 8);
    fs.writeSync(out, header);
    fs.writeSync(out, name);
    fs.writeSync(out, index);
    if (chunks) fs.writeSync(out, chunks);
    indexBytes += index.length;
    chunkBytes += chunks?.length ?? 0;
  };
  const threads = await onIndexThreads<Row>(__filename, root, files, (rows) => rows.forEach(write));
  fs.closeSync(out);
  fs.renameSync(`${cache}.partial`, cache);
  return { files: files.length, threads, seconds: (performance.now() - started) / 1000, indexMB: indexBytes / 1e6, chunksMB: chunkBytes / 1e6, maxRssMB: maxRssMB() };
}

/**
 * The commit's corpus from the rows, as a query on an indexed commit assembles it: the rows in
 * path order, each decoded, added to the builder and dropped (the rows of 78k files never exist
 * as objects at once).
 */
function corpusOf(cache: string): { corpus: ContextCorpus; decodeSeconds: number } {
  const data = fs.readFileSync(cache);
  const rows: { file: string; at: number; indexLength: number; chunksLength: number }[] = [];
  for (let at = 0; at < data.length; ) {
    const nameLength = data.readUInt32LE(at);
    const indexLength = data.readUInt32LE(at + 4);
    const chunksLength = data.readUInt32LE(at + 8);
    at += 12;
    const file = data.subarray(at, at + nameLength).toString();
    at += nameLength;
    rows.push({ file, at, indexLength, chunksLength });
    at += indexLength + chunksLength;
  }
  rows.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const builder = new ContextCorpusBuilder();
  let decodeSeconds = 0;
  for (const { file, at, indexLength, chunksLength } of rows) {
    if (chunksLength === 0) continue;
    const started = performance.now();
    const index = decodeBlobIndex(data.subarray(at, at + indexLength));
    const chunks = decodeBlobChunks(data.subarray(at + indexLength, at + indexLength + chunksLength));
    decodeSeconds += (performance.now() - started) / 1000;
    if (chunks === undefined || index.binary) continue;
    builder.add({ path: file, definitions: index.definitions, references: index.references, chunks });
  }
  return { corpus: builder.build(), decodeSeconds };
}

/** Heap in use after a full collection, when the process runs with --expose-gc (else as it stands). */
function heapMB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return Math.round(process.memoryUsage().heapUsed / 1e6);
}

async function query(root: string, cache: string, rounds: number) {
  let started = performance.now();
  const { corpus, decodeSeconds } = corpusOf(cache);
  const assembleSeconds = (performance.now() - started) / 1000;
  // Heap: the JavaScript objects; arrayBuffers: the typed arrays' contents, outside the heap.
  const corpusHeapMB = heapMB();
  const corpusArrayBuffersMB = Math.round(process.memoryUsage().arrayBuffers / 1e6);
  const corpusRssMB = Math.round(process.memoryUsage().rss / 1e6);
  // The first query on a commit computes its PageRank prior, which belongs to the index: reported apart.
  started = performance.now();
  rankForTask(corpus, LINUX_TASKS[0], []);
  const firstMs = performance.now() - started;
  const rank: number[] = [];
  const answer: number[] = [];
  const top: string[][] = [];
  const readText = (file: string) => fs.promises.readFile(path.join(root, file), 'utf8').catch(() => '');
  for (let round = 0; round < rounds; round++) {
    for (const task of LINUX_TASKS) {
      started = performance.now();
      rankForTask(corpus, task, []);
      rank.push(performance.now() - started);
      started = performance.now();
      const result = await retrieveContext(corpus, { task }, { readText });
      answer.push(performance.now() - started);
      if (round === 0) top.push(result.files.slice(0, 3).map((file) => file.path));
    }
  }
  return { files: corpus.paths.length, chunks: corpus.chunkCount, terms: corpus.termCount, assembleSeconds, decodeSeconds, corpusHeapMB, corpusArrayBuffersMB, corpusRssMB, firstMs, rank: latencyStats(rank), answer: latencyStats(answer), top, heapAfterQueriesMB: heapMB(), maxRssMB: maxRssMB() };
}

async function main(argv: string[]): Promise<void> {
  const [mode, root, cache, extra] = argv;
  const result = mode === 'index' ? await indexTree(root, cache) : mode === 'query' ? await query(root, cache, Number(extra ?? 3)) : undefined;
  if (result === undefined) throw new Error(`unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

if (isMainThread) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  indexThread().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
