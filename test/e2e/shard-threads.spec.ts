import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { referenceScan } from '../../libs/workspace/src/testing/reference-scan';
import { assertBuilt, repoRoot } from '../support/processes';
import { makeTree } from '../support/trees';

/*
 * The shard threads of an in-process scan (`quarry scan --local`), run from the compiled build in a
 * plain node process: worker threads started from inside jest's module sandbox crash the process
 * (a native addon loaded twice), so the executor is driven by a small script and its answer read
 * back. The CLI's `--local` runs of a URL and a path are compared with worker results in
 * distributed-scan.spec.ts.
 */

jest.setTimeout(120_000);

const SCRIPT = String.raw`
const dist = process.argv[1];
const { SnapshotProvider } = require(dist + '/libs/snapshot/src');
const { shardedScan, planShards, ThreadShardExecutor, MemoryBlobFacts } = require(dist + '/libs/blob-scan/src');
(async () => {
  const [root, dataDir] = [process.argv[2], process.argv[3]];
  const providerOptions = { workspaceRoots: [root], git: { dataDir } };
  const snapshot = await new SnapshotProvider(providerOptions).openLocal(root);
  const limits = { maxFiles: 20, maxBytes: 1 << 20 };
  const store = new MemoryBlobFacts();
  const executor = new ThreadShardExecutor({ path: snapshot.root }, providerOptions, store, 3, 'threads');
  const result = await shardedScan(snapshot, { store, executor, signal: new AbortController().signal, limits });
  const answer = { result, threadsStarted: executor.threadsStarted, stored: store.size };

  // A directory outside the threads' allowed roots: each thread's own snapshot refuses it, typed.
  const refused = new ThreadShardExecutor({ path: '/proc' }, providerOptions, new MemoryBlobFacts(), 2, 'threads');
  answer.refused = await shardedScan(snapshot, { store: new MemoryBlobFacts(), executor: refused, signal: new AbortController().signal, limits }).then(
    () => 'resolved', (error) => ({ name: error.name, kind: error.kind }));

  // Cancelled at the first progress: rejects with the reason, threads terminated.
  const controller = new AbortController();
  const tasks = planShards((await snapshot.walk()).files.map((path) => ({ path })), limits);
  const cancelling = new ThreadShardExecutor({ path: snapshot.root }, providerOptions, new MemoryBlobFacts(), 2, 'threads');
  answer.cancelled = await cancelling.run(tasks, { signal: controller.signal, onProgress: () => controller.abort(new Error('stop')) }).then(
    () => 'resolved', (error) => error.message);
  // Writes are awaited by the executor, not the threads: slow ones still count what they added
  // (a store that already held 100 of the blobs, which its look-up did not say), and a failed one
  // fails the run.
  const seeded = new MemoryBlobFacts();
  const firstFacts = [...store.facts.entries()].slice(0, 100).map(([blob, measure]) => ({ blob, ...measure })); // the first scan's
  await seeded.record(firstFacts);
  const slow = { lookup: async () => new Map(), record: (facts) => new Promise((resolve) => setTimeout(resolve, 20)).then(() => seeded.record(facts)) };
  const slowResult = await shardedScan(snapshot, { store: slow, executor: new ThreadShardExecutor({ path: snapshot.root }, providerOptions, slow, 2, 'threads'), signal: new AbortController().signal, limits });
  answer.slow = { blobs: slowResult.blobs, stored: seeded.size };
  let writes = 0;
  const failing = { lookup: async () => new Map(), record: async (facts) => { if (++writes === 3) throw new Error('disk full'); return facts.length; } };
  answer.failedWrite = await new ThreadShardExecutor({ path: snapshot.root }, providerOptions, failing, 2, 'threads').run(tasks, { signal: new AbortController().signal, onProgress: () => undefined }).then(
    () => 'resolved', (error) => error.message);
  console.log(JSON.stringify(answer));
})().catch((error) => { console.error(error); process.exit(1); });
`;

