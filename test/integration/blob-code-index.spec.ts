import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InProcessShardExecutor, MemoryBlobFacts, shardedScan, type BlobFactStore } from '../../libs/blob-scan/src';
import {
  BlobIndexer, CodeIndexScanStep, MemoryBlobIndexStore, blobIndexKey, buildBlobChunks, decodeBlobChunks, decodeBlobIndex, decodeText, indexBlob, indexVariant, summarizeCodeIndex, type BlobIndex, type BlobIndexStore, type EncodedBlobIndex, type StoredBlobIndex,
} from '../../libs/code-index/src';
import type { JobInput, JobResult } from '../../libs/contracts/src';
import { BlobCodeIndexRepository } from '../../libs/db/src/blob-code-index-repository';
import { BlobFactRepository } from '../../libs/db/src/blob-fact-repository';
import { createDatabase } from '../../libs/db/src/prisma-client';
import { loopbackOnlyDialer } from '../../libs/fetch/src/testing/virtual-network';
import { SnapshotProvider, type Snapshot } from '../../libs/snapshot/src';
import { GitHttpServer } from '../../libs/snapshot/src/testing/git-http-server';
import { CodeIndexReader, RepositorySessions, artifactDirectory, runUseCase, type JobRun } from '../../libs/jobs/src';
import { FileCache } from '../../libs/workspace/src';
import { CodeIndexCache } from '../../libs/code-index/src';
import { TEST_DATABASE_URL, testConfig } from '../support/test-env';

/*
 * The code index as the distributed scan computes it: rows per blob in Postgres written by the
 * shards, equal to what the library computes locally; reused across commits; and the code-index
 * kinds on a git URL (a real smart-HTTP server on 127.0.0.1, dialled through loopbackOnlyDialer)
 * reading those rows instead of indexing again.
 */

jest.setTimeout(120_000);

const database = createDatabase(TEST_DATABASE_URL, 4);
const rows = new BlobCodeIndexRepository(database.prisma, database.pool);
const facts = new BlobFactRepository(database.prisma, database.pool);
const base = mkdtempSync(path.join(os.tmpdir(), 'quarry-code-index-'));
const served = path.join(base, 'served');
const work = path.join(base, 'work');
/** Content unique to this run: the tables are shared by every run of the suite. */
const salt = randomBytes(6).toString('hex');
let server: GitHttpServer;
let provider: SnapshotProvider;
let indexer: BlobIndexer;
const snapshots: Snapshot[] = [];

const git = (...args: string[]) => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]).toString().trim();
const write = (relative: string, content: string | Buffer) => {
  mkdirSync(path.dirname(path.join(work, relative)), { recursive: true });
  writeFileSync(path.join(work, relative), content);
};
const publish = () => {
  git('add', '-A');
  git('commit', '-q', '-m', 'change');
  execFileSync('git', ['-C', path.join(served, 'repo.git'), 'fetch', '-q', work, '+main:main']);
  return git('rev-parse', 'HEAD');
};

