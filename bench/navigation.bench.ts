/**
 * (n) Code navigation (libs/code-graph), each figure next to its peer from the same run:
 *
 *   - references of sampled definitions   vs TypeScript's language service on this repository and on colinhacks/zod,
 *                                          vs pyright on pallets/flask: precision and recall of (path, line) pairs,
 *                                          time per query side by side. The sample is the held-out half of each
 *                                          repository's definitions (by a hash of path, line and name): resolution
 *                                          rules were written looking at the other half only.
 *   - references on the Linux tree         p50 per query on an indexed commit (rows of every blob), vs rg -w for the name
 *   - impact on real history               a commit's code change alone → does the answer name the tests the commit changed?
 *   - per-blob cost                        index MB/s and stored bytes per MB on Linux fs/, the navigation fields' share
 *
 * Repositories come from bare mirrors (QUARRY_EVAL_MIRRORS, default /work/.mirror/<owner>+<name>/repo), unpacked once
 * into QUARRY_BENCH_CACHE (default ~/.cache/quarry-bench/navigation); a missing mirror skips its rows.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measureAccuracy, type AccuracyReport } from './navigation-accuracy';
import { measureImpactHistory, type ImpactHistoryReport } from './navigation-impact';
import { CachedOracle, PyrightOracle, TypeScriptOracle, type ReferenceOracle } from './navigation-oracles';
import { ensureLinuxTree, trackedFiles } from './linux-tree';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const MIRRORS = process.env.QUARRY_EVAL_MIRRORS ?? '/work/.mirror';
const CACHE = process.env.QUARRY_BENCH_CACHE ?? path.join(os.homedir(), '.cache/quarry-bench/navigation');
const LINUX_CHILD = path.join(__dirname, 'navigation-linux.js');

export const NAVIGATION_PARTS = ['accuracy', 'linux', 'impact', 'cost'] as const;

export const NAVIGATION_REPOSITORIES = ['quarry', 'zod', 'flask'] as const;

export interface NavigationBenchOptions {
  parts?: readonly (typeof NAVIGATION_PARTS)[number][];
  /** Definitions sampled per repository (default 200). */
  sample?: number;
  /**
   * The half of each repository's definitions the accuracy sample is drawn from: `held-out` (the
   * default: the reported figures) or `dev` (the half resolution rules may be tuned on).
   */
  half?: 'dev' | 'held-out';
  /** The accuracy part's repositories (default: all three). */
  repositories?: readonly (typeof NAVIGATION_REPOSITORIES)[number][];
  /** Queries with misses kept in the report, worst first, every missed and extra pair listed (default 0). */
  worst?: number;
  /**
   * Keep the servers' answers on the pinned commits (zod, flask) in the bench cache and reuse them
   * (tuning runs: the servers' times are then not measured).
   */
  oracleCache?: boolean;
}

export interface NavigationBenchReport {
  accuracy: AccuracyReport[];
  linux?: { index?: unknown; query: { files: number; definitions: number; buildSeconds: number; heapMB: number; firstMs: number; references: { p50: number; p90: number; p99: number }; findUses: { p50: number }; rg: { p50: number }; meanUses: number; maxRssMB: number } };
  impact: ImpactHistoryReport[];
  cost?: { megabytes: number; indexMBps: number; compactPerMB: number; gzipPerMB: number; navigationCompactPerMB: number; navigationGzipPerMB: number };
}

const PINNED = {
  zod: { repo: 'colinhacks/zod', commit: 'e516c3baf22615e20934116abebfed6c000222c2' },
  flask: { repo: 'pallets/flask', commit: '2ac89889f4cc330eabd50f295dcef02828522c69' },
};

function mirrorOf(repo: string): string | undefined {
  const mirror = path.join(MIRRORS, repo.replace('/', '+'), 'repo');
  return fs.existsSync(mirror) ? mirror : undefined;
}

/** The repository at a commit, unpacked once; zod gets the `node_modules/zod` link its workspace install makes, so the oracle resolves `zod/v4`. */
function checkout(repo: string, commit: string): string | undefined {
  const mirror = mirrorOf(repo);
  if (mirror === undefined) {
    console.log(`  ${repo}: no mirror at ${path.join(MIRRORS, repo.replace('/', '+'), 'repo')} — skipped (fetch it, or set QUARRY_EVAL_MIRRORS)`);
    return undefined;
  }
  const root = path.join(CACHE, `${repo.replace('/', '+')}@${commit.slice(0, 12)}`);
  if (!fs.existsSync(path.join(root, '.complete'))) {
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(root, { recursive: true });
    execFileSync('tar', ['-x', '-C', root], { input: execFileSync('git', ['--git-dir', mirror, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 }) });
    if (repo === PINNED.zod.repo) {
      fs.mkdirSync(path.join(root, 'node_modules'), { recursive: true });
      fs.symlinkSync('../packages/zod', path.join(root, 'node_modules/zod'));
    }
    fs.writeFileSync(path.join(root, '.complete'), commit);
  }
  return root;
}

