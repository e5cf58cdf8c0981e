import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeSharedSearchPool, searchWorkspace, type SearchRequest } from '@quarry/search';
import { IndexedCommit, type CommitFile } from './indexed-commit';
import { searchIndexed } from './indexed-search';
import { planQuery } from './query-plan';
import { SegmentBuilder, SegmentReader } from './segment';
import { trigramsOf } from './trigrams';
import { generatedQueries, writeSearchFixture } from './testing/search-fixture';

jest.setTimeout(120_000);

let root: string;
let files: CommitFile[];
let commit: IndexedCommit;

function git(...args: string[]): string {
  return execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
}

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'quarry-search-index-'));
  writeSearchFixture(root);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  files = git('ls-files', '-s', '-z')
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const [meta, file] = entry.split('\t');
      const [mode, blob] = meta.split(' ');
      return { path: file, blob, ...(mode === '120000' ? { symlink: true } : {}) };
    })
    // As the snapshot's walk (and the cold search's): regular files only.
    .filter((file) => !file.symlink);
  // Two segments, so candidates come from both.
  const builders = [new SegmentBuilder(), new SegmentBuilder()];
  files.forEach((file, index) => {
    const content = readFileSync(path.join(root, file.path));
    builders[index % 2].add(file.blob, content);
  });
  commit = new IndexedCommit('test', files, builders.map((builder) => SegmentReader.fromBuffer(builder.finish().data)));
});

afterAll(async () => {
  commit?.close();
  await closeSharedSearchPool();
  rmSync(root, { recursive: true, force: true });
});

function comparable(result: Awaited<ReturnType<typeof searchWorkspace>>) {
  const { elapsedMs: _elapsed, ...rest } = result;
  return rest;
}

describe('an indexed search', () => {
  it('equals the cold search on every generated query (counts, files, hits, skipped)', async () => {
    let indexed = 0;
    const all = generatedQueries();
    expect(all.length).toBeGreaterThanOrEqual(300);
    for (const query of all) {
      const request: SearchRequest = { ...query, root, countsPerFile: true, maxMatches: 1_000 };
      const cold = await searchWorkspace(request);
      const viaIndex = await searchIndexed(request, commit);
      const { indexed: used, ...rest } = viaIndex;
      if (used) indexed++;
      expect({ query, ...comparable(rest) }).toEqual({ query, ...comparable(cold) });
    }
    // Most queries have trigrams to look up.
    expect(indexed).toBeGreaterThan(all.length * 0.6);
  });

  it('reads only the candidate files, and a scope (directory, glob, hidden) holds for both', async () => {
    for (const scope of [{ directory: 'src' }, { glob: '*.h' }, { hidden: true }, { directory: 'src/fs', glob: '*.c' }]) {
      const request: SearchRequest = { root, mode: 'literal', pattern: 'spin_lock', caseSensitivity: 'sensitive', countsPerFile: true, ...scope };
      expect(comparable((({ indexed: _i, ...rest }) => rest)(await searchIndexed(request, commit)))).toEqual(comparable(await searchWorkspace(request)));
    }
    const trigrams = planQuery('literal', 'zzz-not-there', false) as number[];
    const candidates = commit.candidates(trigrams, 64 << 20, { key: '', inScope: (files) => [...files] });
    // Nothing holds it: only what the index cannot rule out (NULs past the first 8 KiB) is read.
    expect(candidates.read.sort()).toEqual(['late-nul-clean.c', 'late-nul.c']);
  });

  it('has no trigrams to look up for short or literal-free patterns', () => {
    expect(planQuery('regex', '\\w+', false)).toBeUndefined();
    expect(planQuery('literal', 'if', false)).toBeUndefined();
    expect(planQuery('regex', 'foo|bar', false)).toBeUndefined();
    // Folded: cut at s and k, whose folds leave ASCII.
    expect(planQuery('literal', 'kmalloc', true)).toEqual(trigramsOf('malloc').sort((a, b) => a - b));
    expect(planQuery('literal', 'isis', true)).toBeUndefined();
    expect(planQuery('literal', 'Mutex', false)).toEqual(planQuery('literal', 'mutex', false));
  });
});

describe('a segment', () => {
  it('round-trips postings through its encoding, from a buffer and a file', () => {
    const builder = new SegmentBuilder();
    const blobs = Array.from({ length: 300 }, (_, index) => index.toString(16).padStart(40, '0'));
    blobs.forEach((blob, index) => builder.add(blob, Buffer.from(index % 3 === 0 ? `abc ${index}\nxyz` : `no ${index}`)));
    const built = builder.finish();
    const file = path.join(os.tmpdir(), `quarry-segment-${process.pid}`);
    writeFileSync(file, built.data);
    for (const reader of [SegmentReader.fromBuffer(built.data), SegmentReader.fromFile(file)]) {
      const docs = [...reader.candidates(trigramsOf('abc'))].map((doc) => reader.blobs[doc]);
      expect(docs).toEqual(blobs.filter((_, index) => index % 3 === 0));
      expect(reader.candidates(trigramsOf('c x'))).toHaveLength(0);
      expect(reader.candidates(trigramsOf('qqq'))).toHaveLength(0);
      reader.close();
    }
    rmSync(file);
    // The same blobs make the same segment id, in any order.
    const again = new SegmentBuilder();
    [...blobs].reverse().forEach((blob) => again.add(blob, Buffer.from(blobs.indexOf(blob) % 3 === 0 ? `abc ${blobs.indexOf(blob)}\nxyz` : `no ${blobs.indexOf(blob)}`)));
    const rebuilt = again.finish();
    expect(rebuilt.id).toBe(built.id);
    const reader = SegmentReader.fromBuffer(rebuilt.data);
    expect([...reader.candidates(trigramsOf('abc'))].map((doc) => reader.blobs[doc]).sort()).toEqual(blobs.filter((_, index) => index % 3 === 0));
  });
});
