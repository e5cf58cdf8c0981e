import fs from 'node:fs';
import path from 'node:path';
import { languageOf } from '@quarry/workspace';
import { SymbolExtractor } from './symbol-extractor';
import type { Definition } from './symbol-types';

const FIXTURES = path.join(__dirname, 'fixtures');

/** `kind Container.name@line`: every definition of each fixture, checked by hand against the source. */
const EXPECTED: Record<string, string[]> = {
  'sample.c': [
    'macro MAX_ITEMS@3',
    'macro SQUARE@4',
    'struct point@6',
    'type point_t@11',
    'enum color@13',
    'union value@15',
    'function add_points@21',
    'function resolve@28',
    'function main@33',
  ],
  'kernel-style.c': [
    'struct widget_ops@5',
    'function widget_init@10',
    'function widget_exit@15',
    'function widget_flags@21',
    'function widget_ready@26',
    'function arch_widget_setup@31',
  ],
  'sample.cpp': [
    'namespace geometry@3',
    'class geometry.Shape@5',
    'method Shape.~Shape@7',
    'method Shape.name@9',
    'struct geometry.Circle@12',
    'method Circle.area@14',
    'function geometry.total@19',
    'function geometry_area@25',
    'method Widget.resize@29',
  ],
  'sample.py': [
    'constant MAX_RETRIES@4',
    'class Repository@7',
    'constant Repository.DEFAULT_NAME@10',
    'method Repository.__init__@12',
    'method Repository.name@16',
    'method Repository.fetch@19',
    'function download@23',
    'function inner@24',
  ],
  'sample.go': [
    'constant DefaultPort@5',
    'interface Handler@7',
    'struct Server@11',
    'type Middleware@15',
    'function NewServer@17',
    'method Server.Start@21',
    'method Server.String@26',
  ],
  'sample.rs': [
    'constant LIMIT@3',
    'struct Stack@5',
    'enum Shape@9',
    'trait Area@13',
    'method Area.area@14',
    'method Stack.new@18',
    'method Stack.push@22',
    'method Shape.fmt@28',
    'macro square@33',
    'function helper@37',
    'module tests@41',
    'function tests.check@42',
  ],
  'Sample.java': [
    'class Sample@5',
    'method Sample.Sample@8',
    'method Sample.count@12',
    'interface Sample.Visitor@16',
    'method Visitor.visit@17',
    'enum Sample.Mode@20',
    'class Sample.Builder@22',
    'method Builder.build@23',
  ],
  'Sample.cs': [
    'namespace Example.Shop@3',
    'interface Example.Shop.IPriced@5',
    'method IPriced.Price@7',
    'struct Example.Shop.Money@10',
    'enum Example.Shop.Currency@15',
    'class Example.Shop.Cart@17',
    'method Cart.Cart@19',
    'method Cart.Price@23',
    'method Cart.Total@28',
  ],
  'sample.rb': [
    'module Shop@3',
    'class Shop.Cart@4',
    'constant Cart.MAX@5',
    'method Cart.initialize@7',
    'method Cart.add@11',
    'method Cart.build@13',
    'method helper@19',
  ],
  'sample.php': [
    'namespace App\\Shapes@2',
    'constant VERSION@4',
    'interface Shape@6',
    'method Shape.area@8',
    'trait Named@11',
    'method Named.name@13',
    'class Circle@19',
    'constant Circle.PI@22',
    'method Circle.__construct@24',
    'method Circle.area@28',
    'enum Suit@34',
    'function helper@39',
  ],
  'sample.ts': [
    'constant DEFAULT_LIMIT@3',
    'interface Store@5',
    'method Store.get@6',
    'type Key@9',
    'enum Mode@11',
    'class Base@16',
    'method Base.close@17',
    'class FileStore@20',
    'method FileStore.constructor@23',
    'method FileStore.get@27',
    'method FileStore.close@31',
    'function createStore@34',
    'function toKey@38',
    'namespace Legacy@42',
    'function Legacy.old@43',
  ],
  'sample.tsx': ['interface Props@3', 'function Header@7', 'function Footer@11'],
  'sample.js': ['class Router@3', 'method Router.constructor@4', 'method Router.add@8', 'function createRouter@13', 'function resolve@17', 'function ids@21'],
};

const describeDefinition = (d: Definition) => `${d.kind} ${d.container === undefined ? '' : `${d.container}.`}${d.name}@${d.line}`;

