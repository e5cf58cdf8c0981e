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
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { BlobIndexer, decodeBlobIndex, encodeBlobIndex, indexBlob } from '@quarry/code-index';
import { CodeGraph, findUses, navigationIndexOf, references } from '@quarry/code-graph';

const maxRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

function tracked(root: string): string[] {
  return execFileSync('git', ['-C', root, 'ls-files', '-s', '-z'], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .split('\0')
    .filter((entry) => entry.startsWith('100'))
    .map((entry) => entry.slice(entry.indexOf('\t') + 1))
    .sort();
}

async function indexThread(): Promise<void> {
  const { root, files } = workerData as { root: string; files: string[] };
  const indexer = await BlobIndexer.create();
  let batch: [string, Buffer][] = [];
  for (const file of files) {
    const content = fs.readFileSync(path.join(root, file));
    batch.push([file, encodeBlobIndex(indexBlob(indexer, file, content))]);
    if (batch.length >= 200) {
      parentPort!.postMessage(batch);
      batch = [];
    }
  }
  parentPort!.postMessage(batch);
  parentPort!.postMessage('done');
}

async function indexTree(root: string, cache: string) {
  const files = tracked(root);
  const threads = Math.max(1, Math.min(os.cpus().length, 4));
  const started = performance.now();
  const rows = new Map<string, Buffer>();
  let bytes = 0;
  await Promise.all(
    Array.from({ length: threads }, (_, thread) => {
      const worker = new Worker(__filename, { workerData: { root, files: files.filter((_, index) => index % threads === thread) } });
      return new Promise<void>((resolve, reject) => {
        worker.on('message', (message: [string, Buffer][] | 'done') => {
          if (message === 'done') {
            worker.unref();
            resolve();
            return;
          }
          for (const [file, data] of message) {
            const row = Buffer.from(data);
            rows.set(file, row);
            bytes += row.length;
          }
        });
        worker.on('error', reject);
      });
    }),
  );
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

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return { n: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] };
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
  return { files: graph.files.length, definitions: graph.definitionCount, buildSeconds, heapMB, firstMs, references: stats(full), findUses: stats(uses), rg: stats(rg), meanUses: found / Math.max(1, full.length), maxRssMB: maxRssMB() };
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
