/**
 * `impact` on real history (bench (n)): for commits that change both code and tests, the change
 * to the code alone (the commit's test edits left out) is analysed on the tree of that commit,
 * and the tests its answer names are compared with the test files the commit itself changed —
 * the tests its author found to cover the change.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BlobIndexer, CodeIndexCache, indexBlob } from '@quarry/code-index';
import { changeFromGit, createNavigationIndex, impact, isTestFile } from '@quarry/code-graph';

export interface ImpactHistoryReport {
  repository: string;
  commits: number;
  /** Commits whose changed test files are all among the answer's tests. */
  allFound: number;
  /** Of all the changed test files, the share the answer names (any reason) / through uses or imports only. */
  recall: number;
  reachedRecall: number;
  /** Where the changed tests come in the answer's ranked list: the median position (1-based) and the share in the first 10. */
  medianRank: number;
  withinTen: number;
  /** Mean tests named per answer, and the median time of an answer (tree indexed apart). */
  meanTests: number;
  medianMs: number;
  rows: { commit: string; gold: string[]; found: string[]; tests: number }[];
}

const git = (gitDir: string, args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });

/** Recent commits (first parent, no merges) that change code files of `language` and test files. */
function commitsToCheck(gitDir: string, head: string, isCode: (file: string) => boolean, count: number): string[] {
  const chosen: string[] = [];
  for (const commit of git(gitDir, ['log', '--format=%H', '--no-merges', '-n', '600', head]).split('\n').filter(Boolean)) {
    const files = git(gitDir, ['diff-tree', '--no-commit-id', '--name-only', '-r', commit]).split('\n').filter(Boolean);
    const tests = files.filter((file) => isTestFile(file) && isCode(file));
    const code = files.filter((file) => !isTestFile(file) && isCode(file));
    if (tests.length > 0 && code.length > 0 && code.length <= 20) chosen.push(commit);
    if (chosen.length >= count) break;
  }
  return chosen;
}

export async function measureImpactHistory(gitDir: string, repository: string, head: string, isCode: (file: string) => boolean, count: number): Promise<ImpactHistoryReport> {
  const indexer = await BlobIndexer.create();
  const cache = new CodeIndexCache({ indexer: async () => indexer, maxTrees: 1 });
  const rows: ImpactHistoryReport['rows'] = [];
  const times: number[] = [];
  const ranks: number[] = [];
  for (const commit of commitsToCheck(gitDir, head, isCode, count)) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-impact-'));
    try {
      execFileSync('tar', ['-x', '-C', root], { input: execFileSync('git', ['--git-dir', gitDir, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 }) });
      const tree = await cache.tree(root);
      const index = await createNavigationIndex(tree.files, (file) => fs.promises.readFile(path.join(root, file), 'utf8').catch(() => undefined));
      const whole = await changeFromGit(gitDir, `${commit}^`, commit);
      const gold = whole.files.filter((file) => isTestFile(file.path) && file.newText !== undefined && isCode(file.path)).map((file) => file.path);
      const change = { files: whole.files.filter((file) => !isTestFile(file.path)) };
      // The test edits are left out: the tree holds the commit's tests, the change is its code.
      const started = performance.now();
      const answer = await impact(index, change, { depth: 2, definitionsOf: (file, text) => indexBlob(indexer, file, Buffer.from(text)).definitions });
      times.push(performance.now() - started);
      const found = gold.filter((test) => answer.tests.some((named) => named.path === test));
      for (const test of found) ranks.push(answer.tests.findIndex((named) => named.path === test) + 1);
      const reached = gold.filter((test) => answer.tests.some((named) => named.path === test && named.reason !== 'name'));
      rows.push({ commit: commit.slice(0, 12), gold, found, tests: answer.tests.length, reached: reached.length } as ImpactHistoryReport['rows'][number] & { reached: number });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  const goldCount = rows.reduce((sum, row) => sum + row.gold.length, 0);
  const sortedTimes = [...times].sort((a, b) => a - b);
  return {
    repository,
    commits: rows.length,
    allFound: rows.filter((row) => row.found.length === row.gold.length).length,
    recall: rows.reduce((sum, row) => sum + row.found.length, 0) / Math.max(1, goldCount),
    reachedRecall: rows.reduce((sum, row) => sum + (row as unknown as { reached: number }).reached, 0) / Math.max(1, goldCount),
    medianRank: [...ranks].sort((a, b) => a - b)[Math.floor(ranks.length / 2)] ?? Number.NaN,
    withinTen: ranks.filter((rank) => rank <= 10).length / Math.max(1, goldCount),
    meanTests: rows.reduce((sum, row) => sum + row.tests, 0) / Math.max(1, rows.length),
    medianMs: sortedTimes[Math.floor(sortedTimes.length / 2)] ?? Number.NaN,
    rows,
  };
}