const typescriptFile = (file: string) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts') && !file.includes('node_modules');
const HALVES: Record<'dev' | 'held-out', [number, number]> = { dev: [0, 0.5], 'held-out': [0.5, 1] };

function printAccuracy(report: AccuracyReport): void {
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  console.log(
    `  ${report.repository.padEnd(22)} vs ${report.oracle.padEnd(28)} ${String(report.queries).padStart(4)} queries  precision ${pct(report.precision)} recall ${pct(report.recall)}` +
      `  (per query: ${pct(report.macroPrecision)} / ${pct(report.macroRecall)}; guessed: false ${pct(report.certainPrecision)} / ${pct(report.certainRecall)}; name matching ${pct(report.namePrecision)} / ${pct(report.nameRecall)})  p50 ${report.oursMs.p50.toFixed(2)} ms vs ${report.oracleMs.p50.toFixed(1)} ms` +
      ` (server start ${(report.oracleWarmMs / 1000).toFixed(1)} s; our index ${(report.indexMs / 1000).toFixed(1)} s + graph ${report.graphMs.toFixed(0)} ms)`,
  );
}

export async function runNavigationBench(options: NavigationBenchOptions = {}): Promise<NavigationBenchReport> {
  const parts = new Set(options.parts ?? NAVIGATION_PARTS);
  const sample = options.sample ?? 200;
  const half = options.half ?? 'held-out';
  const part = HALVES[half];
  const worst = options.worst ?? 0;
  const repositories = new Set(options.repositories ?? NAVIGATION_REPOSITORIES);
  const report: NavigationBenchReport = { accuracy: [], impact: [] };

  if (parts.has('accuracy')) {
    console.log(`  references vs language servers (${half === 'dev' ? 'the DEVELOPMENT half: tuning figures, not the reported ones' : 'held-out half'} of each repository):`);
    if (repositories.has('quarry')) {
      const own = new TypeScriptOracle(REPO_ROOT);
      report.accuracy.push(await measureAccuracy(REPO_ROOT, 'quarry (this repository)', own, { sample, eligible: (file) => typescriptFile(file) && !file.startsWith('apps/web/'), part, worst, warm: (file) => own.warm(file) }));
      await own.close();
      printAccuracy(report.accuracy[report.accuracy.length - 1]);
    }
    // With oracleCache, the servers' answers on the pinned commits are kept and reused (tuning runs).
    const cached = async (name: string, key: string, start: () => Promise<ReferenceOracle>) =>
      options.oracleCache ? CachedOracle.open(name, path.join(CACHE, `oracle-${key}-${half}-${sample}.json`), start) : start();
    const zod = repositories.has('zod') ? checkout(PINNED.zod.repo, PINNED.zod.commit) : undefined;
    if (zod !== undefined) {
      let server: TypeScriptOracle | undefined;
      const oracle = await cached('TypeScript language service', `zod@${PINNED.zod.commit.slice(0, 12)}`, async () => (server = new TypeScriptOracle(zod)));
      report.accuracy.push(await measureAccuracy(zod, `colinhacks/zod@${PINNED.zod.commit.slice(0, 7)}`, oracle, { sample, eligible: typescriptFile, part, worst, warm: (file) => server?.warm(file) ?? 0 }));
      await oracle.close();
      printAccuracy(report.accuracy[report.accuracy.length - 1]);
    }
    const flask = repositories.has('flask') ? checkout(PINNED.flask.repo, PINNED.flask.commit) : undefined;
    if (flask !== undefined) {
      const pythonFiles = execFileSync('find', [flask, '-name', '*.py', '-not', '-path', '*/node_modules/*'], { encoding: 'utf8' }).split('\n').filter(Boolean).map((file) => path.relative(flask, file));
      let warmMs = 0;
      const oracle = await cached('pyright', `flask@${PINNED.flask.commit.slice(0, 12)}`, async () => {
        const server = await PyrightOracle.start(flask);
        warmMs = await server.openAll(pythonFiles);
        return server;
      });
      report.accuracy.push(await measureAccuracy(flask, `pallets/flask@${PINNED.flask.commit.slice(0, 7)}`, oracle, { sample, eligible: (file) => file.endsWith('.py'), part, worst, warm: () => warmMs }));
      await oracle.close();
      printAccuracy(report.accuracy[report.accuracy.length - 1]);
    }
  }

  if (parts.has('linux')) {
    const linux = ensureLinuxTree((line) => console.log(line));
    const commit = execFileSync('git', ['-C', linux, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const rows = path.join(CACHE, `linux-${commit.slice(0, 12)}.rows`);
    fs.mkdirSync(CACHE, { recursive: true });
    const child = (args: string[]) => JSON.parse(execFileSync(process.execPath, ['--max-old-space-size=6144', '--expose-gc', LINUX_CHILD, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n').pop()!);
    let index: unknown;
    if (!fs.existsSync(rows)) {
      console.log('  indexing every blob of the Linux tree once (worker threads; kept for later runs)…');
      index = child(['index', linux, rows]);
    }
    const query = child(['query', linux, rows, String(sample + 1)]);
    report.linux = { index, query };
    console.log(
      `  Linux ${query.files.toLocaleString('en-US')} files, ${query.definitions.toLocaleString('en-US')} definitions: graph from rows ${query.buildSeconds.toFixed(1)} s (heap ${query.heapMB} MB);` +
        ` references p50 ${query.references.p50.toFixed(1)} ms, p90 ${query.references.p90.toFixed(1)} ms, p99 ${query.references.p99.toFixed(0)} ms (uses alone p50 ${query.findUses.p50.toFixed(2)} ms; ${query.meanUses.toFixed(0)} uses a query on average)` +
        `; peer rg -w NAME over the tree p50 ${query.rg.p50.toFixed(0)} ms`,
    );
  }

  if (parts.has('impact')) {
    console.log('  impact on history: a commit\'s code change alone → the test files the commit changed');
    const flaskMirror = mirrorOf(PINNED.flask.repo);
    if (flaskMirror !== undefined) report.impact.push(await measureImpactHistory(flaskMirror, 'pallets/flask', PINNED.flask.commit, (file) => file.endsWith('.py'), 20));
    const ownGit = execFileSync('git', ['-C', REPO_ROOT, 'rev-parse', '--path-format=absolute', '--git-common-dir'], { encoding: 'utf8' }).trim();
    report.impact.push(await measureImpactHistory(ownGit, 'quarry (this repository)', 'HEAD', (file) => /\.ts$/.test(file), 12));
    for (const row of report.impact) {
      console.log(
        `  ${row.repository.padEnd(26)} ${row.commits} commits: ${(row.recall * 100).toFixed(0)}% of their changed tests named (${(row.reachedRecall * 100).toFixed(0)}% reached through uses or imports),` +
          ` all of them in ${row.allFound}/${row.commits}; ${row.meanTests.toFixed(1)} tests named per answer, a changed test's median rank ${row.medianRank}, ${(row.withinTen * 100).toFixed(0)}% in the first 10; ${row.medianMs.toFixed(0)} ms median`,
      );
    }
  }

  if (parts.has('cost')) {
    const linux = ensureLinuxTree((line) => console.log(line));
    const list = path.join(os.tmpdir(), `quarry-navigation-fs-${process.pid}.txt`);
    fs.writeFileSync(list, `${trackedFiles(linux, 'fs').join('\n')}\n`);
    try {
      const cost = JSON.parse(execFileSync(process.execPath, [path.join(__dirname, 'navigation-cost.js'), linux, list], { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n').pop()!);
      report.cost = cost;
      console.log(
        `  per-blob index of Linux fs/ (${cost.megabytes.toFixed(1)} MB): ${cost.indexMBps.toFixed(2)} MB/s per thread; stored ${Math.round(cost.compactPerMB).toLocaleString('en-US')} B/MB compact, ${Math.round(cost.gzipPerMB).toLocaleString('en-US')} B/MB gzipped,` +
          ` of which navigation (occurrences, imports, scopes) ${Math.round(cost.navigationCompactPerMB).toLocaleString('en-US')} / ${Math.round(cost.navigationGzipPerMB).toLocaleString('en-US')}`,
      );
    } finally {
      fs.rmSync(list, { force: true });
    }
  }
  return report;
}
