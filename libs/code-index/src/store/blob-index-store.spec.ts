import { BlobIndexer, decodeText, indexBlob } from '../index/blob-index';
import { buildBlobChunks } from '../chunks/blob-chunks';
import { decodeBlobChunks } from '../chunks/blob-chunks-codec';
import { encodedRowOf } from './blob-index-store';
import { BLOB_INDEX_VERSION, MemoryBlobIndexStore, blobIndexKey, briefOf, distinctKeys, indexVariant } from './blob-index-store';
import { indexMissingBlobs } from './index-blobs';
import { summarizeBriefs } from './scan-step';

let indexer: BlobIndexer;
beforeAll(async () => {
  indexer = await BlobIndexer.create();
});

describe('indexVariant', () => {
  it('is the language as the indexer reads the path: TSX apart from TypeScript, headers by extension, with the indexer version', () => {
    expect(indexVariant('src/a.ts')).toBe(`TypeScript@${BLOB_INDEX_VERSION}`);
    expect(indexVariant('src/A.tsx')).toBe(`TypeScript/tsx@${BLOB_INDEX_VERSION}`);
    expect(indexVariant('x/same.h')).not.toBe(indexVariant('x/same.hpp'));
    expect(indexVariant('a.py')).toBe(`Python@${BLOB_INDEX_VERSION}`);
    // C's extraction changed since (bodies lexed): its rows alone are keyed anew.
    expect(indexVariant('fs/inode.c')).toBe(`C@${BLOB_INDEX_VERSION}.1`);
    expect(indexVariant('include/linux/fs.h')).toBe(`C@${BLOB_INDEX_VERSION}.1`);
    expect(distinctKeys([{ path: 'a.ts', blob: 'b1' }, { path: 'b/a.ts', blob: 'b1' }, { path: 'a.tsx', blob: 'b1' }])).toEqual([
      { blob: 'b1', variant: `TypeScript@${BLOB_INDEX_VERSION}` },
      { blob: 'b1', variant: `TypeScript/tsx@${BLOB_INDEX_VERSION}` },
    ]);
  });
});

describe('MemoryBlobIndexStore', () => {
  it('keeps the first row of a key, per encoding, and reads it back whole or as a brief', async () => {
    const store = new MemoryBlobIndexStore();
    const index = indexBlob(indexer, 'a.ts', Buffer.from('export function f() {}\n'));
    const row = { blob: 'b1', variant: 'TypeScript', index };
    expect(await store.record([row, row])).toBe(1);
    expect(await store.record([row])).toBe(0);
    // A whole row comes back without its chunk row, which only `loadChunks` reads.
    expect((await store.load([row], 'o200k_base')).get(blobIndexKey('b1', 'TypeScript'))).toEqual({ ...index, chunks: undefined });
    expect((await store.briefs([row, { blob: 'b2', variant: 'TypeScript' }], 'o200k_base'))).toEqual(new Map([[blobIndexKey('b1', 'TypeScript'), briefOf(index)]]));
    expect((await store.briefs([row], 'cl100k_base')).size).toBe(0);
  });

  it("keeps the indexer's chunk row, equal to chunking the text, recorded whole or encoded (a shard thread's)", async () => {
    const text = 'import os\n\nclass Cache:\n    def get(self, key):\n        raise KeyError("no entry for this key in the cache")\n\n\ndef main():\n    return Cache().get("--dry-run")\n';
    const index = indexBlob(indexer, 'cache.py', Buffer.from(text));
    const expected = buildBlobChunks({ text: decodeText(Buffer.from(text)), definitions: index.definitions });
    expect(expected.chunks.map((chunk) => chunk.symbol)).toEqual([undefined, 'Cache', 'get', 'main']);
    expect(decodeBlobChunks(index.chunks!)).toEqual(expected);
    const binary = indexBlob(indexer, 'logo.png', Buffer.from([0x89, 0, 1, 2]));
    expect(binary.chunks).toBeUndefined();

    const whole = new MemoryBlobIndexStore();
    const encoded = new MemoryBlobIndexStore();
    const rows = [
      { blob: 'c', variant: indexVariant('cache.py'), index },
      { blob: 'i', variant: indexVariant('logo.png'), index: binary },
    ];
    await whole.record(rows);
    await encoded.recordEncoded(rows.map(encodedRowOf));
    for (const store of [whole, encoded]) {
      const loaded = await store.loadChunks([...rows, { blob: 'absent', variant: indexVariant('cache.py') }], 'o200k_base');
      expect([...loaded.keys()]).toEqual([blobIndexKey('c', indexVariant('cache.py'))]);
      expect(decodeBlobChunks(loaded.get(blobIndexKey('c', indexVariant('cache.py')))!)).toEqual(expected);
      expect((await store.loadChunks(rows, 'cl100k_base')).size).toBe(0);
    }
  });
});

