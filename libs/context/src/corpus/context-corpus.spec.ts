import { type BlobChunks, type Chunk, CHUNK_RECORD_VERSION } from '@quarry/code-index';
import { StringTable } from './compact-tables';
import { ContextCorpus, ContextCorpusBuilder, type CorpusFile } from './context-corpus';

describe('StringTable', () => {
  it('gives each string one id, in the order added, and the string back', () => {
    const table = new StringTable();
    const strings = ['', 'a', 'apply_discount', 'Ünïcödé', '名前', 'emoji 🙂', 'a'.repeat(500)];
    const ids = strings.map((text) => table.add(text));
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(strings.map((text) => table.add(text))).toEqual(ids);
    expect(strings.map((text) => table.id(text))).toEqual(ids);
    expect(ids.map((id) => table.get(id))).toEqual(strings);
    expect(table.id('absent')).toBe(-1);
  });

  it('holds many strings across its growth and after trim', () => {
    const table = new StringTable();
    const ids = Array.from({ length: 50_000 }, (_, index) => table.add(`term${index}`));
    expect(ids.every((id, index) => id === index)).toBe(true);
    table.trim();
    expect(table.size).toBe(50_000);
    for (let index = 0; index < 50_000; index += 997) {
      expect(table.id(`term${index}`)).toBe(index);
      expect(table.get(index)).toBe(`term${index}`);
    }
    expect(table.add('after trim')).toBe(50_000);
    expect(table.get(50_000)).toBe('after trim');
  });
});

const chunk = (startLine: number, endLine: number, terms: [string, number][], names: number[] = [], symbol?: string): Chunk => ({
  startLine,
  endLine,
  terms,
  names,
  length: terms.reduce((sum, [, count]) => sum + count, 0),
  ...(symbol === undefined ? {} : { symbol, kind: 'function' as const }),
});

const rows = (chunks: Chunk[], literals: BlobChunks['literals'] = [], options: BlobChunks['options'] = []): BlobChunks => ({ version: CHUNK_RECORD_VERSION, lines: 100, chunks, literals, options });

const FILES: CorpusFile[] = [
  {
    path: 'src/b.py',
    definitions: [{ kind: 'function', name: 'Load_Settings', line: 12, startLine: 11, endLine: 20 }],
    references: [
      ['parse', 2],
      ['helper', 1],
    ],
    chunks: rows([chunk(1, 9, [['parse', 2], ['settings', 1]], [0]), chunk(11, 20, [['load_settings', 1], ['parse', 70_000]], [0, 1], 'Load_Settings')], [{ line: 15, fragments: [['could', 'not', 'load'], [], ['settings']] }], [['--config', 14]]),
  },
  {
    path: 'src/a.py',
    definitions: [
      { kind: 'function', name: 'parse', line: 3, startLine: 3, endLine: 8 },
      { kind: 'method', name: 'load_settings', line: 10, startLine: 10, endLine: 12, container: 'Loader' },
    ],
    references: [['Load_Settings', 1]],
    chunks: rows([chunk(3, 8, [['parse', 1]], [0], 'parse'), chunk(10, 12, [['load_settings', 1], ['settings', 3]], [0], 'load_settings')]),
  },
  { path: 'README.md', definitions: [], references: [['parse', 1]], chunks: rows([]) },
];

describe('ContextCorpusBuilder', () => {
  it('takes files in path order only', () => {
    const builder = new ContextCorpusBuilder();
    builder.add(FILES[1]);
    expect(() => builder.add(FILES[2])).toThrow(/path order/);
    expect(() => builder.add(FILES[1])).toThrow(/src\/a.py twice/);
  });

  it('builds what the constructor builds from the same files in any order', () => {
    const builder = new ContextCorpusBuilder();
    for (const file of [FILES[2], FILES[1], FILES[0]]) builder.add(file);
    const built = builder.build();
    const constructed = new ContextCorpus(FILES);
    for (const corpus of [built, constructed]) {
      expect(corpus.paths).toEqual(['README.md', 'src/a.py', 'src/b.py']);
      expect([...corpus.chunkStart]).toEqual([0, 0, 2, 4]);
      expect(corpus.chunkCount).toBe(4);
      expect(corpus.termCount).toBe(3);
    }
    expect(() => builder.build()).toThrow(/already built/);
  });

  it('keeps postings ascending with file counts, capped counts for BM25 and exact ones for the graph', () => {
    const corpus = new ContextCorpus(FILES);
    const parse = corpus.termPostings('parse')!;
    expect([...parse.chunks]).toEqual([0, 2, 3]);
    expect([...parse.counts]).toEqual([1, 2, 65535]);
    expect(parse.files).toBe(2);
    expect(corpus.termCountIn(corpus.termId('parse'), 3)).toBe(70_000);
    expect(corpus.termCountIn(corpus.termId('parse'), 1)).toBe(0);
    expect(corpus.termPostings('absent')).toBeUndefined();
    expect([...corpus.chunkLength]).toEqual([1, 4, 3, 70_001]);
    expect([...corpus.fileLength]).toEqual([0, 5, 70_004]);
  });

  it('answers chunks, names, definitions and references as the rows said', () => {
    const corpus = new ContextCorpus(FILES);
    expect(corpus.chunk(3)).toEqual({ startLine: 11, endLine: 20, symbol: 'Load_Settings', kind: 'function' });
    expect(corpus.chunk(2)).toEqual({ startLine: 1, endLine: 9 });
    expect(corpus.chunkAt(2, 10)).toBe(2);
    expect(corpus.chunkAt(2, 11)).toBe(3);
    expect(corpus.chunkAt(0, 5)).toBeUndefined();
    expect([...corpus.chunkNameTerms(3)].map((term) => term)).toEqual([corpus.termId('load_settings'), corpus.termId('parse')]);

    expect(corpus.definitionsNamed('load_settings')).toEqual([{ file: 1, chunk: 1, definition: { kind: 'method', name: 'load_settings', line: 10, startLine: 10, endLine: 12, container: 'Loader' } }]);
    expect(corpus.definitionsNamed('helper')).toBeUndefined(); // referenced, never defined
    expect(corpus.definitionsNamed('absent')).toBeUndefined();
    expect(corpus.namesWithKey('load_settings')).toEqual(['load_settings', 'Load_Settings']);
    expect(corpus.filesUsing('parse')).toBe(2);
    expect(corpus.filesUsing('absent')).toBe(0);
    expect(corpus.definersOf(corpus.nameId('parse'))).toEqual([1]);
    const users = corpus.usersOf(corpus.nameId('parse'));
    expect([...users.files]).toEqual([0, 2]);
    expect([...users.counts]).toEqual([1, 2]);
  });

  it('keeps literals word for word, an empty fragment included, and options by name', () => {
    const corpus = new ContextCorpus(FILES);
    expect(corpus.literals.count).toBe(1);
    expect(corpus.literals.fragments(0)).toEqual([['could', 'not', 'load'], [], ['settings']]);
    expect(corpus.literals.file[0]).toBe(2);
    expect(corpus.literals.line[0]).toBe(15);
    expect(corpus.options.get('--config')).toEqual([{ file: 2, line: 14 }]);
  });
});