beforeAll(async () => {
  mkdirSync(served);
  mkdirSync(work);
  git('init', '-q', '-b', 'main');
  write('src/server.ts', `// ${salt}\nexport class Server {\n  start(port: number): void {\n    listen(port);\n  }\n}\nexport function listen(port: number) {\n  return port;\n}\n`);
  write('src/view.tsx', `// ${salt}\nexport function View() {\n  return <div>{new Server().start(1)}</div>;\n}\n`);
  write('lib/util.py', `# ${salt}\ndef helper(x):\n    return x + 1\n\nclass Tool:\n    def run(self):\n        return helper(2)\n`);
  write('kernel/list.c', `/* ${salt} */\nstruct node { int v; };\nstatic int add(struct node *a, int b)\n{\n\treturn a->v + b;\n}\n`);
  // The same content read as C and as C++: two rows for one blob.
  write('include/same.h', `/* ${salt} */\nint shared_fn(void);\n`);
  write('include/same.hpp', `/* ${salt} */\nint shared_fn(void);\n`);
  write('main.go', `// ${salt}\npackage main\n\nfunc main() {\n\tprintln(helper())\n}\n\nfunc helper() int { return 1 }\n`);
  write('config.py', `# ${salt}\nAWS_KEY = "AKIAIOSFODNN7${salt.slice(0, 6).toUpperCase().replace(/[^A-Z0-9]/g, 'Q')}X"\n`);
  write('README.md', `# Demo ${salt}\n\nSee \`Server\`.\n`);
  write('empty/__init__.py', '');
  write('empty/.keep', '');
  write('logo.png', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]), Buffer.from(salt)]));
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  execFileSync('git', ['clone', '-q', '--bare', work, path.join(served, 'repo.git')]);
  server = await GitHttpServer.start(served);
  const dataDir = path.join(base, 'data');
  provider = new SnapshotProvider({ workspaceRoots: [base], git: { dataDir, allow: ['127.0.0.1/32'], dialer: loopbackOnlyDialer } });
  indexer = await BlobIndexer.create();
});

afterAll(async () => {
  for (const snapshot of snapshots) snapshot.close();
  await provider?.close();
  await server?.close();
  await database.close();
  rmSync(base, { recursive: true, force: true });
});

async function open(): Promise<Snapshot> {
  const snapshot = await provider.open({ git: server.url('repo.git'), ref: 'main' });
  snapshots.push(snapshot);
  return snapshot;
}

/** A store that records what was written through it. */
/** The store, with the rows written through it (a scan hands them over encoded; they are decoded here to compare). */
function spying(store: BlobIndexStore): BlobIndexStore & { written: StoredBlobIndex[] } {
  const written: StoredBlobIndex[] = [];
  const decoded = (row: EncodedBlobIndex): StoredBlobIndex => ({ blob: row.blob, variant: row.variant, index: { ...decodeBlobIndex(row.data), ...(row.chunks === undefined ? {} : { chunks: row.chunks }) } });
  return {
    written,
    briefs: (keys, encoding) => store.briefs(keys, encoding),
    load: (keys, encoding) => store.load(keys, encoding),
    loadChunks: (keys, encoding) => store.loadChunks(keys, encoding),
    record: (batch) => (written.push(...batch), store.record(batch)),
    recordEncoded: (batch) => (written.push(...batch.map(decoded)), store.recordEncoded(batch)),
  };
}

/** Tiny shards: even this repository splits into several. */
const TINY = { maxFiles: 2, maxBytes: 1024 };

function scan(snapshot: Snapshot, factStore: BlobFactStore, step: CodeIndexScanStep, concurrency: number) {
  return shardedScan(snapshot, { store: factStore, executor: new InProcessShardExecutor(snapshot, factStore, concurrency, 'w', step), derive: step, signal: new AbortController().signal, limits: TINY });
}

/** Every tracked file of the working copy, indexed locally by the library: the reference. */
function localIndexes(): Map<string, BlobIndex> {
  const files = git('ls-files').split('\n');
  return new Map(files.map((file) => [file, indexBlob(indexer, file, readFileSync(path.join(work, file)))]));
}

