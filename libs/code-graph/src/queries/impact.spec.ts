import { changeFromDiff } from '../change/change-set';
import { indexAfterChange } from '../change/changed-tree';
import { applyHunks, parseUnifiedDiff } from '../change/unified-diff';
import { fixtureTree, indexText } from '../testing/fixture-tree';
import { impact } from './impact';

const files: Record<string, string> = {
  'src/math.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\n\nexport function mul(a: number, b: number) {\n  return a * b;\n}\n',
  'src/calc.ts': "import { add } from './math';\n\nexport function total(xs: number[]) {\n  return xs.reduce(add, 0);\n}\n",
  'src/report.ts': "import { total } from './calc';\n\nexport function report(xs: number[]) {\n  return 'sum ' + total(xs);\n}\n",
  'src/unrelated.ts': 'export function other() {\n  return 0;\n}\n',
  'test/calc.spec.ts': "import { total } from '../src/calc';\n\ndescribe('total', () => {\n  it('adds', () => expect(total([1, 2])).toBe(3));\n});\n",
  'test/unrelated.spec.ts': "import { other } from '../src/unrelated';\n\nit('is 0', () => expect(other()).toBe(0));\n",
  'tests/test_math.py': 'def test_mul():\n    assert True\n',
};

const CHANGE_ADD = [
  'diff --git a/src/math.ts b/src/math.ts',
  '--- a/src/math.ts',
  '+++ b/src/math.ts',
  '@@ -1,3 +1,4 @@',
  ' export function add(a: number, b: number) {',
  '-  return a + b;',
  '+  const sum = a + b;',
  '+  return sum;',
  ' }',
  '',
].join('\n');

async function impactOf(diff: string, depth?: number) {
  const before = await fixtureTree(files);
  const change = await changeFromDiff(diff, before.read);
  const inputs = await Promise.all(Object.entries(files).map(async ([path, text]) => ({ path, index: await indexText(path, text) })));
  const indexes = new Map<string, Awaited<ReturnType<typeof indexText>>>();
  for (const file of change.files) if (file.newText !== undefined) indexes.set(file.path, await indexText(file.path, file.newText));
  const after = await indexAfterChange(inputs, before.read, change, (path) => indexes.get(path)!);
  const definitions = new Map<string, Awaited<ReturnType<typeof indexText>>>();
  for (const file of change.files) if (file.oldText !== undefined) definitions.set(file.oldPath ?? file.path, await indexText(file.oldPath ?? file.path, file.oldText));
  return impact(after, change, { depth, definitionsOf: (path) => definitions.get(path)!.definitions });
}

describe('impact of a diff', () => {
  it('finds the changed definition, its dependents by distance, and the tests that reach it', async () => {
    const result = await impactOf(CHANGE_ADD);
    expect(result.changedFiles).toEqual([{ path: 'src/math.ts', status: 'modified' }]);
    expect(result.changed.map((symbol) => [symbol.name, symbol.change])).toEqual([['add', 'modified']]);
    expect(result.dependents.map((symbol) => [symbol.name, symbol.distance, symbol.fanIn])).toEqual([
      ['total', 1, 1],
      ['report', 2, 1],
    ]);
    expect(result.files.map((file) => [file.path, file.distance])).toEqual([
      ['src/calc.ts', 1],
      ['src/report.ts', 2],
      ['test/calc.spec.ts', 2],
    ]);
    // calc.spec reaches add through total; unrelated.spec does not; test_math.py is only named after math.
    expect(result.tests.map((test) => [test.path, test.reason])).toEqual([
      ['test/calc.spec.ts', 'calls'],
      ['tests/test_math.py', 'name'],
    ]);
  });

  it('stops at the depth asked for', async () => {
    const result = await impactOf(CHANGE_ADD, 1);
    expect(result.dependents.map((symbol) => symbol.name)).toEqual(['total']);
    // Tests are still looked for three hops out.
    expect(result.tests[0].path).toBe('test/calc.spec.ts');
  });

  it('reports definitions a diff removes and added ones', async () => {
    const diff = [
      '--- a/src/math.ts',
      '+++ b/src/math.ts',
      '@@ -4,4 +4,4 @@',
      ' ',
      '-export function mul(a: number, b: number) {',
      '-  return a * b;',
      '+export function times(a: number, b: number) {',
      '+  return a * b;',
      ' }',
      '',
    ].join('\n');
    const result = await impactOf(diff);
    expect(result.changed.map((symbol) => [symbol.name, symbol.change]).sort()).toEqual([
      ['mul', 'removed'],
      ['times', 'added'],
    ]);
  });

  it('refuses a diff whose hunk does not fit the tree, naming the hunk', async () => {
    const stale = CHANGE_ADD.replace('-  return a + b;', '-  return a - b;');
    await expect(impactOf(stale)).rejects.toMatchObject({ kind: 'diff_not_applicable' });
    await expect(impactOf(stale)).rejects.toThrow('The hunk "@@ -1,3 +1,4 @@" of src/math.ts does not apply');
    const missing = CHANGE_ADD.replaceAll('src/math.ts', 'src/gone.ts');
    await expect(impactOf(missing)).rejects.toMatchObject({ kind: 'diff_not_applicable' });
    await expect(impactOf(missing)).rejects.toThrow('src/gone.ts');
  });

  it('refuses text that is not a unified diff, and hunks whose counts do not match', async () => {
    expect(() => parseUnifiedDiff('hello\nworld\n')).toThrow(expect.objectContaining({ kind: 'diff_invalid' }));
    expect(() => parseUnifiedDiff(CHANGE_ADD.replace('@@ -1,3 +1,4 @@', '@@ -1,3 +1,9 @@'))).toThrow(expect.objectContaining({ kind: 'diff_invalid' }));
    await expect(impactOf(CHANGE_ADD, 0)).rejects.toMatchObject({ kind: 'depth_invalid' });
  });
});

describe('applyHunks', () => {
  it('applies hunks at their lines, or at the one place nearby their lines are (an offset)', () => {
    const [file] = parseUnifiedDiff(CHANGE_ADD);
    expect(applyHunks('src/math.ts', files['src/math.ts'], file.hunks)).toBe(files['src/math.ts'].replace('  return a + b;', '  const sum = a + b;\n  return sum;'));
    const shifted = `// a header line\n${files['src/math.ts']}`;
    expect(applyHunks('src/math.ts', shifted, file.hunks)).toContain('// a header line\nexport function add(a: number, b: number) {\n  const sum = a + b;');
  });
});
