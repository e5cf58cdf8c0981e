import { BlobIndexer } from '../index/blob-index';
import { decodeBlobIndex, encodeBlobIndex } from '../index/blob-index-codec';
import { nthWordColumn, unpackOccurrences } from './occurrences';

let indexer: BlobIndexer;
beforeAll(async () => {
  indexer = await BlobIndexer.create();
});

/** Each occurrence as `line:column[flags]`, columns found in the text where implicit. */
function occurrencesOf(path: string, language: string, text: string): Record<string, string[]> {
  const index = indexer.index({ path, language, content: text });
  const lines = text.split('\n');
  const shown: Record<string, string[]> = {};
  for (const [name, list] of unpackOccurrences(index.occurrences, index.references)) {
    let previous = 0;
    let ordinal = 0;
    shown[name] = list.map((occurrence) => {
      ordinal = occurrence.line === previous ? ordinal + 1 : 0;
      previous = occurrence.line;
      const column = occurrence.column !== -1 ? occurrence.column : nthWordColumn(lines[occurrence.line - 1], name, ordinal);
      const via = occurrence.via === 'bare' ? '' : occurrence.via === 'name' ? ` via ${occurrence.receiver}` : ` via ${occurrence.via}`;
      return `${occurrence.line}:${column}${occurrence.call ? ' call' : ''}${occurrence.type ? ' type' : ''}${via}`;
    });
  }
  return shown;
}

describe('occurrences', () => {
  it('records line, column, calls, types and receivers of every use (TypeScript)', () => {
    const text = "import * as ns from './ns';\nns.run(ns.value);\nthis.save();\nconst t: ns.Type = make().get();\nconst s = 'foo'; foo(foo);\n";
    expect(occurrencesOf('a.ts', 'TypeScript', text)).toEqual({
      Type: ['4:12 type via ns'],
      foo: ['5:17 call', '5:21'],
      get: ['4:26 call via expression'],
      make: ['4:19 call'],
      ns: ['1:12', '2:0', '2:7', '4:9'],
      run: ['2:3 call via ns'],
      save: ['3:5 call via this'],
      value: ['2:10 via ns'],
    });
  });

  it('stores a column only where the name also appears earlier on its line in a string or comment', () => {
    const text = "log('foo'); foo();\n";
    const index = indexer.index({ path: 'a.js', language: 'JavaScript', content: text });
    expect(index.occurrences).toContain('@12');
    expect(occurrencesOf('a.js', 'JavaScript', text).foo).toEqual(['1:12 call']);
  });

  it('records receivers in Python, Go, Rust and Java', () => {
    expect(occurrencesOf('a.py', 'Python', 'import os\nos.path.join(self.root)\n')).toMatchObject({ path: ['2:3 via os'], join: ['2:8 call via expression'], root: ['2:18 via this'] });
    expect(occurrencesOf('a.go', 'Go', 'package a\nfunc f() { fmt.Println(x.Y) }\n')).toMatchObject({ Println: ['2:15 call via fmt'], Y: ['2:25 via x'] });
    expect(occurrencesOf('a.rs', 'Rust', 'fn f() { util::area(); self.go(); }\n')).toMatchObject({ area: ['1:15 call via util'], go: ['1:28 call via this'] });
    expect(occurrencesOf('A.java', 'Java', 'class A { void f() { run(); this.g(); o.h(); } }\n')).toMatchObject({ run: ['1:21 call'], g: ['1:33 call via this'], h: ['1:40 call via o'] });
  });
});

describe('bindings, receiver expressions and returned names', () => {
  const facts = (path: string, language: string, text: string) => {
    const index = indexer.index({ path, language, content: text });
    const shown: Record<string, string[]> = {};
    for (const [name, list] of unpackOccurrences(index.occurrences, index.references)) {
      shown[name] = list.map((occurrence) => {
        const parts = [String(occurrence.line)];
        if (occurrence.through) parts.push(`through ${occurrence.through.call ? `${occurrence.through.name}()` : `.${occurrence.through.name}`}`);
        if (occurrence.binds) parts.push(`binds ${occurrence.binds[0]}-${occurrence.binds[1]}${occurrence.field ? ' field' : ''}`);
        if (occurrence.declaredType) parts.push(`: ${occurrence.declaredType}`);
        if (occurrence.value) parts.push(`= ${occurrence.value.kind === 'call' ? `${occurrence.value.name}()` : occurrence.value.kind === 'member' ? `.${occurrence.value.name}` : occurrence.value.name}`);
        if (occurrence.returned) parts.push('returned');
        return parts.join(' ');
      });
    }
    return shown;
  };

  it('TypeScript: locals and parameters with their scope, type and value; parameter properties and fields; chained receivers; returns', () => {
    const text = [
      'class A {',
      '  count: Counter = new Counter();',
      '  constructor(private readonly db: Db, plain: Foo) {}',
      '  run() { return this.db.find().one(); }',
      '}',
      'function make(s: ns.S<T>) {',
      '  const x = z.string().min(5);',
      '  let y: Bar | null = (await g.h())!;',
      '  return new Foo();',
      '}',
      'const k = (a) => a.b.c;',
      '',
    ].join('\n');
    expect(facts('a.ts', 'TypeScript', text)).toMatchObject({
      count: ['2 binds 1-5 field : Counter = Counter()'],
      db: ['3 binds 1-5 field : Db', '4'],
      plain: ['3 binds 3-3 : Foo'],
      find: ['4 through .db'],
      one: ['4 through find() returned'],
      s: ['6 binds 6-10 : S'],
      x: ['7 binds 6-10 = min()'],
      min: ['7 through string()'],
      y: ['8 binds 6-10 : Bar = h()'],
      Foo: ['3', '9 returned'],
      a: ['11 binds 11-11', '11'],
      c: ['11 through .b returned'],
    });
  });

  it('Python: module and local variables, parameters, `with … as`, `self.x = …`, comprehension variables, `super()`', () => {
    const text = [
      'import flask',
      'app = flask.Flask(__name__)',
      'class C(Base):',
      '    x: Foo = Bar()',
      '    def __init__(self, db: t.Optional[Db]):',
      '        self.cli = AppGroup()',
      '    def m(self, a, b=Thing(), *args):',
      '        with app.test_client() as client:',
      '            client.get("/")',
      '        super(C, self).m()',
      '        return flask.views.MethodView',
      'def f(): return [q for q in z]',
      '',
    ].join('\n');
    expect(facts('a.py', 'Python', text)).toMatchObject({
      app: ['2 binds 0-12 = Flask()', '8'],
      x: ['4 binds 3-11 field : Foo = Bar()'],
      db: ['5 binds 5-6 : Db'],
      cli: ['6 binds 3-11 field = AppGroup()'],
      a: ['7 binds 7-11'],
      b: ['7 binds 7-11 = Thing()'],
      args: ['7 binds 7-11'],
      client: ['8 binds 7-11 = test_client()', '9'],
      m: ['10 through super()'],
      MethodView: ['11 through .views returned'],
      q: ['12', '12 binds 12-12'],
    });
  });
});

