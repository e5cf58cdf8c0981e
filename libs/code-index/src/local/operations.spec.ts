import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeTempTree, removeTempTree } from '../../../workspace/src/testing/temp-tree';
import { countTokens } from '../tokens/token-counter';
import { StringSink } from '../pack/sinks';
import { listLocalTree } from './local-tree';
import { findSymbols, mapTree, packToFile, packTree, pruneArtifacts } from './operations';
import { validateCodeIndexInput } from '../validate-input';
import { CodeIndexCache } from './tree-index';

let root: string;
const cache = new CodeIndexCache();

beforeAll(async () => {
  root = fs.realpathSync(
    await makeTempTree(
      {
        'src/db.ts': 'export class Database {\n  query(sql: string) {\n    return sql;\n  }\n}\nexport function connect(): Database {\n  return new Database();\n}\n',
        'src/app.ts': 'import { connect } from "./db";\nconst db = connect();\ndb.query("select 1");\n',
        'src/util.go': 'package src\n\nfunc Helper() int {\n\treturn 1\n}\n',
        'lib/config.ts': 'export const githubToken = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";\n',
        'docs/readme.md': '# Readme\n',
        'keys/server.pem': '-----BEGIN PRIVATE KEY-----\n',
        'blob.bin': Buffer.from([1, 2, 0, 3]),
      },
      'quarry-code-ops-',
    ),
  );
});
afterAll(() => removeTempTree(root));

describe('listLocalTree', () => {
  it('lists files sorted, leaves credential files out, and changes state when a file changes', async () => {
    const before = await listLocalTree(root);
    expect(before.entries.map((entry) => entry.path)).toEqual(['blob.bin', 'docs/readme.md', 'lib/config.ts', 'src/app.ts', 'src/db.ts', 'src/util.go']);
    expect(before.secretFiles).toBe(1);
    expect((await listLocalTree(root)).state).toBe(before.state);
    fs.writeFileSync(path.join(root, 'docs/new.md'), 'x\n');
    try {
      expect((await listLocalTree(root)).state).not.toBe(before.state);
    } finally {
      fs.rmSync(path.join(root, 'docs/new.md'));
    }
  });
});

describe('findSymbols', () => {
  it('lists every definition in path and line order, cut at the limit', async () => {
    const tree = await cache.tree(root);
    const all = findSymbols(tree, { limit: 1000 });
    expect(all.definitions.map((row) => `${row.path}:${row.line} ${row.kind} ${row.name}`)).toEqual([
      'lib/config.ts:1 constant githubToken',
      'src/app.ts:2 constant db',
      'src/db.ts:1 class Database',
      'src/db.ts:2 method query',
      'src/db.ts:6 function connect',
      'src/util.go:3 function Helper',
    ]);
    expect(all).toMatchObject({ total: 6, truncated: false, files: 4 });
    expect(findSymbols(tree, { limit: 2 })).toMatchObject({ total: 6, truncated: true });
    expect(findSymbols(tree, { path: '**/*.go', limit: 10 }).definitions.map((row) => row.name)).toEqual(['Helper']);
  });

  it('looks a name up with its uses; a path filter that excludes every match says where it is', async () => {
    const tree = await cache.tree(root);
    expect(findSymbols(tree, { name: 'Database.query', limit: 10 }).definitions).toEqual([
      { path: 'src/db.ts', name: 'query', kind: 'method', line: 2, startLine: 2, endLine: 4, signature: 'query(sql: string)', container: 'Database', references: 1 },
    ]);
    expect(() => findSymbols(tree, { name: 'connect', path: 'lib/**', limit: 10 })).toThrow(expect.objectContaining({ kind: 'symbol_not_found', suggestion: expect.stringContaining('src/db.ts') }));
  });
});

describe('credentials in signatures', () => {
  it('are redacted in the symbol list, a lookup and the map', async () => {
    const tree = await cache.tree(root);
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const listed = findSymbols(tree, { path: 'lib/**', limit: 10 }).definitions[0];
    expect(listed.signature).not.toContain(secret);
    expect(listed.signature).toContain('[REDACTED');
    expect(findSymbols(tree, { name: 'githubToken', limit: 10 }).definitions[0].signature).not.toContain(secret);
    const map = mapTree(tree, { tokens: 10_000, encoding: 'o200k_base' });
    expect(map.text).toContain('githubToken');
    expect(map.text).not.toContain(secret);
  });
});

describe('mapTree', () => {
  it('reads focus entries as files when the tree has them and as symbols otherwise', async () => {
    const tree = await cache.tree(root);
    const map = mapTree(tree, { tokens: 200, focus: ['./src/app.ts', 'Helper'], encoding: 'o200k_base' });
    expect(map.focus).toEqual({ paths: ['src/app.ts'], symbols: ['Helper'] });
    expect(map.tokens).toBe(countTokens(map.text));
    expect(map.text.split('\n')[0]).toBe('src/util.go'); // the focused symbol's file ranks first
    const textFiles = tree.files.filter((file) => !file.index.binary);
    expect(map.repository.total).toBe(textFiles.reduce((sum, file) => sum + file.index.tokens, 0));
    expect(map.repository.byDirectory.map((row) => row.path)).toEqual(['src', 'lib', 'docs']);
  });

  it('refuses a focus entry that is neither a file nor a name', async () => {
    const tree = await cache.tree(root);
    expect(() => mapTree(tree, { tokens: 200, focus: ['no such file.ts'], encoding: 'o200k_base' })).toThrow(expect.objectContaining({ kind: 'symbol_invalid' }));
  });
});

