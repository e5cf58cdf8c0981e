import { fixtureTree, pairs } from '../testing/fixture-tree';
import { references } from './references';

/*
 * One fixture per class of resolution the accuracy benchmark (bench (n)) found missing or wrong
 * against TypeScript's language service and pyright: each states what the language server
 * answers for that construct.
 */

describe('references: a module namespace passed on under a name', () => {
  it('TypeScript: `import * as z from …; export { z }` — `z.string()` in an importer is the module\'s `string`', async () => {
    const index = await fixtureTree({
      'lib/schemas.ts': 'export function string() { return 1; }\n',
      'lib/external.ts': "export * from './schemas';\n",
      'lib/index.ts': "import * as z from './external';\nexport * from './external';\nexport { z, z as default };\n",
      'lib/entry.ts': "export * from './index';\nexport * as ns from './external';\n",
      'use.ts': "import { z } from './lib/index';\nimport zed from './lib/index';\nimport { ns } from './lib/entry';\nz.string();\nzed.string();\nns.string();\n",
      'other.ts': 'export class Mocker {\n  string() { return 2; }\n}\n',
    });
    expect(pairs((await references(index, 'lib/schemas.ts:1')).references)).toEqual(['use.ts:4', 'use.ts:5', 'use.ts:6']);
    expect((await references(index, 'Mocker.string')).references).toEqual([]);
  });
});

describe('references: class heads with `$` in names', () => {
  it('TypeScript: `interface $A<I extends $Base>` does not extend `$Base` (a type parameter bound is not a base)', async () => {
    const index = await fixtureTree({
      'a.ts': [
        'export interface $Base<T = unknown> { parse(): T }',
        'export interface $A<',
        '  I extends $Base<number> = $Base<number>,',
        '> { parse(): void }',
        'export interface $C<I extends $Base<string> = $Base<string>> { parse(): void }',
        'export function use(a: $A, c: $C) {',
        '  a.parse();',
        '  c.parse();',
        '}',
        '',
      ].join('\n'),
    });
    expect(pairs((await references(index, '$A.parse')).references).filter((pair) => pair !== 'a.ts:1')).toEqual(['a.ts:7']);
  });
});

describe('references: members reached through values whose type the code states (TypeScript)', () => {
  const files = {
    'lib.ts': [
      'export class StrSchema {',
      '  min(n: number): this { return this; }',
      '  parse(x: unknown) { return x; }',
      '}',
      'export class NumSchema {',
      '  min(n: number): this { return this; }',
      '  parse(x: unknown) { return x; }',
      '}',
      'export function string(): StrSchema { return new StrSchema(); }',
      'export function number(): NumSchema { return new NumSchema(); }',
      'export function make() { return new NumSchema(); }',
      '',
    ].join('\n'),
    'use.ts': [
      "import * as z from './lib';",
      'z.string().min(5).parse(1);',
      'z.number()',
      '  .min(1);',
      'const s = z.string();',
      's.min(2);',
      'z.make().parse(3);',
      'export function check(n: z.NumSchema) {',
      '  n.parse(4);',
      '}',
      '',
    ].join('\n'),
  };

  it('chains of calls: a function\'s declared return type, `this`, `new`, a factory\'s returned value, a parameter\'s type', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'StrSchema.min')).references)).toEqual(['use.ts:2', 'use.ts:6']);
    expect(pairs((await references(index, 'NumSchema.min')).references)).toEqual(['use.ts:4']);
    expect(pairs((await references(index, 'StrSchema.parse')).references)).toEqual(['use.ts:2']);
    expect(pairs((await references(index, 'NumSchema.parse')).references)).toEqual(['use.ts:7', 'use.ts:9']);
  });

  it('a base class\'s method used through a subclass; a field or parameter property\'s declared type', async () => {
    const index = await fixtureTree({
      'model.ts': [
        'export class Base { save() { return 1; } }',
        'export class Sub extends Base {}',
        'export class Other { save() { return 2; } }',
        'export class Repo { save() { return 3; } }',
        '',
      ].join('\n'),
      'service.ts': [
        "import { Sub, Repo, Other } from './model';",
        'export class Service {',
        '  private other = new Other();',
        '  constructor(private readonly repo: Repo, readonly other2: Other) {}',
        '  run() {',
        '    new Sub().save();',
        '    this.repo.save();',
        '    this.other.save();',
        '    this.other2.save();',
        '  }',
        '}',
        '',
      ].join('\n'),
    });
    expect(pairs((await references(index, 'Base.save')).references)).toEqual(['service.ts:6']);
    expect(pairs((await references(index, 'Repo.save')).references)).toEqual(['service.ts:7']);
    expect(pairs((await references(index, 'Other.save')).references)).toEqual(['service.ts:8', 'service.ts:9']);
  });
});