describe('imports', () => {
  const importsOf = (path: string, language: string, text: string) => indexer.index({ path, language, content: text }).imports;

  it('reads TypeScript imports, re-exports, default exports and CommonJS/dynamic requires', () => {
    const text = [
      "import def, { foo, bar as baz } from './a';",
      "import * as ns from '../b';",
      "export { x as y } from './c';",
      "export * from './d';",
      "const { q, r: s } = require('./f');",
      "const lazy = await import('./g');",
      'export default function main() {}',
    ].join('\n');
    expect(importsOf('a.ts', 'TypeScript', text)).toEqual([
      { line: 1, module: './a', names: [['default', 'def'], ['foo', 'foo'], ['bar', 'baz']] },
      { line: 2, module: '../b', names: [], namespace: 'ns' },
      { line: 3, module: './c', names: [['x', 'y']], reexport: true },
      { line: 4, module: './d', names: [], reexport: true, wildcard: true },
      { line: 5, module: './f', names: [['q', 'q'], ['r', 's']] },
      { line: 6, module: './g', names: [], namespace: 'lazy' },
      { line: 7, module: '', names: [['main', 'default']], reexport: true },
    ]);
  });

  it('reads Python, Go, Java, Rust and C imports', () => {
    expect(importsOf('a.py', 'Python', 'import a.b as c\nfrom ..pkg.mod import y as z, w\nfrom .m import *\n')).toEqual([
      { line: 1, module: 'a.b', names: [], namespace: 'c' },
      { line: 2, module: '..pkg.mod', names: [['y', 'z'], ['w', 'w']] },
      { line: 3, module: '.m', names: [], wildcard: true },
    ]);
    expect(importsOf('a.go', 'Go', 'package main\nimport (\n  "fmt"\n  x "github.com/a/b"\n)\n')).toEqual([
      { line: 3, module: 'fmt', names: [], namespace: 'fmt' },
      { line: 4, module: 'github.com/a/b', names: [], namespace: 'x' },
    ]);
    expect(indexer.index({ path: 'A.java', language: 'Java', content: 'package a.b;\nimport java.util.List;\nimport a.e.*;\nclass A {}\n' })).toMatchObject({
      package: 'a.b',
      imports: [
        { line: 2, module: 'java.util', names: [['List', 'List']] },
        { line: 3, module: 'a.e', names: [], wildcard: true },
      ],
    });
    expect(importsOf('a.rs', 'Rust', 'mod inner;\nuse crate::a::b::{c, d as e};\n')).toEqual([
      { line: 1, module: 'self::inner', names: [], namespace: 'inner' },
      { line: 2, module: 'crate::a::b', names: [['c', 'c']] },
      { line: 2, module: 'crate::a::b', names: [['d', 'e']] },
    ]);
    expect(importsOf('a.c', 'C', '#include "foo/bar.h"\n#include <linux/fs.h>\n')).toEqual([
      { line: 1, module: 'foo/bar.h', names: [] },
      { line: 2, module: 'linux/fs.h', names: [], system: true },
    ]);
  });

  it('survives the stored form unchanged, with local scopes of definitions', () => {
    const text = "import { a as b } from './a';\nexport function f() {\n  function g() { return b(); }\n  return g();\n}\n";
    const index = indexer.index({ path: 'x.ts', language: 'TypeScript', content: text });
    expect(index.definitions.find((definition) => definition.name === 'g')?.local).toEqual([2, 5]);
    expect(decodeBlobIndex(encodeBlobIndex(index))).toEqual({ ...index, chunks: undefined }); // the chunk row is stored apart
  });
});