describe('SymbolExtractor', () => {
  let extractor: SymbolExtractor;
  beforeAll(async () => {
    extractor = await SymbolExtractor.create();
  });

  const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

  it('has a fixture for every listed language', () => {
    const languages = new Set(Object.keys(EXPECTED).map((name) => languageOf(name)));
    expect([...languages].sort()).toEqual(['C', 'C#', 'C++', 'Go', 'Java', 'JavaScript', 'PHP', 'Python', 'Ruby', 'Rust', 'TypeScript']);
  });

  it.each(Object.entries(EXPECTED))('finds the known definitions of %s', (name, expected) => {
    const result = extractor.extract(name, languageOf(name), read(name));
    expect(result.status).toBe('parsed');
    expect(result.warnings).toEqual([]);
    expect(result.definitions.map(describeDefinition)).toEqual(expected);
  });

  it('gives line ranges and one-line signatures', () => {
    const c = extractor.extract('sample.c', 'C', read('sample.c')).definitions;
    expect(c.find((d) => d.name === 'add_points')).toEqual({
      kind: 'function',
      name: 'add_points',
      line: 21,
      startLine: 20,
      endLine: 26,
      signature: 'static int add_points(struct point *a, const struct point *b)',
    });
    const py = extractor.extract('sample.py', 'Python', read('sample.py')).definitions;
    expect(py.find((d) => d.name === 'fetch')).toMatchObject({ startLine: 19, endLine: 20, signature: 'async def fetch(self, url: str) -> bytes' });
    const go = extractor.extract('sample.go', 'Go', read('sample.go')).definitions;
    expect(go.find((d) => d.name === 'Start')?.signature).toBe('func (s *Server) Start() error');
  });

  it('counts references without the names being defined', () => {
    const { references } = extractor.extract('sample.c', 'C', read('sample.c'));
    expect(references.get('add_points')).toBe(1); // the call in main, not the definition
    expect(references.get('SQUARE')).toBe(1);
    expect(references.get('p')).toBe(3);
    expect(references.has('main')).toBe(false);
  });

  it('reads names after non-ASCII text at the right offsets', () => {
    const text = '// Grüße, 日本語 🎉\nfunction grüßen(naïve) { return naïve + größe; }\n';
    const result = extractor.extract('x.js', 'JavaScript', text);
    expect(result.definitions.map(describeDefinition)).toEqual(['function grüßen@2']);
    expect([...result.references]).toEqual([
      ['naïve', 2],
      ['größe', 1],
    ]);
  });

  it('gives no symbols and no error for languages without a grammar', () => {
    expect(extractor.extract('notes.md', 'Markdown', '# Title\n')).toMatchObject({ status: 'unsupported', definitions: [], references: new Map(), imports: [], warnings: [] });
    expect(extractor.extract('data.bin', undefined, 'x').status).toBe('unsupported');
  });

  it('still finds definitions around syntax errors', () => {
    const result = extractor.extract('broken.py', 'Python', 'def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    pass\n');
    expect(result.status).toBe('parsed');
    expect(result.definitions.map((d) => d.name)).toEqual(expect.arrayContaining(['ok', 'Fine']));
  });

  it('skips files over the size limit with a counted warning', async () => {
    const small = await SymbolExtractor.create({ maxBytes: 100 });
    const result = small.extract('big.ts', 'TypeScript', 'const a = 1;\n'.repeat(20));
    expect(result.status).toBe('skipped');
    expect(result.warnings).toEqual([{ kind: 'too_large', message: expect.stringContaining('big.ts') }]);
  });

  it('abandons a parse past its time budget with a warning, and parses the next file normally', async () => {
    const impatient = await SymbolExtractor.create({ parseTimeoutMs: -1 });
    const big = 'int f(int x) { return x; }\n'.repeat(20_000);
    const result = impatient.extract('big.c', 'C', big);
    expect(result.status).toBe('failed');
    expect(result.warnings).toEqual([{ kind: 'grammar_failed', message: expect.stringContaining('longer than') }]);
    expect(extractor.extract('small.c', 'C', 'int f(void) { return 0; }').definitions).toHaveLength(1);
  });

  describe('compress', () => {
    it('keeps signatures and drops multi-line bodies', () => {
      const compressed = extractor.compress('sample.ts', 'TypeScript', read('sample.ts'))!;
      expect(compressed.text).toContain('export function createStore(root: string): Store { … }');
      expect(compressed.text).toContain('async get(key: Key): Promise<string | undefined> { … }');
      expect(compressed.text).not.toContain('return new FileStore(root)');
      expect(compressed.text).toContain('export interface Store {\n  get(key: string): Promise<string | undefined>;\n}');
      expect(compressed.elidedBodies).toBe(4);
    });

    it('uses each language’s placeholder', () => {
      const python = extractor.compress('sample.py', 'Python', read('sample.py'))!.text;
      expect(python).toContain('def download(url):\n    ...');
      expect(python).not.toContain('def inner');
      const ruby = extractor.compress('sample.rb', 'Ruby', read('sample.rb'))!.text;
      expect(ruby).toContain('def initialize(items)\n      # …\n    end');
    });

    it('is undefined for languages without a grammar', () => {
      expect(extractor.compress('a.md', 'Markdown', '# x')).toBeUndefined();
    });
  });
});
