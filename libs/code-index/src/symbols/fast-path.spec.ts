import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { languageOf } from '@quarry/workspace';
import { comparableExtraction as comparable, filesUnder } from './extraction-testing';
import { SymbolExtractor } from './symbol-extractor';

/**
 * The extractor's fast paths must not change what it extracts. The reference is the extraction as
 * it was before them: web-tree-sitter's public cursor (not fast-cursor.ts, nor the native C parser) over a parse of the
 * whole file (C bodies parsed, not lexed by c-bodies.ts). Compared on the fixtures, on this
 * repository's own sources (every language the fixtures cover, and a few thousand lines of
 * TypeScript), and on real C from the Linux tree when the benchmarks have prepared it.
 *
 * On C where tree-sitter itself loses its way inside a body (a `for_each_cpu(i) {` macro loop read
 * as a nested function, an attribute macro in a cast) the two may differ: the lexer does not
 * reproduce the grammar's error recovery. On Linux `fs/` that is 72 of 1,897 files and about 300
 * of 1.64 million name occurrences (a call flag, a keyword the grammar took for a name), and the
 * definitions differ only where the whole parse had made bogus ones (README). The directories
 * compared here have no such place, so any difference is a regression.
 */
const REPO = path.resolve(__dirname, '..', '..', '..', '..');
const FIXTURES = path.join(__dirname, 'fixtures');
const LINUX = process.env.QUARRY_BENCH_LINUX ?? path.join(os.homedir(), '.cache/quarry-bench/linux-6.1');

/** Sources of the languages Quarry indexes, under 400 KB. */
const sourcesUnder = (directory: string, limit: number) => filesUnder(directory, limit, (name, bytes) => languageOf(name) !== undefined && bytes < 400_000);

describe('the extractor’s fast paths', () => {
  let fast: SymbolExtractor;
  let reference: SymbolExtractor;
  beforeAll(async () => {
    [fast, reference] = await Promise.all([SymbolExtractor.create(), SymbolExtractor.create({ publicCursor: true, parseCBodies: true, nativeC: false })]);
  });

  it('walks with the runtime’s functions directly (web-tree-sitter 0.25’s module)', () => {
    expect(fast.fastCursor).toBe(true);
    expect(reference.fastCursor).toBe(false);
  });

  const corpora: [string, () => string[]][] = [
    ['the fixtures', () => sourcesUnder(FIXTURES, 100)],
    ['this repository’s sources', () => [...sourcesUnder(path.join(REPO, 'libs/code-index/src'), 60), ...sourcesUnder(path.join(REPO, 'libs/code-graph/src'), 40), ...sourcesUnder(path.join(REPO, 'apps/web/src'), 10)]],
    [
      'C from the Linux tree (when prepared)',
      () => ['fs/ext2', 'fs/fat', 'fs/kernfs', 'fs/ramfs', 'fs/autofs', 'fs/nls/nls_cp936.c', 'fs/nls/nls_iso8859-1.c', 'lib/string.c', 'lib/bitmap.c', 'mm/mmap.c'].flatMap((part) => (part.endsWith('.c') ? [path.join(LINUX, part)].filter((file) => fs.existsSync(file)) : sourcesUnder(path.join(LINUX, part), 60))),
    ],
  ];
  it.each(corpora)('extracts the same as before from %s', (_name, files) => {
    const paths = files();
    for (const file of paths) {
      const text = fs.readFileSync(file, 'utf8');
      const language = languageOf(file);
      const relative = path.basename(file);
      expect({ file, ...comparable(fast.extract(relative, language, text), text) }).toEqual({ file, ...comparable(reference.extract(relative, language, text), text) });
    }
  });

  it('gives the same compressed source', () => {
    for (const file of sourcesUnder(FIXTURES, 100)) {
      const text = fs.readFileSync(file, 'utf8');
      expect(fast.compress(file, languageOf(file), text)).toEqual(reference.compress(file, languageOf(file), text));
    }
  });
});
