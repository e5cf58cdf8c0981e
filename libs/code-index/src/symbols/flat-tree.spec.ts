import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Parser, type Node } from 'web-tree-sitter';
import { languageOf } from '@quarry/workspace';
import { includedRanges, scanCBodies } from './c-bodies';
import { loadGrammar } from './grammars';
import { FlatTree } from './flat-tree';
import { NativeCParser, nativeCAvailable } from './native-c';
import { comparableExtraction as comparable, filesUnder } from './extraction-testing';
import { SymbolExtractor } from './symbol-extractor';
import type { SyntaxNode } from './syntax-node';

/**
 * The native C parser (native/c_syntax.c, flat-tree.ts) must give what the WebAssembly build of
 * the same grammar gives: node by node through the `SyntaxNode` API the rules read, and
 * extraction by extraction. Real C comes from the tree-sitter runtime's own sources (installed with
 * it), the system's headers, the fixtures, and the Linux tree when the benchmarks have prepared it.
 */
const REPO = path.resolve(__dirname, '..', '..', '..', '..');
const RUNTIME_SOURCES = path.join(REPO, 'node_modules/tree-sitter/vendor/tree-sitter/lib/src');
const LINUX = process.env.QUARRY_BENCH_LINUX ?? path.join(os.homedir(), '.cache/quarry-bench/linux-6.1');

/** C sources and headers under 1 MB. */
const cFilesUnder = (directory: string, limit: number) => filesUnder(directory, limit, (name, bytes) => /\.[ch]$/.test(name) && bytes < 1_000_000);

/** A node as the rules can see it, its children's and fields' shapes included (not their subtrees). */
function described(node: SyntaxNode, fieldNames: readonly string[]) {
  return {
    typeId: node.typeId,
    type: node.type,
    isNamed: node.isNamed,
    hasError: node.hasError,
    startIndex: node.startIndex,
    endIndex: node.endIndex,
    startPosition: node.startPosition,
    endPosition: node.endPosition,
    text: node.text,
    parent: node.parent === null ? null : [node.parent.type, node.parent.startIndex],
    childCount: node.childCount,
    namedChildCount: node.namedChildCount,
    children: node.children.map((child) => child && [child.type, child.startIndex, child.endIndex]),
    namedChildren: node.namedChildren.map((child) => child && [child.type, child.startIndex]),
    fieldsOfChildren: node.children.map((_child, index) => node.fieldNameForChild(index)),
    byField: fieldNames.map((name) => [node.childForFieldName(name)?.startIndex ?? null, node.childrenForFieldName(name).map((child) => child?.startIndex)]),
    namedChild1: node.namedChild(1)?.startIndex ?? null,
    child2: node.child(2)?.startIndex ?? null,
  };
}

function compareTrees(native: SyntaxNode, wasm: Node, fieldNames: readonly string[], file: string): number {
  expect({ file, ...described(native, fieldNames) }).toEqual({ file, ...described(wasm, fieldNames) });
  const nativeChildren = native.children;
  const wasmChildren = wasm.children;
  let nodes = 1;
  for (let index = 0; index < wasmChildren.length; index++) nodes += compareTrees(nativeChildren[index]!, wasmChildren[index]!, fieldNames, file);
  return nodes;
}