describe('shards on worker threads (quarry scan --local)', () => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'quarry-shard-threads-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('run every shard on threads, equal to the single-process scan; a refused source and a cancel reject', async () => {
    assertBuilt();
    const files: Record<string, string | Buffer> = { 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]) };
    for (let index = 0; index < 300; index++) files[`pkg${index % 6}/m${index % 5}/f${index}.${['ts', 'py', 'md'][index % 3]}`] = `// ${index}\n`.repeat(1 + (index % 17));
    const root = makeTree(files);
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', SCRIPT, path.join(repoRoot(), 'dist'), root, mkdtempSync(path.join(base, 'data-'))], { maxBuffer: 16 << 20 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
      ),
    );
    const answer = JSON.parse(stdout);
    const single = await referenceScan(root);
    const comparable = ({ root: _r, durationMs: _d, shards: _s, workers: _w, workerIds: _i, blobs: _b, source: _source, updatedFrom: _u, ...rest }: Record<string, unknown>) => rest;
    expect(comparable(answer.result)).toEqual(comparable(single as unknown as Record<string, unknown>));
    expect(answer.threadsStarted).toBe(3);
    expect(answer.result.shards).toBeGreaterThanOrEqual(15);
    expect(answer.result.workerIds).toEqual(['threads']);
    expect(answer.result.blobs).toEqual({ total: 301, processed: 301, reused: 0 });
    expect(answer.stored).toBe(301);
    expect(answer.refused).toEqual({ name: 'QuarryError', kind: expect.any(String) });
    expect(answer.cancelled).toBe('stop');
    expect(answer.slow).toEqual({ blobs: { total: 301, processed: 201, reused: 100 }, stored: 301 });
    expect(answer.failedWrite).toBe('disk full');
    rmSync(root, { recursive: true, force: true });
  });

  it("index their shards' blobs on the threads (the main thread only stores the rows), with the totals of a scan on one thread, chunk rows included unless left out", async () => {
    assertBuilt();
    const files: Record<string, string> = {};
    for (let index = 0; index < 120; index++) files[`src/m${index % 7}/f${index}.ts`] = `export function f${index}(x: number): number {\n  return g${index}(x) + ${index};\n}\nfunction g${index}(y: number) { return y * 2; }\n`;
    files['README.md'] = '# threads\n';
    const root = makeTree(files);
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', INDEX_SCRIPT, path.join(repoRoot(), 'dist'), root, mkdtempSync(path.join(base, 'data-'))], { maxBuffer: 16 << 20 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
      ),
    );
    const answer = JSON.parse(stdout);
    // Every row came over from a thread, encoded; none was indexed here.
    expect(answer.threaded.recorded).toBe(0);
    expect(answer.threaded.recordedEncoded).toBe(121);
    expect(answer.threaded.shards).toBeGreaterThanOrEqual(5);
    expect(answer.threaded.tokens).toEqual(answer.oneThread.tokens);
    expect(answer.threaded.symbols).toEqual(answer.oneThread.symbols);
    expect(answer.threaded.symbols.definitions).toBe(240);
    // Each text row carries retrieval's chunk row; a step told chunks: false leaves them out, with the same totals.
    expect(answer.threaded.chunked).toBe(121);
    expect(answer.lean).toEqual({ chunked: 0, rows: 121, tokens: answer.oneThread.tokens, symbols: answer.oneThread.symbols });
    rmSync(root, { recursive: true, force: true });
  });

  it('let the process exit after a one-shard scan (a warmed thread that got no shard keeps nothing alive)', async () => {
    assertBuilt();
    const files: Record<string, string> = {};
    // More files than a scan reads inline, fewer than one shard holds: one shard, two threads warmed.
    for (let index = 0; index < 300; index++) files[`f${index}.c`] = `int f${index}(void) { return ${index}; }\n`;
    const root = makeTree(files);
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [path.join(repoRoot(), 'bin/quarry.js'), 'scan', root, '--local', '--json'], { timeout: 60_000, env: { ...process.env, QUARRY_DATA_DIR: mkdtempSync(path.join(base, 'data-')) } }, (error, out, err) =>
        error ? reject(new Error(`${error.message}${error.killed ? ' (still running after 60 s: killed)' : ''}\n${err}`)) : resolve(out),
      ),
    );
    const result = JSON.parse(stdout);
    expect(result.files).toBe(300);
    expect(result.symbols.definitions).toBe(300);
    rmSync(root, { recursive: true, force: true });
  });

  it('keep a process alive while a warmed thread is still loading, then let it end (a thread torn down mid-load can crash it)', async () => {
    assertBuilt();
    // A stand-in thread that says it has loaded after 600 ms; the process warms two and returns at once.
    const stub = path.join(base, 'slow-thread.js');
    writeFileSync(stub, "const { parentPort } = require('node:worker_threads');\nsetTimeout(() => parentPort.postMessage({ type: 'ready' }), 600);\n");
    const script = `const { ThreadShardExecutor, MemoryBlobFacts } = require(process.argv[1] + '/libs/blob-scan/src');
new ThreadShardExecutor({ path: '/' }, { workspaceRoots: ['/'], git: { dataDir: '/tmp' } }, new MemoryBlobFacts(), 2, 'w', process.argv[2]).prepare();`;
    const started = performance.now();
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['-e', script, path.join(repoRoot(), 'dist'), stub], { timeout: 30_000 }, (error, _out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve())),
    );
    const lived = performance.now() - started;
    expect(lived).toBeGreaterThanOrEqual(550);
    expect(lived).toBeLessThan(20_000);
  });
});

