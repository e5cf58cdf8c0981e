import { fixtureTree, pairs } from '../testing/fixture-tree';
import { definition, references } from './references';

/*
 * Known reference sets per language: aliases, namespaces, re-exports, shadowing by a nested
 * definition, and methods of one name on two classes. Each fixture says which uses are of which
 * definition; a name-matching answer would mix them.
 */

describe('references: TypeScript', () => {
  const files = {
    'src/a.ts': 'export function foo() { return 1; }\nexport class Shop {\n  add(x: number) { return x; }\n}\n',
    'src/b.ts': 'export function foo() { return 2; }\nexport class Cart {\n  add(x: number) { return x; }\n}\n',
    'src/index.ts': "export { foo } from './a';\nexport { foo as bFoo } from './b';\n",
    'src/use.ts': [
      "import { foo as fooA, Shop } from './a';",
      "import * as b from './b';",
      'fooA();',
      'b.foo();',
      'const shop = new Shop();',
      'shop.add(1);',
      'export function outer() {',
      '  function foo() { return 3; }',
      '  return foo();',
      '}',
      '',
    ].join('\n'),
    'src/via-index.ts': "import { foo, bFoo } from './index';\nfoo();\nbFoo();\n",
  };

  it("tells a.foo from b.foo through aliases, namespaces and re-exports; a nested foo shadows both", async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'src/a.ts:1')).references)).toEqual(['src/index.ts:1', 'src/use.ts:1', 'src/use.ts:3', 'src/via-index.ts:1', 'src/via-index.ts:2']);
    expect(pairs((await references(index, 'src/b.ts:1')).references)).toEqual(['src/index.ts:2', 'src/use.ts:4', 'src/via-index.ts:1', 'src/via-index.ts:3']);
    expect(pairs((await references(index, 'src/use.ts:8')).references)).toEqual(['src/use.ts:9']);
  });

  it('ties a method call to the class the file uses, not to another class with a method of that name', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'Shop.add')).references)).toEqual(['src/use.ts:6']);
    expect((await references(index, 'Cart.add')).references).toEqual([]);
  });

  it('gives each use its column, line text, enclosing definition and whether it is a call', async () => {
    const index = await fixtureTree(files);
    const result = await references(index, 'src/use.ts:8');
    expect(result.symbol).toMatchObject({ name: 'foo', kind: 'function', path: 'src/use.ts', line: 8 });
    expect(result.references).toEqual([
      { path: 'src/use.ts', line: 9, column: 10, text: '  return foo();', call: true, resolution: 'local', ambiguous: false, enclosing: { name: 'outer', kind: 'function', line: 7 } },
    ]);
  });

  it('says when a name has several definitions and which one it took', async () => {
    const index = await fixtureTree(files);
    const result = await references(index, 'foo');
    expect(result.alternatives.length).toBe(2);
    expect((await definition(index, 'src/use.ts:4')).definitions[0]).toMatchObject({ path: 'src/b.ts', name: 'foo', resolution: 'import' });
  });
});

describe('references: Python', () => {
  const files = {
    'pkg/__init__.py': 'from .models import User as User\n',
    'pkg/models.py': 'class User:\n    def save(self):\n        return 1\n\n\nclass Order:\n    def save(self):\n        return 2\n\n\ndef helper():\n    return 3\n',
    'pkg/other.py': 'def helper():\n    return 4\n',
    'app.py': [
      'import pkg',
      'from pkg.models import helper',
      'from pkg import other as o',
      'u = pkg.User()',
      'u.save()',
      'helper()',
      'o.helper()',
      '',
      '',
      'def g():',
      '    def helper():',
      '        return 5',
      '    return helper()',
      '',
    ].join('\n'),
  };

  it('follows module namespaces, package re-exports and module aliases; a nested def shadows the import', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'pkg/models.py:11')).references)).toEqual(['app.py:2', 'app.py:6']);
    expect(pairs((await references(index, 'pkg/other.py:1')).references)).toEqual(['app.py:7']);
    expect(pairs((await references(index, 'app.py:11')).references)).toEqual(['app.py:13']);
    expect(pairs((await references(index, 'pkg/models.py:1')).references)).toEqual(['app.py:4', 'pkg/__init__.py:1']);
  });

  it('ties u.save() to the class the file names, not to Order.save', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'User.save')).references)).toEqual(['app.py:5']);
    expect((await references(index, 'Order.save')).references).toEqual([]);
  });
});