describe('the native C parser', () => {
  let native: SymbolExtractor;
  let wasm: SymbolExtractor;
  beforeAll(async () => {
    [native, wasm] = await Promise.all([SymbolExtractor.create(), SymbolExtractor.create({ nativeC: false })]);
  });

  it('is built and used (npm run build makes it)', () => {
    expect(nativeCAvailable()).toBe(true);
    expect(native.nativeC).toBe(true);
    expect(wasm.nativeC).toBe(false);
  });

  it('is off with QUARRY_NATIVE=0 (C then goes through WebAssembly, tokens through JavaScript)', () => {
    const saved = process.env.QUARRY_NATIVE;
    process.env.QUARRY_NATIVE = '0';
    try {
      jest.isolateModules(() => {
        expect((require('./native-c') as typeof import('./native-c')).nativeCAvailable()).toBe(false);
        expect((require('../native') as typeof import('../native')).nativeAddon('bpe_count')).toBeNull();
      });
    } finally {
      if (saved === undefined) delete process.env.QUARRY_NATIVE;
      else process.env.QUARRY_NATIVE = saved;
    }
  });

  it('gives the same nodes as web-tree-sitter, whole and in included ranges', async () => {
    const language = await loadGrammar('c');
    const parser = new Parser();
    parser.setLanguage(language);
    const nativeParser = NativeCParser.for(language)!;
    const fieldNames = language.fields.filter((name): name is string => name !== null);
    const files = [
      ...cFilesUnder(path.join(__dirname, 'fixtures'), 10),
      ...cFilesUnder(RUNTIME_SOURCES, 6),
      path.join(REPO, 'libs/code-index/native/c_syntax.c'),
    ];
    let nodes = 0;
    const errors = (root: SyntaxNode) => root.descendantsOfType('ERROR').map((node) => [node!.startIndex, node!.endIndex]);
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      const whole = parser.parse(text)!;
      const nativeWhole = nativeParser.parse(text, 10_000)!;
      nodes += compareTrees(nativeWhole.rootNode, whole.rootNode, fieldNames, file);
      expect(errors(nativeWhole.rootNode)).toEqual(errors(whole.rootNode));
      whole.delete();
      const bodies = scanCBodies(text);
      if (bodies === undefined) continue;
      const ranges = includedRanges(text, bodies.regions);
      const ranged = parser.parse(text, null, { includedRanges: ranges })!;
      nodes += compareTrees(nativeParser.parse(text, 10_000, ranges)!.rootNode, ranged.rootNode, fieldNames, file);
      ranged.delete();
    }
    expect(nodes).toBeGreaterThan(5_000);
  });

  it('finds ERROR nodes as web-tree-sitter does: the node itself included, nothing ending at offset 0', () => {
    // Records by hand (flat-tree.ts's layout): a root that is itself an ERROR (as a whole header
    // can be), a zero-width ERROR at offset 0, an ERROR with a child, and a named leaf.
    const ERROR = 65535;
    const rows = [
      // typeId, fieldId, start, end, next, parent, flags
      [ERROR, 0, 0, 10, 5, -1, 3],
      [ERROR, 0, 0, 0, 2, 0, 1],
      [ERROR, 0, 2, 5, 4, 0, 3],
      [1, 0, 2, 3, 4, 2, 1],
      [1, 0, 6, 10, 5, 0, 1],
    ];
    const tree = new FlatTree(Int32Array.from(rows.flat()), 'abcdefghij', { types: ['end', 'identifier'], fields: [null], fieldIds: new Map() });
    expect(tree.rootNode.type).toBe('ERROR');
    expect(tree.rootNode.descendantsOfType('ERROR').map((node) => [node.startIndex, node.endIndex])).toEqual([
      [0, 10],
      [2, 5],
    ]);
    expect(tree.rootNode.children.map((node) => node.type)).toEqual(['ERROR', 'ERROR', 'identifier']);
    expect(tree.rootNode.child(1)!.descendantsOfType(['identifier']).map((node) => node.text)).toEqual(['c']);
  });

  it('counts positions in UTF-16 code units and rows by \\n, as web-tree-sitter does', async () => {
    const language = await loadGrammar('c');
    const parser = new Parser();
    parser.setLanguage(language);
    const text = '// 日本語 😀 ß\r\nint 変数 = 1; /* 😀😀 */ int b;\r\nchar *s = "é😀";\nstruct 😀 { int x; };\n';
    const fieldNames = language.fields.filter((name): name is string => name !== null);
    const wasmTree = parser.parse(text)!;
    expect(compareTrees(NativeCParser.for(language)!.parse(text, 10_000)!.rootNode, wasmTree.rootNode, fieldNames, 'unicode')).toBeGreaterThan(10);
    wasmTree.delete();
  });

  const corpora: [string, () => string[]][] = [
    ['the fixtures', () => cFilesUnder(path.join(__dirname, 'fixtures'), 10)],
    ['tree-sitter’s runtime sources', () => cFilesUnder(RUNTIME_SOURCES, 100)],
    ['the system’s headers', () => cFilesUnder('/usr/include', 150)],
    ['C from the Linux tree (when prepared)', () => ['fs/ext4', 'kernel/sched', 'drivers/net/ethernet/intel/e1000', 'include/linux', 'arch/alpha/include/asm'].flatMap((part) => cFilesUnder(path.join(LINUX, part), 120))],
  ];
  it.each(corpora)('extracts the same as the WebAssembly build from %s', (_name, files) => {
    for (const file of files()) {
      const text = fs.readFileSync(file, 'utf8');
      const relative = path.basename(file);
      expect({ file, ...comparable(native.extract(relative, languageOf(file), text), text) }).toEqual({ file, ...comparable(wasm.extract(relative, languageOf(file), text), text) });
    }
  });

  it('recovers from syntax errors as the WebAssembly build does (bodies near errors parsed after all)', () => {
    const text = [
      'static int broken(struct foo *f {',
      '  return f->x + ;',
      '}',
      'int fine(void) { for_each_cpu(i) { call(i); } return 0; }',
      '#define MAX(a, b) ((a) > (b) ? (a) : (b))',
      'struct s { int x; ) ;',
      'void tail(void) { if (x { y(); } }',
    ].join('\n');
    const nativeSymbols = native.extract('broken.c', 'C', text);
    expect(nativeSymbols.definitions.map((definition) => definition.name)).toEqual(expect.arrayContaining(['fine', 'MAX']));
    expect(comparable(nativeSymbols, text)).toEqual(comparable(wasm.extract('broken.c', 'C', text), text));
  });

  it('gives up on a parse past its deadline with the same warning', async () => {
    const slow = await SymbolExtractor.create({ parseTimeoutMs: 0 });
    expect(slow.nativeC).toBe(true);
    const text = 'int f(void) { return 1; }\n'.repeat(20_000) + 'int x = (((((((((1)))))))));\n'.repeat(2_000);
    const result = slow.extract('slow.c', 'C', text);
    expect(result.status).toBe('failed');
    expect(result.warnings).toEqual([{ kind: 'grammar_failed', message: 'slow.c: parsing took longer than 0 ms, symbols not extracted' }]);
    // The parser is usable afterwards.
    expect(native.extract('after.c', 'C', 'int after(void) { return 0; }\n').definitions.map((definition) => definition.name)).toEqual(['after']);
  });

  it('compresses C as the WebAssembly build does', () => {
    for (const file of [...cFilesUnder(path.join(__dirname, 'fixtures'), 10), ...cFilesUnder(RUNTIME_SOURCES, 8)]) {
      const text = fs.readFileSync(file, 'utf8');
      expect(native.compress(file, 'C', text)).toEqual(wasm.compress(file, 'C', text));
    }
  });
});