describe('references: variables and parameters shadow module-level names', () => {
  it('TypeScript: a `const` in a test callback and a parameter are not the module-level constant', async () => {
    const index = await fixtureTree({
      'a.test.ts': [
        'const schema = 1;',
        "test('one', () => {",
        '  const schema = 2;',
        '  return schema;',
        '});',
        'export function f(schema: number) { return schema; }',
        'export const g = schema + 1;',
        '',
      ].join('\n'),
    });
    expect(pairs((await references(index, 'a.test.ts:1')).references)).toEqual(['a.test.ts:7']);
  });

  it('Python: a test\'s parameter named after a fixture function is not a use of it', async () => {
    const index = await fixtureTree({
      'tests/test_cli.py': [
        'import pytest',
        '',
        '',
        '@pytest.fixture',
        'def runner():',
        '    return 1',
        '',
        '',
        'def test_run(runner):',
        '    assert runner == 1',
        '',
        '',
        'def test_direct():',
        '    assert runner() == 1',
        '',
      ].join('\n'),
    });
    expect(pairs((await references(index, 'tests/test_cli.py:5')).references)).toEqual(['tests/test_cli.py:14']);
  });
});

describe('references: members reached through values whose type the code states (Python)', () => {
  const files = {
    'pkg/__init__.py': 'from .app import Flask as Flask\nfrom .blueprints import Blueprint as Blueprint\n',
    'pkg/sansio/__init__.py': '',
    'pkg/sansio/blueprints.py': [
      'class Blueprint:',
      '    def app_template_test(self, name=None):',
      '        return name',
      '',
      '    def register(self, app):',
      '        return app',
      '',
    ].join('\n'),
    'pkg/blueprints.py': [
      'from .sansio.blueprints import Blueprint as SansioBlueprint',
      '',
      '',
      'class Blueprint(SansioBlueprint):',
      '    def register(self, app):',
      '        return super(Blueprint, self).register(app)',
      '',
    ].join('\n'),
    'pkg/testing.py': [
      'class FlaskClient:',
      '    def get(self, url):',
      '        return url',
      '',
    ].join('\n'),
    'pkg/app.py': [
      'from .testing import FlaskClient',
      '',
      '',
      'class Flask:',
      '    def test_client(self) -> FlaskClient:',
      '        return FlaskClient()',
      '',
      '    def get(self, rule):',
      '        return rule',
      '',
    ].join('\n'),
    'pkg/views.py': 'class MethodView:\n    pass\n',
    'tests/test_app.py': [
      'import pkg',
      'import pkg.views',
      '',
      '',
      'def test_bp():',
      '    bp = pkg.Blueprint()',
      '    bp.app_template_test()',
      '    app = pkg.Flask()',
      '    with app.test_client() as client:',
      '        client.get("/")',
      '    app.get("/")',
      '',
      '',
      'class Index(pkg.views.MethodView):',
      '    pass',
      '',
    ].join('\n'),
  };

  it('`super(C, self).m()` is the base class\'s `m`; a base named through an import alias passes its members on', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'pkg/sansio/blueprints.py:5')).references)).toEqual(['pkg/blueprints.py:6']);
    expect(pairs((await references(index, 'pkg/blueprints.py:5')).references)).toEqual([]);
    expect(pairs((await references(index, 'pkg/sansio/blueprints.py:2')).references)).toEqual(['tests/test_app.py:7']);
  });

  it('`with x.f() as c` gives `c` the declared return type of `f`; `import pkg.views` reaches `pkg.views.MethodView`', async () => {
    const index = await fixtureTree(files);
    expect(pairs((await references(index, 'FlaskClient.get')).references)).toEqual(['tests/test_app.py:10']);
    expect(pairs((await references(index, 'Flask.get')).references)).toEqual(['tests/test_app.py:11']);
    expect(pairs((await references(index, 'pkg/views.py:1')).references)).toEqual(['tests/test_app.py:14']);
  });
});