describe('packTree', () => {
  it('packs text files with totals per language and directory; binary and credential files stay out', async () => {
    const sink = new StringSink();
    const result = await packTree(root, { style: 'plain', compress: false, encoding: 'o200k_base' }, sink, { cache });
    expect(result).toMatchObject({ files: 5, redactions: 1, skipped: { binary: 1, filtered: 0, secretFiles: 1 } });
    expect(result.totals.total).toBe(result.tokens);
    expect(result.totals.byLanguage.map((row) => row.language).sort()).toEqual(['Go', 'Markdown', 'TypeScript']);
    expect(result.totals.largestFiles[0].path).toBe('src/db.ts');
    expect(sink.toString()).not.toContain('PRIVATE KEY');
  });

  it('compresses bodies with the cache\'s parser', async () => {
    const sink = new StringSink();
    const result = await packTree(root, { style: 'xml', compress: true, include: ['src/db.ts'], encoding: 'o200k_base' }, sink, { cache });
    expect(result.compressed).toBe(1);
    expect(sink.toString()).not.toContain('return new Database()');
  });

  it('stops when cancelled, and packToFile then leaves nothing behind', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-pack-out-'));
    try {
      const controller = new AbortController();
      controller.abort();
      await expect(packToFile(root, { style: 'xml', compress: false, encoding: 'o200k_base' }, path.join(out, 'p.xml'), { cache, signal: controller.signal })).rejects.toBeDefined();
      expect(fs.readdirSync(out)).toEqual([]);
      const done = await packToFile(root, { style: 'markdown', compress: false, encoding: 'o200k_base' }, path.join(out, 'p.md'), { cache });
      expect(done.artifact).toEqual({ name: 'p.md', bytes: fs.statSync(path.join(out, 'p.md')).size, contentType: 'text/markdown; charset=utf-8' });
      expect(fs.readdirSync(out)).toEqual(['p.md']);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('validateCodeIndexInput', () => {
  it.each([
    ['map', { tokens: 0 }, 'budget_invalid'],
    ['map', { tokens: Number.NaN }, 'budget_invalid'],
    ['pack', { style: 'html' }, 'style_unknown'],
    ['pack', { style: 'xml', maxTokens: 2e9 }, 'budget_invalid'],
    ['pack', { style: 'xml', include: ['a/[b'] }, 'pattern_invalid'],
    ['pack', { style: 'xml', ignore: Array.from({ length: 101 }, () => 'a') }, 'pattern_invalid'],
    ['symbols', { name: '  ' }, 'symbol_invalid'],
    ['symbols', { name: 'a'.repeat(257) }, 'symbol_invalid'],
    ['symbols', { name: '.*' }, 'symbol_invalid'],
    ['symbols', { path: '' }, 'pattern_invalid'],
  ] as const)('%s %j → %s', (kind, input, errorKind) => {
    expect(() => validateCodeIndexInput(kind, input)).toThrow(expect.objectContaining({ kind: errorKind, suggestion: expect.any(String) }));
  });

  it('accepts good input', () => {
    expect(() => validateCodeIndexInput('pack', { style: 'markdown', include: ['src/**'], ignore: ['**/*.test.ts'], maxTokens: 1000 })).not.toThrow();
    expect(() => validateCodeIndexInput('map', { tokens: 2048 })).not.toThrow();
    expect(() => validateCodeIndexInput('symbols', { name: 'Server.start', path: 'src/**' })).not.toThrow();
  });
});

describe('packTree with the tree already indexed', () => {
  it('reuses the index\'s tokens, findings and binary flags: the same document as a cold pack', async () => {
    const cold = new StringSink();
    const fresh = new CodeIndexCache({ indexer: () => cache.blobIndexer() });
    const coldResult = await packTree(root, { style: 'xml', compress: false, encoding: 'o200k_base' }, cold, { cache: fresh });
    const listing = await listLocalTree(root);
    expect(listing.entries.every((entry) => fresh.known(root, entry) === undefined)).toBe(true);
    await fresh.tree(root);
    expect(listing.entries.every((entry) => fresh.known(root, entry) !== undefined)).toBe(true);
    expect(fresh.known('/another/root', listing.entries[0])).toBeUndefined();
    const warm = new StringSink();
    const warmResult = await packTree(root, { style: 'xml', compress: false, encoding: 'o200k_base' }, warm, { cache: fresh });
    expect(warm.toString()).toBe(cold.toString());
    expect(warmResult).toEqual(coldResult);
  });
});

describe('pruneArtifacts', () => {
  it('removes pack documents and abandoned partial files older than the age, and nothing else', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-prune-'));
    try {
      const old = Date.now() / 1000 - 3 * 86_400;
      for (const name of ['d4553f99-6e10-47fb-9b69-2effae54dc68.xml', 'd4553f99-6e10-47fb-9b69-2effae54dc68.md.partial', 'notes.txt', 'pack-mh1x2-abc123.txt']) fs.writeFileSync(path.join(dir, name), 'x');
      for (const name of ['d4553f99-6e10-47fb-9b69-2effae54dc68.xml', 'd4553f99-6e10-47fb-9b69-2effae54dc68.md.partial', 'notes.txt']) fs.utimesSync(path.join(dir, name), old, old);
      expect(await pruneArtifacts(dir, 86_400_000)).toBe(2);
      expect(fs.readdirSync(dir).sort()).toEqual(['pack-mh1x2-abc123.txt', 'notes.txt'].sort());
      expect(await pruneArtifacts(path.join(dir, 'missing'), 1)).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