describe('indexMissingBlobs', () => {
  it('reads and indexes only the blobs without a row, once per key, fetching them together first', async () => {
    const store = new MemoryBlobIndexStore();
    const contents: Record<string, string> = { 'a.ts': 'export const a = 1;\n', 'copy/a.ts': 'export const a = 1;\n', 'b.py': 'def b():\n    pass\n', 'c.go': 'package c\n' };
    const blobs: Record<string, string> = { 'a.ts': 'ba', 'copy/a.ts': 'ba', 'b.py': 'bb', 'c.go': 'bc' };
    await store.record([{ blob: 'bc', variant: indexVariant('c.go'), index: indexBlob(indexer, 'c.go', Buffer.from(contents['c.go'])) }]);
    const reads: string[] = [];
    const prefetched: string[][] = [];
    const files = Object.keys(contents).map((path) => ({ path, blob: blobs[path] }));
    const added = await indexMissingBlobs(files, {
      store,
      indexer,
      read: async (path) => (reads.push(path), Buffer.from(contents[path])),
      prefetch: async (paths) => void prefetched.push([...paths]),
    });
    expect(added).toBe(2);
    expect(reads).toEqual(['a.ts', 'b.py']);
    expect(prefetched).toEqual([['a.ts', 'copy/a.ts', 'b.py']]);
    expect(await indexMissingBlobs(files, { store, indexer, read: async () => Promise.reject(new Error('nothing to read')) })).toBe(0);
  });
});

describe('indexMissingBlobs hands rows over encoded', () => {
  it('never as decoded indexes (whose names would keep their files’ texts alive while they wait)', async () => {
    const store = new MemoryBlobIndexStore();
    store.record = async () => Promise.reject(new Error('decoded rows handed over'));
    const files = [{ path: 'a.py', blob: 'pa' }, { path: 'b.ts', blob: 'pb' }];
    expect(await indexMissingBlobs(files, { store, indexer, read: async (path) => Buffer.from(`def ${path[0]}():\n    pass\n`) })).toBe(2);
    expect((await store.load(files.map((file) => ({ blob: file.blob, variant: indexVariant(file.path) })), 'o200k_base')).size).toBe(2);
  });
});

describe('indexMissingBlobs with a slow store', () => {
  it('makes the next batch of rows while one is written, and no more: rows never pile up in memory', async () => {
    const store = new MemoryBlobIndexStore();
    const record = store.recordEncoded.bind(store);
    let reads = 0;
    /** Files read when each write ended. */
    const readsAtWriteEnd: number[] = [];
    store.recordEncoded = async (rows) => {
      await new Promise((resolve) => setTimeout(resolve, 40)); // a database slower than the indexer
      readsAtWriteEnd.push(reads);
      return record(rows);
    };
    // Batches of 500 rows: 1,700 files make four.
    const files = Array.from({ length: 1700 }, (_, index) => ({ path: `f${index}.py`, blob: `blob${index}` }));
    const added = await indexMissingBlobs(files, { store, indexer, read: async (path) => (reads++, Buffer.from(`def ${path.slice(0, -3)}():\n    pass\n`)) });
    expect(added).toBe(1700);
    expect(readsAtWriteEnd).toHaveLength(4);
    // While batch k was written, batch k + 1 was made, and nothing after it.
    readsAtWriteEnd.forEach((count, k) => expect([k, count]).toEqual([k, Math.min(1700, Math.min(count, (k + 2) * 500))]));
  });
});

describe('summarizeBriefs', () => {
  it('sums text files per language and top-level directory; binary and unindexed files count nowhere', async () => {
    const ts = indexBlob(indexer, 'src/a.ts', Buffer.from('export class A {}\nexport function f() { return 1; }\n'));
    const py = indexBlob(indexer, 'b.py', Buffer.from('def g():\n    return 2\n'));
    const png = indexBlob(indexer, 'logo.png', Buffer.from([0x89, 0, 1, 2]));
    const briefs = new Map([
      [blobIndexKey('t', indexVariant('x.ts')), briefOf(ts)],
      [blobIndexKey('p', indexVariant('x.py')), briefOf(py)],
      [blobIndexKey('i', indexVariant('logo.png')), briefOf(png)],
    ]);
    const files = [
      { path: 'src/a.ts', blob: 't' },
      { path: 'src/again.ts', blob: 't' },
      { path: 'b.py', blob: 'p' },
      { path: 'logo.png', blob: 'i' },
      { path: 'src/unread.ts', blob: 'gone' },
    ];
    expect(summarizeBriefs(files, briefs, 'o200k_base')).toEqual({
      tokens: {
        total: 2 * ts.tokens + py.tokens,
        encoding: 'o200k_base',
        byLanguage: [
          { language: 'TypeScript', files: 2, tokens: 2 * ts.tokens },
          { language: 'Python', files: 1, tokens: py.tokens },
        ],
        byDirectory: [
          { path: 'src', files: 2, tokens: 2 * ts.tokens },
          { path: '.', files: 1, tokens: py.tokens },
        ],
      },
      symbols: { definitions: 2 * 2 + 1, files: { parsed: 3, failed: 0, skipped: 0 }, warnings: 0 },
    });
  });
});