describe('references: Go', () => {
  const files = {
    'go.mod': 'module example.com/shop\n\ngo 1.22\n',
    'cart/cart.go': 'package cart\n\ntype Cart struct{}\n\nfunc New() *Cart { return &Cart{} }\n\nfunc (c *Cart) Add() {}\n',
    'cart/helper.go': 'package cart\n\nfunc helper() *Cart { return New() }\n',
    'store/store.go': 'package store\n\nfunc New() {}\n',
    'main.go': 'package main\n\nimport (\n\t"example.com/shop/cart"\n\ts "example.com/shop/store"\n)\n\nfunc main() {\n\tc := cart.New()\n\tc.Add()\n\ts.New()\n}\n',
  };

  it('resolves package-qualified names through the import path, and bare names within the package', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'cart/cart.go:5')).references)).toEqual(['cart/helper.go:3', 'main.go:9']);
    expect(pairs((await references(index, 'store/store.go:3')).references)).toEqual(['main.go:11']);
  });
});

describe('references: Java', () => {
  const files = {
    'src/a/Shop.java': 'package a;\n\npublic class Shop {\n  public void add() {}\n}\n',
    'src/a/Helper.java': 'package a;\n\nclass Helper {\n  Shop make() { return new Shop(); }\n}\n',
    'src/b/Cart.java': 'package b;\n\npublic class Cart {\n  public void add() {}\n}\n',
    'src/app/Main.java': 'package app;\n\nimport a.Shop;\n\nclass Main {\n  void run() {\n    Shop s = new Shop();\n    s.add();\n  }\n}\n',
  };

  it('sees classes of the same package without imports and others through imports; s.add() is Shop.add', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'src/a/Shop.java:3')).references)).toEqual(['src/a/Helper.java:4', 'src/app/Main.java:3', 'src/app/Main.java:7']);
    expect(pairs((await references(index, 'Shop.add')).references)).toEqual(['src/app/Main.java:8']);
    expect((await references(index, 'Cart.add')).references).toEqual([]);
  });
});

describe('references: Rust', () => {
  const files = {
    'src/lib.rs': 'mod shapes;\nmod util;\nuse crate::shapes::area as compute;\n\npub fn run() {\n    compute();\n    util::area();\n}\n',
    'src/shapes.rs': 'pub fn area() {}\n',
    'src/util.rs': 'pub fn area() {}\n',
  };

  it('follows use paths with aliases and module-qualified calls', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'src/shapes.rs:1')).references)).toEqual(['src/lib.rs:3', 'src/lib.rs:6']);
    expect(pairs((await references(index, 'src/util.rs:1')).references)).toEqual(['src/lib.rs:7']);
  });
});

describe('references: C', () => {
  const files = {
    'include/lib.h': 'int shared(int x);\nstatic inline int inl(void) { return 1; }\n',
    'a.c': '#include "include/lib.h"\nint shared(int x) { return x; }\nstatic int local_helper(void) { return 0; }\nint a(void) { return local_helper(); }\n',
    'b.c': '#include "include/lib.h"\nstatic int local_helper(void) { return 1; }\nint f(void) { return shared(1) + local_helper() + inl(); }\n',
  };

  it("keeps a file's static functions to itself and finds globals (and their declarations) through includes", async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'a.c:3')).references)).toEqual(['a.c:4']);
    expect(pairs((await references(index, 'b.c:2')).references)).toEqual(['b.c:3']);
    expect(pairs((await references(index, 'shared')).references)).toEqual(['b.c:3', 'include/lib.h:1']);
    expect(pairs((await references(index, 'inl')).references)).toEqual(['b.c:3']);
  });
});
