import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { languageOf } from '@quarry/workspace';
import { countTokens } from '../tokens/token-counter';
import { BlobIndexer } from './blob-index';
import { decodeBlobIndex, encodeBlobIndex, fromCompactBlobIndex, toCompactBlobIndex } from './blob-index-codec';

const FIXTURES = path.join(__dirname, '..', 'symbols', 'fixtures');

describe('BlobIndexer', () => {
  let indexer: BlobIndexer;
  beforeAll(async () => {
    indexer = await BlobIndexer.create();
  });

  it('indexes a blob: tokens, lines, definitions, sorted references, secrets', () => {
    const content = 'export function login(user: User) {\n  const password = "hunter2-very-secret";\n  return check(user, password);\n}\n';
    const index = indexer.index({ path: 'src/auth.ts', language: 'TypeScript', content: Buffer.from(content) });
    expect(index).toMatchObject({ encoding: 'o200k_base', tokens: countTokens(content), bytes: Buffer.byteLength(content), lines: 4, binary: false, language: 'TypeScript', symbols: 'parsed', warnings: [] });
    expect(index.definitions.map((d) => `${d.kind} ${d.name}@${d.line}`)).toEqual(['function login@1']);
    expect(index.references).toEqual([
      ['User', 1],
      ['check', 1],
      ['password', 2],
      ['user', 2],
    ]);
    const start = content.indexOf('hunter2');
    expect(index.secrets).toEqual([{ kind: 'assigned-secret', line: 2, start, end: start + 'hunter2-very-secret'.length }]);
  });

  it('leaves the chunk row out when made withoutChunks, and nothing else', () => {
    const content = 'export function login(user: User) {\n  return check(user, "a literal");\n}\n';
    const input = { path: 'src/auth.ts', language: 'TypeScript', content: Buffer.from(content) };
    const whole = indexer.index(input);
    const lean = indexer.withoutChunks().index(input);
    expect(whole.chunks?.byteLength).toBeGreaterThan(0);
    expect(lean.chunks).toBeUndefined();
    expect(lean).toEqual({ ...whole, chunks: undefined });
    expect(indexer.withoutChunks().withoutChunks().index(input).chunks).toBeUndefined();
  });

  it('counts tokens in the encoding it was made with', async () => {
    const cl100k = await BlobIndexer.create({ encoding: 'cl100k_base' });
    const text = 'Привет, мир! Как дела?';
    expect(cl100k.index({ path: 'a.txt', content: text })).toMatchObject({ encoding: 'cl100k_base', tokens: 12 });
    expect(indexer.index({ path: 'a.txt', content: text }).tokens).toBe(8);
  });

  it('treats content with a NUL byte as binary: no tokens, no symbols', () => {
    const index = indexer.index({ path: 'logo.png', content: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) });
    expect(index).toMatchObject({ binary: true, tokens: 0, bytes: 7, symbols: 'unsupported', definitions: [] });
  });

  it('decodes UTF-8 without its byte-order mark and with replacement characters for invalid bytes', () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x = 1\n')]);
    expect(indexer.index({ path: 'a.py', language: 'Python', content: withBom }).tokens).toBe(countTokens('x = 1\n'));
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    expect(indexer.index({ path: 'a.txt', content: latin1 })).toMatchObject({ binary: false, lines: 1 });
  });

  it('counts lines as editors do, parsed or not: a last line without a newline counts, an empty text has none', () => {
    for (const [path, language] of [
      ['a.c', 'C'],
      ['a.txt', undefined],
    ] as const) {
      const lines = (content: string) => indexer.index({ path, language, content }).lines;
      expect([path, lines(''), lines('\n'), lines('int x;'), lines('int x;\n'), lines('int x;\n\nint y;'), lines('int x;\r\nint y;\r\n')]).toEqual([path, 0, 1, 1, 1, 3, 2]);
    }
  });

  it('gives unknown languages tokens but no symbols, never an error', () => {
    const index = indexer.index({ path: 'notes.xyz', language: 'Other', content: 'def f(): pass\n' });
    expect(index).toMatchObject({ symbols: 'unsupported', definitions: [], references: [], warnings: [] });
    expect(index.tokens).toBeGreaterThan(0);
  });

  describe('compact form', () => {
    // The chunk row is not in the compact form: the stores keep it as a section of its own.
    it('round-trips every fixture exactly', () => {
      for (const name of fs.readdirSync(FIXTURES)) {
        const index = indexer.index({ path: name, language: languageOf(name), content: fs.readFileSync(path.join(FIXTURES, name)) });
        const stored = JSON.parse(JSON.stringify(toCompactBlobIndex(index)));
        expect(fromCompactBlobIndex(stored)).toEqual({ ...index, chunks: undefined });
      }
    });

    it('round-trips secrets, warnings and binary blobs', async () => {
      const small = await BlobIndexer.create({ maxBytes: 10 });
      const index = small.index({ path: 'a.ts', language: 'TypeScript', content: 'const token = "ghp_0123456789abcdefghijABCDEFGHIJ0123456789";\n' });
      expect(index.warnings).toHaveLength(1);
      expect(index.secrets).toHaveLength(1);
      expect(fromCompactBlobIndex(JSON.parse(JSON.stringify(toCompactBlobIndex(index))))).toEqual({ ...index, chunks: undefined });
      const binary = indexer.index({ path: 'x.bin', content: Uint8Array.from([0]) });
      expect(fromCompactBlobIndex(toCompactBlobIndex(binary))).toEqual(binary);
    });

    it('round-trips any reference names the extractor can produce', () => {
      const name = fc.stringMatching(/^[A-Za-z_$\u00c0-\u024f][\w$\u00c0-\u024f?!]{0,30}$/);
      fc.assert(
        fc.property(fc.uniqueArray(fc.tuple(name, fc.integer({ min: 1, max: 10_000 })), { selector: ([n]) => n, maxLength: 30 }), (references) => {
          const index = { ...indexer.index({ path: 'a.txt', content: '' }), references };
          expect(fromCompactBlobIndex(toCompactBlobIndex(index)).references).toEqual(references);
        }),
      );
    });

    it('is much smaller than the plain JSON', () => {
      const content = fs.readFileSync(path.join(FIXTURES, 'sample.ts'));
      const index = indexer.index({ path: 'sample.ts', language: 'TypeScript', content });
      expect(JSON.stringify(toCompactBlobIndex(index)).length).toBeLessThan(JSON.stringify(index).length * 0.6);
    });

    it('refuses what it cannot read with a typed error', () => {
      expect(() => fromCompactBlobIndex({ v: 2 } as never)).toThrow(expect.objectContaining({ kind: 'input_invalid' }));
      expect(() => decodeBlobIndex(Buffer.from('not gzip'))).toThrow(expect.objectContaining({ kind: 'input_invalid' }));
    });

    it('gzips the compact form for a bytea column and reads it back', () => {
      const content = fs.readFileSync(path.join(FIXTURES, 'sample.cpp'));
      const index = indexer.index({ path: 'sample.cpp', language: 'C++', content });
      const bytes = encodeBlobIndex(index);
      expect(decodeBlobIndex(bytes)).toEqual({ ...index, chunks: undefined });
      expect(bytes.length).toBeLessThan(JSON.stringify(toCompactBlobIndex(index)).length);
    });
  });
});