describe('references: members of one class among namesakes', () => {
  it('TypeScript: a typed receiver picks its own class, not another directory\'s class of the same name; a method named `default`', async () => {
    const index = await fixtureTree({
      'v3/types.ts': 'export class ZodString {\n  min(n: number) { return this; }\n  default(v: string) { return this; }\n}\n',
      'v4/schemas.ts': [
        'interface _ZodString {',
        '  min(n: number): this;',
        '  default(v: string): this;',
        '}',
        'export interface ZodString extends _ZodString {}',
        'export function string(): ZodString { return null!; }',
        '',
      ].join('\n'),
      'use.ts': "import { string } from './v4/schemas';\nstring().min(1).default('a');\n",
    });
    expect((await references(index, 'v3/types.ts:2')).references).toEqual([]);
    expect(pairs((await references(index, 'v4/schemas.ts:2')).references)).toEqual(['use.ts:2']);
    expect(pairs((await references(index, 'v4/schemas.ts:3')).references)).toEqual(['use.ts:2']);
  });
});

describe('references: object literals typed by their context, functions passed on as constants (TypeScript)', () => {
  it("an object literal's method is the member of the type its function declares it returns; `this` in it is that type", async () => {
    const index = await fixtureTree({
      'schemas.ts': [
        'type Methods<T> = { [K in keyof T]?: T[K] };',
        'export interface ZodType {',
        '  check(n: number): this;',
        '  min(n: number): this;',
        '}',
        'export interface ZodArray {',
        '  min(n: number): this;',
        '}',
        'function typeMethods(): Methods<ZodType> {',
        '  return {',
        '    check(n) { return this; },',
        '    min(n) { return this.check(n); },',
        '  };',
        '}',
        'export function string(): ZodType { return null!; }',
        '',
      ].join('\n'),
      'use.ts': "import { string } from './schemas';\nstring().min(1);\nstring().check(2);\n",
    });
    // The literal's `min` (line 12) is ZodType.min (line 4): its declaration and uses, not ZodArray's.
    expect(pairs((await references(index, 'schemas.ts:12')).references)).toEqual(['schemas.ts:4', 'use.ts:2']);
    expect(pairs((await references(index, 'schemas.ts:11')).references)).toEqual(['schemas.ts:12', 'schemas.ts:3', 'use.ts:3']);
  });

  it('a constant that is a static method (`export const stringType = ZodString.create`) returns what that method returns', async () => {
    const index = await fixtureTree({
      'types.ts': [
        'export class ZodString {',
        '  min(n: number) { return this; }',
        '  static create = (): ZodString => new ZodString();',
        '}',
        'export class ZodNumber {',
        '  min(n: number) { return this; }',
        '}',
        'export class ZodDate {',
        '  min(n: number) { return this; }',
        '}',
        'const stringType = ZodString.create;',
        'export { stringType as string };',
        '',
      ].join('\n'),
      'use.ts': "import * as z from './types';\nz.string().min(3);\n",
    });
    expect(pairs((await references(index, 'ZodString.min')).references)).toEqual(['use.ts:2']);
    expect((await references(index, 'ZodNumber.min')).references).toEqual([]);
  });
});

describe('references: module variables, type parameters and values from outside the tree', () => {
  it('Python: an imported module-level variable has its declared type; a value of an outside type reaches none of the tree\'s members', async () => {
    const index = await fixtureTree({
      'pkg/__init__.py': 'from .globals import current_app as current_app\n',
      'pkg/app.py': 'class Flask:\n    def update(self):\n        return 1\n\n    def render(self):\n        return 2\n',
      'pkg/globals.py': [
        'from __future__ import annotations',
        'import typing as t',
        'from werkzeug.local import LocalProxy',
        '',
        'if t.TYPE_CHECKING:',
        '    from .app import Flask',
        '',
        'current_app: Flask = LocalProxy()',
        '',
      ].join('\n'),
      'use.py': [
        'from jinja2 import Template',
        'from pkg import current_app',
        'from pkg.app import Flask',
        '',
        'def f(template: Template, app):',
        '    current_app.update()',
        '    values = dict()',
        '    values.update()',
        '    template.render()',
        '    app.render()',
        '',
      ].join('\n'),
    });
    expect(pairs((await references(index, 'Flask.update')).references)).toEqual(['use.py:6']);
    // `app` has no type: a guess from the file's evidence, said to be one.
    const render = (await references(index, 'Flask.render')).references;
    expect(render.map((reference) => `${reference.path}:${reference.line} ${reference.resolution}`)).toEqual(['use.py:10 member']);
  });

  it('TypeScript: a parameter typed by a type parameter has the type parameter\'s bound', async () => {
    const index = await fixtureTree({
      'lib.ts': 'export class StrSchema {\n  min(n: number) { return this; }\n}\nexport class NumSchema {\n  min(n: number) { return this; }\n}\n',
      'use.ts': "import { StrSchema, NumSchema } from './lib';\nexport function f<const T extends StrSchema>(schema: T, map: Map<string, T>, n: NumSchema) {\n  schema.min(1);\n  map.get('a');\n}\n",
    });
    expect(pairs((await references(index, 'StrSchema.min')).references)).toEqual(['use.ts:3']);
    expect((await references(index, 'NumSchema.min')).references).toEqual([]);
  });
});

