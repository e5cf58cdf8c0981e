/**
 * Accuracy of `references` against a language server on one repository: a deterministic sample
 * of definitions (by a hash of path, line and name), each asked of both; the pairs compared are
 * (path, line) of the uses, the definition's own line left out of both.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { nthWordColumn, sharedCodeIndexCache } from '@quarry/code-index';
import { createNavigationIndex, findUses, type NavigationIndex } from '@quarry/code-graph';
import type { ReferenceOracle } from './navigation-oracles';

export interface AccuracyReport {
  repository: string;
  oracle: string;
  queries: number;
  /** Over all pairs of all queries. */
  precision: number;
  recall: number;
  /** The answer with `guessed: false`: the uses tied by evidence alone (resolution `member`: a receiver of unknown type) left out. */
  certainPrecision: number;
  certainRecall: number;
  /** The peer in the same run: every use of the name, as name matching (the repo map's graph, grep -w on identifiers) answers. */
  namePrecision: number;
  nameRecall: number;
  /** Mean of per-query figures (queries with no oracle pairs count 1 for recall). */
  macroPrecision: number;
  macroRecall: number;
  oursMs: { p50: number; p90: number; max: number };
  oracleMs: { p50: number; p90: number; max: number };
  oracleWarmMs: number;
  indexMs: number;
  graphMs: number;
  /** The worst queries, for reading misses. */
  worst: { symbol: string; missed: string[]; extra: string[] }[];
}

export interface AccuracyOptions {
  sample: number;
  /** Files eligible for sampled definitions. */
  eligible: (file: string) => boolean;
  /** The oracle's first query is timed apart (it builds the program / analyses the workspace). */
  warm?: (file: string) => Promise<number> | number;
  /** Only definitions whose hash falls in this part of [0, 1) (dev / held-out split). */
  part?: [number, number];
  /** Queries with misses kept in the report, worst first (every missed and extra pair). */
  worst?: number;
}

export async function measureAccuracy(root: string, repository: string, oracle: ReferenceOracle, options: AccuracyOptions): Promise<AccuracyReport> {
  let started = performance.now();
  const tree = await sharedCodeIndexCache().tree(root);
  const indexMs = performance.now() - started;
  started = performance.now();
  const index = await createNavigationIndex(tree.files, (file) => fs.promises.readFile(path.join(root, file), 'utf8'));
  const graphMs = performance.now() - started;
  const firstEligible = index.graph.files.find((file) => options.eligible(file.path));
  const oracleWarmMs = firstEligible !== undefined && options.warm ? await options.warm(firstEligible.path) : 0;
  // Only what the server analyses is compared (a tsconfig may leave directories out).
  const analysed = oracle.files?.();
  const compared = (file: string) => analysed === undefined || analysed.has(file);
  const sample = sampleDefinitions(index, { ...options, eligible: (file) => options.eligible(file) && compared(file) });

  const certain = { hits: 0, pairs: 0 };
  const byName = { hits: 0, pairs: 0 };
  let truePositives = 0;
  let ourPairs = 0;
  let oraclePairs = 0;
  const macro = { precision: 0, recall: 0 };
  const ours: number[] = [];
  const theirs: number[] = [];
  const worst: (AccuracyReport['worst'][number] & { errors: number })[] = [];
  for (const id of sample) {
    const { file, definition } = index.graph.definition(id);
    const text = fs.readFileSync(path.join(root, file.path), 'utf8').split('\n')[definition.line - 1] ?? '';
    const column = Math.max(0, nthWordColumn(text, definition.name, 0));
    const own = `${file.path}:${definition.line}`;
    const answer = await oracle.references(file.path, definition.line, column);
    theirs.push(answer.ms);
    const expected = new Set([...answer.pairs].filter((pair) => pair !== own));
    started = performance.now();
    const uses = findUses(index, id).filter((use) => compared(use.file.path));
    ours.push(performance.now() - started);
    const found = new Set(uses.map((use) => `${use.file.path}:${use.occurrence.line}`));
    found.delete(own);
    const sure = new Set(uses.filter((use) => use.resolution !== 'member').map((use) => `${use.file.path}:${use.occurrence.line}`));
    sure.delete(own);
    certain.pairs += sure.size;
    certain.hits += [...sure].filter((pair) => expected.has(pair)).length;
    const named = new Set<string>();
    for (const fileId of index.graph.filesReferencing(definition.name)) {
      const other = index.graph.files[fileId];
      if (!compared(other.path)) continue;
      for (const occurrence of index.graph.occurrences(other, definition.name)) named.add(`${other.path}:${occurrence.line}`);
    }
    named.delete(own);
    byName.pairs += named.size;
    byName.hits += [...named].filter((pair) => expected.has(pair)).length;
    const hits = [...found].filter((pair) => expected.has(pair)).length;
    truePositives += hits;
    ourPairs += found.size;
    oraclePairs += expected.size;
    macro.precision += found.size === 0 ? 1 : hits / found.size;
    macro.recall += expected.size === 0 ? 1 : hits / expected.size;
    const missed = [...expected].filter((pair) => !found.has(pair));
    const extra = [...found].filter((pair) => !expected.has(pair));
    if (missed.length + extra.length > 0) worst.push({ symbol: `${definition.kind} ${definition.container ? `${definition.container}.` : ''}${definition.name} ${own}`, missed, extra, errors: missed.length + extra.length });
  }
  worst.sort((a, b) => b.errors - a.errors);
  return {
    repository,
    oracle: oracle.name,
    queries: sample.length,
    precision: ourPairs === 0 ? 1 : truePositives / ourPairs,
    recall: oraclePairs === 0 ? 1 : truePositives / oraclePairs,
    certainPrecision: certain.pairs === 0 ? 1 : certain.hits / certain.pairs,
    certainRecall: oraclePairs === 0 ? 1 : certain.hits / oraclePairs,
    namePrecision: byName.pairs === 0 ? 1 : byName.hits / byName.pairs,
    nameRecall: oraclePairs === 0 ? 1 : byName.hits / oraclePairs,
    macroPrecision: macro.precision / Math.max(1, sample.length),
    macroRecall: macro.recall / Math.max(1, sample.length),
    oursMs: stats(ours),
    oracleMs: stats(theirs),
    oracleWarmMs,
    indexMs,
    graphMs,
    worst: worst.slice(0, options.worst ?? 0).map(({ errors: _errors, ...row }) => row),
  };
}

/** Definitions of eligible files, the `sample` lowest by hash (stable across runs and machines). */
function sampleDefinitions(index: NavigationIndex, options: AccuracyOptions): number[] {
  const scored: { id: number; hash: number }[] = [];
  for (const file of index.graph.files) {
    if (!options.eligible(file.path)) continue;
    file.definitions.forEach((definition, offset) => {
      const hash = createHash('sha1').update(`${file.path}:${definition.line}:${definition.name}`).digest().readUInt32BE(0) / 2 ** 32;
      if (options.part && (hash < options.part[0] || hash >= options.part[1])) return;
      scored.push({ id: file.firstDefinition + offset, hash });
    });
  }
  return scored
    .sort((a, b) => a.hash - b.hash)
    .slice(0, options.sample)
    .map((entry) => entry.id);
}

function stats(samples: number[]): { p50: number; p90: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]);
  return { p50: at(0.5), p90: at(0.9), max: sorted[sorted.length - 1] ?? Number.NaN };
}
