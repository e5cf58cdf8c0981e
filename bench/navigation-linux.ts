/**
 * Navigation on the Linux tree, in a process of its own (bench (n)):
 *
 *   node dist/bench/navigation-linux.js index ROOT CACHE   every tracked file indexed on worker threads, rows kept in CACHE
 *   node dist/bench/navigation-linux.js query ROOT CACHE N  the graph assembled from the rows, then N sampled `references` queries
 *
 * The cache is the stored form of each blob's row (encodeBlobIndex), keyed by path, sorted: what
 * the scan's shards leave in Postgres for a commit. Prints one JSON line.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { onIndexThreads, postRowsInBatches, trackedFiles } from './linux-tree';
import { latencyStats } from './support';
import { BlobIndexer, decodeBlobIndex, encodeBlobIndex, indexBlob } from '@quarry/code-index';
import { CodeGraph, findUses, navigationIndexOf, references } from '@quarry/code-graph';

const maxRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function indexThread(): Promise<void> {
  const indexer = await BlobIndexer.create();
  await postRowsInBatches<[string, Buffer]>((root, file) => [file, encodeBlobIndex(indexBlob(indexer, file, fs.readFileSync(path.join(root, file))))]);
}

async function indexTree(root: string, cache: string) {
  const files = trackedFiles(root, '.').sort();
  const started = performance.now();
  const rows = new Map<string, Buffer>();
  let bytes = 0;
  const threads = await onIndexThreads<[string, Buffer]>(__filename, root, files, (batch) => {
    for (const [file, data] of batch) {
      const row = Buffer.from(data);
      rows.set(file, row);
      bytes += row.length;
    }
  });
  const out = fs.openSync(`${cache}.partial`, 'w');
  for (const file of [...rows.keys()].sort()) {
    const name = Buffer.from(file);
    const data = rows.get(file)!;
    const header = Buffer.alloc(8);
    header.writeUInt32LE(name.length, 0);
    header.writeUInt32LE(data.length, 4);
    fs.writeSync(out, header);
    fs.writeSync(out, name);
    fs.writeSync(out, data);
  }
  fs.closeSync(out);
  fs.renameSync(`${cache}.partial`, cache);
  return { files: files.length, threads, seconds: (performance.now() - started) / 1000, storedMB: bytes / 1e6, maxRssMB: maxRssMB() };
}

function* rowsOf(cache: string): Generator<{ path: string; index: ReturnType<typeof decodeBlobIndex> }> {
  const data = fs.readFileSync(cache);
  for (let at = 0; at < data.length; ) {
    const nameLength = data.readUInt32LE(at);
    const dataLength = data.readUInt32LE(at + 4);
    const file = data.subarray(at + 8, at + 8 + nameLength).toString();
    const row = data.subarray(at + 8 + nameLength, at + 8 + nameLength + dataLength);
    at += 8 + nameLength + dataLength;
    yield { path: file, index: decodeBlobIndex(row) };
  }
}

async function query(root: string, cache: string, samples: number) {
  let started = performance.now();
  const graph = CodeGraph.buildSorted(rowsOf(cache));
  const buildSeconds = (performance.now() - started) / 1000;
  if (global.gc) global.gc();
  const heapMB = Math.round(process.memoryUsage().heapUsed / 1e6);
  const index = navigationIndexOf(graph, (file) => fs.promises.readFile(path.join(root, file), 'utf8').catch(() => undefined));
  const candidates: { id: number; hash: number }[] = [];
  for (let id = 0; id < graph.definitionCount; id++) {
    const { file, definition } = graph.definition(id);
    if (!/\.[ch]$/.test(file.path)) continue;
    candidates.push({ id, hash: createHash('sha1').update(`${file.path}:${definition.line}:${definition.name}`).digest().readUInt32BE(0) });
  }
  const sample = candidates.sort((a, b) => a.hash - b.hash).slice(0, samples);
  // The first query of a process resolves the tree's include edges it needs; reported apart.
  started = performance.now();
  await references(index, `${graph.definition(sample[0].id).file.path}:${graph.definition(sample[0].id).definition.line}`);
  const firstMs = performance.now() - started;
  const full: number[] = [];
  const uses: number[] = [];
  let found = 0;
  for (const { id } of sample.slice(1)) {
    const { file, definition } = graph.definition(id);
    started = performance.now();
    const result = await references(index, `${file.path}:${definition.line}`, { limit: 1000 });
    full.push(performance.now() - started);
    found += result.total;
    started = performance.now();
    findUses(index, id);
    uses.push(performance.now() - started);
  }
  // Peer: ripgrep for the name as a word over the tree (name matching, no resolution), first 20 names.
  const rg: number[] = [];
  for (const { id } of sample.slice(1, 21)) {
    started = performance.now();
    try {
      execFileSync('rg', ['-n', '-w', '-F', '-c', graph.definition(id).definition.name, root], { stdio: ['ignore', 'ignore', 'ignore'] });
    } catch {
      // exit 1: no match
    }
    rg.push(performance.now() - started);
  }
  return { files: graph.files.length, definitions: graph.definitionCount, buildSeconds, heapMB, firstMs, references: latencyStats(full), findUses: latencyStats(uses), rg: latencyStats(rg), meanUses: found / Math.max(1, full.length), maxRssMB: maxRssMB() };
}

async function main(argv: string[]): Promise<void> {
  const [mode, root, cache, extra] = argv;
  const result = mode === 'index' ? await indexTree(root, cache) : mode === 'query' ? await query(root, cache, Number(extra ?? 200)) : undefined;
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
