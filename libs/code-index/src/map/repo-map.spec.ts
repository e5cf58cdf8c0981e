import type { Definition } from '../symbols/symbol-types';
import { countTokens } from '../tokens/token-counter';
import { pageRank } from './page-rank';
import { MapFile, buildRepoMap } from './repo-map';

const def = (name: string, line: number, signature: string, kind: Definition['kind'] = 'function', container?: string): Definition => ({
  kind,
  name,
  line,
  startLine: line,
  endLine: line + 3,
  signature,
  ...(container === undefined ? {} : { container }),
});

/** A small repository whose shape fixes the answer: everyone uses core.ts, only a.ts uses util.ts, nobody uses lonely.ts. */
const FILES: MapFile[] = [
  { path: 'src/a.ts', definitions: [def('runA', 1, 'export function runA()')], references: [['Database', 2], ['connect', 1], ['helperFunction', 3]] },
  { path: 'src/b.ts', definitions: [def('runB', 1, 'export function runB()')], references: [['Database', 1], ['connect', 2]] },
  { path: 'src/c.ts', definitions: [def('runC', 1, 'export function runC()')], references: [['Database', 1]] },
  {
    path: 'src/core.ts',
    definitions: [def('Database', 3, 'export class Database', 'class'), def('query', 5, 'query(sql: string): Row[]', 'method', 'Database'), def('connect', 20, 'export function connect(url: string): Database')],
    references: [],
  },
  { path: 'src/util.ts', definitions: [def('helperFunction', 1, 'export function helperFunction(x: number)')], references: [] },
  { path: 'src/lonely.ts', definitions: [def('unusedThing', 7, 'export function unusedThing()')], references: [] },
  { path: 'README.md', definitions: [], references: [] },
];

describe('pageRank', () => {
  it('matches the known answer for a → b (networkx: 0.3509, 0.6491)', () => {
    const rank = pageRank(2, [{ from: 0, to: 1, weight: 1 }]);
    expect(rank[0]).toBeCloseTo(0.350877, 5);
    expect(rank[1]).toBeCloseTo(0.649123, 5);
  });

  it('is uniform on a cycle and sums to one', () => {
    const rank = pageRank(3, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 1 },
      { from: 2, to: 0, weight: 1 },
    ]);
    for (const value of rank) expect(value).toBeCloseTo(1 / 3, 6);
  });

  it('restarts at the personalised nodes', () => {
    const rank = pageRank(3, [], { personalization: [0, 1, 0] });
    expect([...rank]).toEqual([0, 1, 0]);
  });
});

describe('buildRepoMap', () => {
  it('ranks the file everyone uses first, the unused last, files without definitions after them', () => {
    const map = buildRepoMap(FILES, { maxTokens: 10_000 });
    expect(map.files.map((file) => file.path)).toEqual(['src/core.ts', 'src/util.ts', 'src/a.ts', 'src/b.ts', 'src/c.ts', 'src/lonely.ts', 'README.md']);
    expect(map.text.startsWith('src/core.ts\n    3│ export class Database\n    5│   query(sql: string): Row[]\n   20│ export function connect(url: string): Database\n')).toBe(true);
    expect(map.totalDefinitions).toBe(8);
    expect(map.tokens).toBe(countTokens(map.text));
  });

  it('cuts to the budget exactly: never over, and the next item would not fit', () => {
    const full = buildRepoMap(FILES, { maxTokens: 10_000 });
    let previous = 0;
    for (let budget = 1; budget <= full.tokens + 2; budget++) {
      const map = buildRepoMap(FILES, { maxTokens: budget });
      expect(map.tokens).toBeLessThanOrEqual(budget);
      expect(countTokens(map.text)).toBe(map.tokens);
      const shown = map.files.reduce((sum, file) => sum + file.definitions.length + 1, 0);
      expect(shown).toBeGreaterThanOrEqual(previous);
      previous = shown;
    }
    expect(buildRepoMap(FILES, { maxTokens: full.tokens }).text).toBe(full.text);
    expect(buildRepoMap(FILES, { maxTokens: full.tokens - 1 }).text).not.toBe(full.text);
  });

  it('with a tiny budget keeps the single most important definition', () => {
    const first = 'src/core.ts\n    3│ export class Database\n';
    expect(buildRepoMap(FILES, { maxTokens: countTokens(first) }).text).toBe(first);
    expect(buildRepoMap(FILES, { maxTokens: 1 }).text).toBe('');
  });

  it('personalises toward focus files: what a.ts uses rises', () => {
    const neutral = buildRepoMap(FILES, { maxTokens: 10_000 });
    const focused = buildRepoMap(FILES, { maxTokens: 10_000, focusPaths: ['src/a.ts'] });
    const rankOf = (map: typeof neutral, path: string) => map.files.find((file) => file.path === path)!.rank;
    expect(rankOf(focused, 'src/util.ts')).toBeGreaterThan(rankOf(neutral, 'src/util.ts'));
    expect(rankOf(focused, 'src/a.ts')).toBeGreaterThan(rankOf(neutral, 'src/a.ts'));
  });

  it('puts focus symbols first', () => {
    const map = buildRepoMap(FILES, { maxTokens: 10_000, focusSymbols: ['unusedThing'] });
    expect(map.files[0]).toMatchObject({ path: 'src/lonely.ts', definitions: [expect.objectContaining({ name: 'unusedThing' })] });
  });

  it('refuses a budget below 1 or absurdly large with a typed error', () => {
    for (const maxTokens of [0, -5, 1.5, Number.NaN, 10_000_001]) {
      expect(() => buildRepoMap(FILES, { maxTokens })).toThrow(expect.objectContaining({ kind: 'budget_invalid' }));
    }
  });

  it('maps an empty repository to an empty text', () => {
    expect(buildRepoMap([], { maxTokens: 100 })).toMatchObject({ text: '', tokens: 0, files: [] });
  });
});