describe('per-blob code index rows in Postgres', () => {
  it('are written insert-or-keep, and read back whole or as briefs', async () => {
    const index = indexBlob(indexer, 'a.ts', Buffer.from(`// ${salt} rows\nexport function f() { return 1; }\n`));
    const row = { blob: `${salt}-rows`, variant: indexVariant('a.ts'), index };
    const [first, second] = await Promise.all([rows.record([row]), rows.record([row])]);
    expect(first + second).toBe(1);
    expect(await rows.record([row])).toBe(0);
    const key = blobIndexKey(row.blob, row.variant);
    // The chunk row is a column of its own: `load` leaves it out, `loadChunks` reads it.
    expect((await rows.load([row], 'o200k_base')).get(key)).toEqual({ ...index, chunks: undefined });
    const chunks = (await rows.loadChunks([row, { blob: 'absent', variant: row.variant }], 'o200k_base'));
    expect([...chunks.keys()]).toEqual([key]);
    expect(decodeBlobChunks(chunks.get(key)!)).toEqual(buildBlobChunks({ text: `// ${salt} rows\nexport function f() { return 1; }\n`, definitions: index.definitions }));
    expect((await rows.loadChunks([row], 'cl100k_base')).size).toBe(0);
    expect((await rows.briefs([row, { blob: 'absent', variant: 'TypeScript' }], 'o200k_base')).get(key)).toEqual({
      binary: false, bytes: index.bytes, tokens: index.tokens, definitions: 1, secrets: 0, warnings: 0, symbols: 'parsed',
    });
    expect((await rows.briefs([row], 'cl100k_base')).size).toBe(0);
    expect((await rows.briefs([], 'o200k_base')).size).toBe(0);
    expect(await rows.record([])).toBe(0);
  });
});

describe('the code index in a sharded scan', () => {
  let firstCommitTokens: number;

  it('stores rows equal to the library computing each blob locally, and sums them into the result, for 1 or 3 lanes alike', async () => {
    const snapshot = await open();
    const keyOf = (file: string) => ({ blob: git('rev-parse', `HEAD:${file}`), variant: indexVariant(file) });
    // Empty files have the same blob in every run: their rows may be there already.
    const storedBefore = (await rows.briefs(git('ls-files').split('\n').map(keyOf), 'o200k_base')).size;
    const store = spying(rows);
    const result = await scan(snapshot, new MemoryBlobFacts(), new CodeIndexScanStep(store), 3);
    expect(result.shards).toBeGreaterThan(3);

    const local = localIndexes();
    const keys = [...local.keys()].map((file) => ({ blob: git('rev-parse', `HEAD:${file}`), variant: indexVariant(file) }));
    const stored = await rows.load(keys, 'o200k_base');
    const storedChunks = await rows.loadChunks(keys, 'o200k_base');
    for (const [file, index] of local) {
      const key = `${git('rev-parse', `HEAD:${file}`)} ${indexVariant(file)}`;
      const chunks = storedChunks.get(key);
      expect({ file, row: stored.get(key), chunks: chunks && decodeBlobChunks(chunks) }).toEqual({ file, row: { ...index, chunks: undefined }, chunks: index.chunks && decodeBlobChunks(index.chunks) });
    }
    // One row per (blob, variant): same.h and same.hpp share a blob and get two rows; the two empty files too.
    expect(new Set(store.written.map((row) => `${row.blob} ${row.variant}`)).size).toBe(store.written.length);
    expect(store.written.length).toBe(local.size - storedBefore);

    const expected = summarizeCodeIndex([...local].map(([file, index]) => ({ path: file, ...index })));
    expect(result.tokens).toEqual({ total: expected.tokens.total, encoding: 'o200k_base', byLanguage: expected.tokens.byLanguage, byDirectory: expected.tokens.byDirectory });
    expect(result.symbols).toEqual({ definitions: expected.symbols.definitions, files: expected.symbols.files, warnings: 0 });
    expect(result.tokens!.total).toBeGreaterThan(100);
    expect(result.symbols!.definitions).toBeGreaterThanOrEqual(10);

    // A fresh store, one lane: the same totals.
    const alone = await scan(await open(), new MemoryBlobFacts(), new CodeIndexScanStep(new MemoryBlobIndexStore()), 1);
    expect({ tokens: alone.tokens, symbols: alone.symbols }).toEqual({ tokens: result.tokens, symbols: result.symbols });
    firstCommitTokens = result.tokens!.total;
  });

  it('after a one-file commit indexes one blob; a commit whose facts are known but rows are not reads those blobs again', async () => {
    const factStore = new MemoryBlobFacts();
    await scan(await open(), factStore, new CodeIndexScanStep(rows), 2);
    const text = `# ${salt}\ndef helper(x):\n    return x + 2\n\ndef extra():\n    return helper(3)\n\nclass Tool:\n    def run(self):\n        return helper(2)\n`;
    write('lib/util.py', text);
    publish();
    const store = spying(rows);
    const again = await scan(await open(), factStore, new CodeIndexScanStep(store), 2);
    expect(store.written.map((row) => row.variant)).toEqual([indexVariant('x.py')]);
    // That one row carries the file's chunk row, and Postgres holds it.
    const written = store.written[0];
    const expected = buildBlobChunks({ text: decodeText(Buffer.from(text)), definitions: written.index.definitions });
    expect(expected.chunks.map((chunk) => chunk.symbol)).toEqual(['helper', 'extra', 'Tool', 'run']);
    expect(decodeBlobChunks((await rows.loadChunks([written], 'o200k_base')).get(blobIndexKey(written.blob, written.variant))!)).toEqual(expected);
    expect(again.blobs).toMatchObject({ processed: 1 });
    expect(again.tokens!.total).toBeGreaterThan(firstCommitTokens);
    expect(again.symbols!.definitions).toBe(summarizeCodeIndex([...localIndexes()].map(([file, index]) => ({ path: file, ...index }))).symbols.definitions);

    // Facts known, code index not (a store emptied, or facts from before the code index existed).
    const empty = spying(new MemoryBlobIndexStore());
    const refilled = await scan(await open(), factStore, new CodeIndexScanStep(empty), 2);
    expect(refilled.blobs).toMatchObject({ processed: 0 });
    expect(empty.written.length).toBe(localIndexes().size);
    expect({ tokens: refilled.tokens, symbols: refilled.symbols }).toEqual({ tokens: again.tokens, symbols: again.symbols });
  });

  it('with facts in Postgres too: a repeat scan reads nothing and writes nothing', async () => {
    const step = new CodeIndexScanStep(rows);
    const first = await scan(await open(), facts, step, 2);
    const store = spying(rows);
    const repeat = await scan(await open(), facts, new CodeIndexScanStep(store), 2);
    expect(repeat.shards).toBe(0);
    expect(store.written).toEqual([]);
    expect(repeat.tokens).toEqual(first.tokens);
  });
});

