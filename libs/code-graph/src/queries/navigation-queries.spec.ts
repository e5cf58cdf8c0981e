import { fixtureTree } from '../testing/fixture-tree';
import { callees, callers } from './call-graph';
import { importedBy, imports, outline } from './file-queries';
import { references } from './references';

const files = {
  'src/math.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\nexport function twice(a: number) {\n  return add(a, a);\n}\n',
  'src/calc.ts': "import { add, twice } from './math';\nimport { readFileSync } from 'node:fs';\nexport function total(xs: number[]) {\n  return xs.reduce(add, 0) + twice(1);\n}\n",
  'src/report.ts': "import { total } from './calc';\nexport class Report {\n  render(xs: number[]) {\n    return 'sum ' + total(xs);\n  }\n}\n",
};

describe('callers and callees', () => {
  it('walks callers hop by hop, each with the sites it uses the definition at', async () => {
    const index = await fixtureTree(files);
    const one = await callers(index, 'add');
    expect(one.entries.map((entry) => [entry.name, entry.distance, entry.sites.map((site) => site.line)])).toEqual([
      ['total', 1, [4]],
      ['twice', 1, [5]],
    ]);
    const two = await callers(index, 'add', { depth: 3 });
    expect(two.entries.map((entry) => `${entry.name}@${entry.distance}`)).toEqual(['total@1', 'twice@1', 'render@2']);
    expect(two.entries[2].from).toBe(0);
  });

  it('lists what a definition calls (and callables it passes on), not the names it merely mentions', async () => {
    const index = await fixtureTree(files);
    const result = await callees(index, 'total');
    expect(result.entries.map((entry) => entry.name).sort()).toEqual(['add', 'twice']);
    expect(result.entries.find((entry) => entry.name === 'twice')!.sites[0]).toEqual({ path: 'src/calc.ts', line: 4, call: true });
    expect((await callees(index, 'Report.render', { depth: 2 })).entries.map((entry) => `${entry.name}@${entry.distance}`)).toEqual(['total@1', 'add@2', 'twice@2']);
  });

  it('refuses a depth below 1, above 10 or not whole', async () => {
    const index = await fixtureTree(files);
    for (const depth of [0, 11, 1.5, Number.NaN]) await expect(callers(index, 'add', { depth })).rejects.toMatchObject({ kind: 'depth_invalid' });
  });
});

describe('imports, importedBy, outline', () => {
  it("lists a file's imports (resolved, and those outside the tree) and its importers", async () => {
    const index = await fixtureTree(files);
    expect(imports(index, 'src/calc.ts')).toEqual({ path: 'src/calc.ts', direction: 'imports', files: [{ path: 'src/math.ts', line: 1, module: './math' }], external: [{ line: 2, module: 'node:fs' }] });
    expect(importedBy(index, 'src/math.ts').files).toEqual([{ path: 'src/calc.ts', line: 1, module: './math' }]);
  });

  it("gives a file's definitions with ranges, signatures and nesting", async () => {
    const index = await fixtureTree(files);
    expect(outline(index, 'src/report.ts').definitions.map((definition) => [definition.name, definition.kind, definition.startLine, definition.endLine, definition.depth])).toEqual([
      ['Report', 'class', 2, 6, 0],
      ['render', 'method', 3, 5, 1],
    ]);
  });
});

describe('bad input', () => {
  it('answers an unknown name with symbol_not_found and the closest names', async () => {
    const index = await fixtureTree(files);
    await expect(references(index, 'totl')).rejects.toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('total') });
    await expect(references(index, 'Report.rendr')).rejects.toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('Report.render') });
    await expect(references(index, 'a b')).rejects.toMatchObject({ kind: 'symbol_invalid' });
  });

  it('refuses paths outside the root, unknown files and lines the file does not have', async () => {
    const index = await fixtureTree(files);
    await expect(references(index, '../etc/passwd:1')).rejects.toMatchObject({ kind: 'path_outside_root' });
    await expect(references(index, '/etc/passwd:1')).rejects.toMatchObject({ kind: 'path_outside_root' });
    expect(() => outline(index, '../x.ts')).toThrow(expect.objectContaining({ kind: 'path_outside_root' }));
    await expect(references(index, 'src/calk.ts:1')).rejects.toMatchObject({ kind: 'file_not_found', suggestion: expect.stringContaining('src/calc.ts') });
    await expect(references(index, 'src/calc.ts:99')).rejects.toMatchObject({ kind: 'location_invalid' });
    await expect(references(index, 'src/calc.ts:3:200')).rejects.toMatchObject({ kind: 'location_invalid' });
  });

  it('refuses a limit that is not a whole number from 1 to 100,000', async () => {
    const index = await fixtureTree(files);
    for (const limit of [0, -1, 1.5, 100_001]) await expect(references(index, 'add', { limit })).rejects.toMatchObject({ kind: 'input_invalid' });
  });
});
