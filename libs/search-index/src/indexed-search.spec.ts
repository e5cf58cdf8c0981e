import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeSharedSearchPool, searchWorkspace, type SearchRequest } from '@quarry/search';
import { IndexedCommit, type CommitFile } from './indexed-commit';
import { searchIndexed } from './indexed-search';
import { planQuery } from './query-plan';
import { SegmentBuilder, SegmentReader } from './segment';
import { trigramsOf } from './trigrams';

jest.setTimeout(120_000);

/** A small deterministic generator, so a failing query can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = [
  'spin_lock', 'spin_unlock', 'mutex_lock', 'kmalloc', 'kfree', 'return', 'static', 'struct', 'inode', 'Inode', 'INODE', 'TODO', 'todo', 'Todo', 'FIXME',
  'dev_err', 'pr_info', 'error', '_error(', 'Error', 'ERROR', 'ret', 'if', 'else', 'for', 'while', 'unsigned', 'int', 'long', 'char', 'void',
  'café', 'CAFÉ', 'straße', 'STRASSE', 'Kelvin', '\u212Aelvin', 'ſtatic', 'Ωmega', 'ωmega', 'naïve', '日本語', 'emoji🙂', 'x', 'y', 'a1', 'b2', '0x1f', '==', '->', '{', '}', '(', ')', ';', '*', '//', '#include',
];

let root: string;
let files: CommitFile[];
let commit: IndexedCommit;

function git(...args: string[]): string {
  return execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
}

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'quarry-search-index-'));
  const next = random(18);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const line = () => Array.from({ length: 1 + Math.floor(next() * 10) }, () => pick(WORDS)).join(pick([' ', ' ', '', '\t', '.', ', ']));
  for (let index = 0; index < 120; index++) {
    const directory = pick(['', 'src/', 'src/fs/', 'drivers/net/', 'include/linux/', 'docs/', '.hidden/']);
    mkdirSync(path.join(root, directory), { recursive: true });
    const eol = index % 7 === 0 ? '\r\n' : '\n';
    const lines = Array.from({ length: Math.floor(next() * 60) }, line);
    writeFileSync(path.join(root, `${directory}file${index}.${pick(['c', 'h', 'ts', 'md'])}`), lines.join(eol) + (index % 5 === 0 ? '' : eol));
  }
  writeFileSync(path.join(root, 'empty.c'), '');
  writeFileSync(path.join(root, 'binary.bin'), Buffer.concat([Buffer.from('spin_lock\0TODO\n'), Buffer.alloc(100)]));
  writeFileSync(path.join(root, 'late-nul.c'), `${'spin_lock();\n'.repeat(1000)}\0 TODO\n`);
  writeFileSync(path.join(root, 'late-nul-clean.c'), `${'mutex_lock();\n'.repeat(1000)}\0\n`);
  writeFileSync(path.join(root, '.gitignore'), 'ignored/\n*.log\n');
  mkdirSync(path.join(root, 'ignored'));
  writeFileSync(path.join(root, 'ignored/secret.c'), 'spin_lock TODO\n');
  writeFileSync(path.join(root, 'build.log'), 'spin_lock error\n');
  symlinkSync('file1.c', path.join(root, 'link.c'));
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

/** Few hundred queries: substrings of the corpus, in every case mode, as literals and inside regexes. */
function queries(): Array<Omit<SearchRequest, 'root'>> {
  const next = random(7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const substring = () => {
    const word = pick(WORDS.filter((word) => word.length >= 3));
    const start = Math.floor(next() * Math.max(1, word.length - 3));
    return word.slice(start, start + 3 + Math.floor(next() * (word.length - start)));
  };
  const escape = (text: string) => text.replace(/[!-\/:-@\[-`{-~]/g, '\\$&');
  const out: Array<Omit<SearchRequest, 'root'>> = [];
  const cases = ['sensitive', 'insensitive', 'smart'] as const;
  for (let index = 0; index < 120; index++) {
    out.push({ mode: 'literal', pattern: index % 3 === 0 ? `${substring()} ${substring()}` : substring(), caseSensitivity: pick(cases) });
  }
  const regexShapes: Array<() => string> = [
    () => `${escape(substring())}\\w*`,
    () => `^${escape(substring())}`,
    () => `${escape(substring())}$`,
    () => `\\b${escape(substring())}\\b`,
    () => `${escape(substring())}.*${escape(substring())}`,
    () => `(?i)${escape(substring())}`,
    () => `${escape(substring())}|${escape(substring())}`,
    () => `[a-z]+_${escape(substring())}`,
    () => `${escape(substring())}\\s*\\(`,
    () => `(${escape(substring())})+x?`,
    () => `\\w+_error\\(`,
    () => `\\w+`,
    () => `^$`,
    () => `caf[eé]`,
    () => `\\p{Greek}mega`,
    () => `stra(ß|ss)e`,
  ];
  for (let index = 0; index < 160; index++) out.push({ mode: 'regex', pattern: pick(regexShapes)(), caseSensitivity: pick(cases) });
  for (const pattern of ['café', 'CAFÉ', 'kelvin', 'KELVIN', 'static', 'STATIC', 'straße', 'ωmega', '日本語', '🙂', 'zzz-not-there', 'lock', 'TODO'])
    for (const caseSensitivity of cases) out.push({ mode: 'literal', pattern, caseSensitivity });
  return out;
}

describe('an indexed search', () => {
  it('equals the cold search on every generated query (counts, files, hits, skipped)', async () => {
    let indexed = 0;
    const all = queries();
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
    const candidates = commit.candidates(trigrams, 64 << 20);
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
    // The same blobs make the same segment, in any order.
    const again = new SegmentBuilder();
    [...blobs].reverse().forEach((blob) => again.add(blob, Buffer.from(blobs.indexOf(blob) % 3 === 0 ? `abc ${blobs.indexOf(blob)}\nxyz` : `no ${blobs.indexOf(blob)}`)));
    expect(again.finish()).toEqual(built);
  });
});