describe('the code-index kinds on a git URL', () => {
  const config = { ...testConfig(), workspaceRoots: [base] };
  // The worker's ports of the code-index kinds: the rows in Postgres (spied on), the commits through the test's provider.
  let repositories: RepositorySessions;
  beforeAll(() => void (repositories = new RepositorySessions(provider)));
  const run = (): JobRun => ({ id: '00000000-0000-4000-8000-00000000c0de', signal: new AbortController().signal, progress: () => undefined });
  const ports = (cache: CodeIndexCache, store: BlobIndexStore) => ({ repositories, codeIndex: new CodeIndexReader(cache, store), artifacts: artifactDirectory(config.artifactDir, config.artifactTtlMs) });
  const source = () => ({ git: server.url('repo.git'), ref: 'main' });

  it('read the rows the scan stored (nothing indexed again), and name the commit', async () => {
    await scan(await open(), facts, new CodeIndexScanStep(rows), 2);
    const store = spying(rows);
    const commit = git('rev-parse', 'HEAD');
    const cache = new CodeIndexCache();

    const symbols = await runUseCase('symbols', { source: source(), name: 'Server.start', limit: 10 } as JobInput<'symbols'>, ports(cache, store), run());
    expect(symbols.source).toMatchObject({ git: server.url('repo.git'), ref: 'main', commit });
    expect(symbols.definitions).toEqual([expect.objectContaining({ path: 'src/server.ts', name: 'start', kind: 'method', line: 3, container: 'Server' })]);

    const all = await runUseCase('symbols', { source: source(), path: 'kernel/**', limit: 100 } as JobInput<'symbols'>, ports(cache, store), run());
    expect(all.definitions.map((definition) => definition.name)).toEqual(expect.arrayContaining(['node', 'add']));

    const map = await runUseCase('map', { source: source(), tokens: 300, encoding: 'o200k_base' } as JobInput<'map'>, ports(cache, store), run());
    expect(map.source).toMatchObject({ commit });
    expect(map.tokens).toBeLessThanOrEqual(300);
    expect(map.text).toContain('src/server.ts');

    const packed: JobResult<'pack'> = await runUseCase('pack', { source: source(), style: 'xml', compress: false, encoding: 'o200k_base' } as JobInput<'pack'>, ports(new CodeIndexCache(), store), run());
    expect(packed.source).toMatchObject({ commit });
    const document = readFileSync(path.join(config.artifactDir, packed.artifact.name), 'utf8');
    expect(document).toContain('<file path="src/server.ts"');
    expect(document).not.toContain('AKIAIOSFODNN7');
    expect(packed.redactions).toBe(1);
    expect(packed.skipped).toMatchObject({ binary: 1 });
    rmSync(path.join(config.artifactDir, packed.artifact.name), { force: true });

    // @symbol: in a mentions job on the URL: the definition's code, from the same rows (no commit has a search index here).
    const files = { ...config.files, fileCache: new FileCache() };
    const fetchUrl = () => Promise.reject(new Error('no URL in this prompt'));
    const mentions = await runUseCase('mentions', { prompt: 'Why does @symbol:Server.start block?', source: source() } as JobInput<'mentions'>, { ...ports(cache, store), files, fetchUrl }, run());
    expect(mentions.mentions).toEqual([expect.objectContaining({ kind: 'symbol', status: 'loaded', definitions: 1 })]);
    expect(mentions.augmentedPrompt).toContain('listen(port);');

    expect(store.written).toEqual([]);
  });

  it('index the blobs no scan stored yet, once, and keep them for the next job', async () => {
    write('src/fresh.ts', `// ${salt} fresh\nexport function freshlyAdded() {\n  return 1;\n}\n`);
    publish();
    const store = spying(rows);
    const lookUp = () => runUseCase('symbols', { source: source(), name: 'freshlyAdded', limit: 10 } as JobInput<'symbols'>, ports(new CodeIndexCache(), store), run());
    expect((await lookUp()).definitions).toEqual([expect.objectContaining({ path: 'src/fresh.ts', line: 2 })]);
    expect(store.written.map((row) => row.variant)).toEqual([indexVariant('x.ts')]);
    await lookUp();
    expect(store.written).toHaveLength(1);
  });

  it('pack a file no scan indexed without indexing it: counted and searched as it is written', async () => {
    const secret = `ghp_${salt}abcdefghijklmnopqrstuvwxyz`.slice(0, 40);
    const text = `// ${salt} packed cold\nexport const token = "${secret}";\nexport function cold() {\n  return 2;\n}\n`;
    write('src/cold.ts', text);
    publish();
    const store = spying(rows);
    const packed = await runUseCase('pack', { source: source(), style: 'xml', include: ['src/**'], compress: false, encoding: 'o200k_base' } as JobInput<'pack'>, ports(new CodeIndexCache(), store), run());
    const file = path.join(config.artifactDir, packed.artifact.name);
    const document = readFileSync(file, 'utf8');
    rmSync(file, { force: true });
    expect(store.written).toEqual([]);
    expect(document).not.toContain(secret);
    expect(packed.redactions).toBe(1);
    const redacted = /<file path="src\/cold.ts" language="TypeScript" tokens="(\d+)">/.exec(document);
    expect(redacted).not.toBeNull();
    const stored = packed.totals.byDirectory.find((row) => row.path === 'src')!;
    expect(stored.files).toBe(4); // server.ts, view.tsx, fresh.ts from stored rows; cold.ts counted here
    expect(packed.tokens).toBe(packed.totals.total);
  });
});