const INDEX_SCRIPT = String.raw`
const dist = process.argv[1];
const { SnapshotProvider } = require(dist + '/libs/snapshot/src');
const { shardedScan, ThreadShardExecutor, InProcessShardExecutor, MemoryBlobFacts } = require(dist + '/libs/blob-scan/src');
const { CodeIndexScanStep, MemoryBlobIndexStore } = require(dist + '/libs/code-index/src');
(async () => {
  const [root, dataDir] = [process.argv[2], process.argv[3]];
  const providerOptions = { workspaceRoots: [root], git: { dataDir } };
  const snapshot = await new SnapshotProvider(providerOptions).openLocal(root);
  const limits = { maxFiles: 20, maxBytes: 1 << 20 };

  const rows = new MemoryBlobIndexStore();
  let recorded = 0, recordedEncoded = 0, chunked = 0;
  const counting = {
    briefs: (keys, encoding) => rows.briefs(keys, encoding),
    load: (keys, encoding) => rows.load(keys, encoding),
    record: (batch) => { recorded += batch.length; return rows.record(batch); },
    recordEncoded: (batch) => { recordedEncoded += batch.length; chunked += batch.filter((row) => row.chunks).length; return rows.recordEncoded(batch); },
  };
  const step = new CodeIndexScanStep(counting);
  const facts = new MemoryBlobFacts();
  const executor = new ThreadShardExecutor({ path: snapshot.root }, providerOptions, facts, 2, 'threads', undefined, step.inThreads());
  const threaded = await shardedScan(snapshot, { store: facts, executor, derive: step, signal: new AbortController().signal, limits });

  // A scan whose rows no question will read (quarry scan --local): the threads leave the chunk rows out.
  const leanRows = new MemoryBlobIndexStore();
  let leanChunked = 0;
  const leanStore = { ...counting, recordEncoded: (batch) => { leanChunked += batch.filter((row) => row.chunks).length; return leanRows.recordEncoded(batch); } };
  const lean = new CodeIndexScanStep(leanStore, undefined, { chunks: false });
  const leanFacts = new MemoryBlobFacts();
  const leanScan = await shardedScan(snapshot, { store: leanFacts, executor: new ThreadShardExecutor({ path: snapshot.root }, providerOptions, leanFacts, 2, 'lean', undefined, lean.inThreads()), derive: lean, signal: new AbortController().signal, limits });

  const alone = new MemoryBlobFacts();
  const single = new CodeIndexScanStep(new MemoryBlobIndexStore());
  const oneThread = await shardedScan(snapshot, { store: alone, executor: new InProcessShardExecutor(snapshot, alone, 1, 'here', single), derive: single, signal: new AbortController().signal, limits });
  console.log(JSON.stringify({
    threaded: { recorded, recordedEncoded, chunked, shards: threaded.shards, tokens: threaded.tokens, symbols: threaded.symbols },
    lean: { chunked: leanChunked, rows: leanRows.size, tokens: leanScan.tokens, symbols: leanScan.symbols },
    oneThread: { tokens: oneThread.tokens, symbols: oneThread.symbols },
  }));
  process.exit(0);
})().catch((error) => { console.error(error); process.exit(1); });
`;