describe('references: block-local definitions of one name', () => {
  it("TypeScript: each test callback's own `const f = () => …` is used only in its block", async () => {
    const index = await fixtureTree({
      'a.test.ts': "test('one', () => {\n  const f = () => 1;\n  f();\n});\ntest('two', () => {\n  const f = () => 2;\n  f();\n});\n",
    });
    expect(pairs((await references(index, 'a.test.ts:2')).references)).toEqual(['a.test.ts:3']);
    expect(pairs((await references(index, 'a.test.ts:6')).references)).toEqual(['a.test.ts:7']);
  });
});

describe('references: long class heads', () => {
  it("TypeScript: a class whose type parameters fill its head still extends its base (an override's family includes the base's member)", async () => {
    const params = Array.from({ length: 12 }, (_, index) => `Parameter${index} extends Record<string, unknown> = Record<string, unknown>`).join(',\n  ');
    const index = await fixtureTree({
      'types.ts': [
        'export abstract class ZodType {',
        '  abstract _parse(input: unknown): unknown;',
        '  parse(input: unknown) { return this._parse(input); }',
        '}',
        `export class ZodObject<\n  ${params},\n> extends ZodType {`,
        '  _parse(input: unknown) { return input; }',
        '}',
        '',
      ].join('\n'),
    });
    const line = 4 + 13 + 2;
    expect(pairs((await references(index, `types.ts:${line}`)).references)).toEqual(['types.ts:2', 'types.ts:3']);
  });
});

describe('references: guessed uses', () => {
  it('counts the uses guessed from a file\'s evidence, and leaves them out on request', async () => {
    const index = await fixtureTree({
      'app.py': 'class Flask:\n    def register_blueprint(self, bp):\n        return bp\n',
      'tests/test_app.py': 'from app import Flask\n\n\ndef test_one(app):\n    app.register_blueprint(1)\n\n\ndef test_two():\n    Flask().register_blueprint(2)\n',
    });
    const all = await references(index, 'Flask.register_blueprint');
    expect(all.references.map((reference) => `${reference.line} ${reference.resolution}`)).toEqual(['5 member', '9 type']);
    expect({ total: all.total, guessed: all.guessed }).toEqual({ total: 2, guessed: 1 });
    const typed = await references(index, 'Flask.register_blueprint', { guessed: false });
    expect(typed.references.map((reference) => reference.line)).toEqual([9]);
    expect({ total: typed.total, guessed: typed.guessed }).toEqual({ total: 1, guessed: 1 });
  });
});

describe('references: no guess without evidence about the receiver', () => {
  it("TypeScript: an object literal's key and a member of a subscript are no class's member by name alone", async () => {
    const index = await fixtureTree({
      'fn.ts': 'export class ZodFunction {\n  input(x: unknown) { return x; }\n}\n',
      'use.ts': "import { ZodFunction } from './fn';\nexport const f = new ZodFunction();\nexport const params = { input: 1 };\nexport const all = [f];\nall[0].input(2);\nf.input(3);\n",
    });
    expect(pairs((await references(index, 'ZodFunction.input')).references)).toEqual(['use.ts:6']);
  });
});

describe('references: declared types that are no class', () => {
  it('TypeScript: `path: string[]` reaches no class\'s `length`; `z: typeof ns` is the module', async () => {
    const index = await fixtureTree({
      'schemas.ts': 'export class ZodArray {\n  length(n: number) { return this; }\n}\nexport function string() { return new ZodArray(); }\n',
      'use.ts': [
        "import { ZodArray } from './schemas';",
        "import * as z4 from './schemas';",
        'export function f(path: string[], kind: "a" | null | ZodArray, z: typeof z4) {',
        '  path.length;',
        '  kind.length(1);',
        '  return z.string();',
        '}',
        '',
      ].join('\n'),
    });
    expect(pairs((await references(index, 'ZodArray.length')).references)).toEqual(['use.ts:5']);
    expect(pairs((await references(index, 'schemas.ts:4')).references)).toEqual(['use.ts:6']);
  });
});
