import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { languageOf } from '@quarry/workspace';
import { SYMBOL_LANGUAGES } from '../src/symbols/language-specs';
import { SymbolExtractor } from '../src/symbols/symbol-extractor';
import { ctagsAvailable, measureRecall, recallOf, RecallReport, runCtags } from './ctags-recall';

/**
 * `npm run eval:symbols`: recall of our function and class definitions against universal-ctags on
 * a sample of the Linux kernel and on three repositories in other languages, pinned to commits.
 * Each corpus is split by a hash of the path into a development part (what the grammar rules were
 * checked against) and a held-out part (never looked at while writing them): the held-out figure
 * is the honest one. Nothing is vendored: the repositories come from bare git mirrors
 * (`QUARRY_EVAL_MIRRORS`, default /work/.mirror/<owner>+<name>/repo) and are unpacked into a cache
 * (`QUARRY_EVAL_CACHE`, default ~/.cache/quarry-bench/code-index-eval).
 */

interface Corpus {
  name: string;
  root: string;
  commit: string;
  files: string[];
}

/** Repositories in other languages, pinned. */
const REPOSITORIES = [
  { repo: 'pallets/flask', commit: '2ac89889f4cc330eabd50f295dcef02828522c69' },
  { repo: 'gin-gonic/gin', commit: 'dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9' },
  { repo: 'colinhacks/zod', commit: 'e516c3baf22615e20934116abebfed6c000222c2' },
];

const TARGET = 0.95;
/** Per 1,000 files of Linux: 20 in the development part, 20 held out (~1,100 files, ~25 MB each). */
const LINUX_PER_MILLE = 20;
const MISSES_SHOWN = 12;

const LINUX_ROOT = process.env.QUARRY_BENCH_LINUX ?? path.join(os.homedir(), '.cache/quarry-bench/linux-6.1');
const MIRRORS = process.env.QUARRY_EVAL_MIRRORS ?? '/work/.mirror';
const CACHE = process.env.QUARRY_EVAL_CACHE ?? path.join(os.homedir(), '.cache/quarry-bench/code-index-eval');

/** A stable number in [0, 1000) from a path: the same file always lands in the same part. */
function bucket(file: string): number {
  return createHash('sha1').update(file).digest().readUInt32BE(0) % 1000;
}

function gitFiles(root: string): string[] {
  return execFileSync('git', ['-C', root, 'ls-files', '-z'], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .split('\0')
    .filter((file) => file !== '');
}

function linuxCorpus(): Corpus[] {
  if (!fs.existsSync(path.join(LINUX_ROOT, '.git'))) {
    console.log(`linux: ${LINUX_ROOT} is missing — run \`npm run bench -- --only i\` once to prepare it (or set QUARRY_BENCH_LINUX)`);
    return [];
  }
  const commit = execFileSync('git', ['-C', LINUX_ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const sources = gitFiles(LINUX_ROOT).filter((file) => /\.[ch]$/.test(file));
  return [
    { name: 'linux (dev)', root: LINUX_ROOT, commit, files: sources.filter((file) => bucket(file) < LINUX_PER_MILLE) },
    { name: 'linux (held-out)', root: LINUX_ROOT, commit, files: sources.filter((file) => bucket(file) >= 500 && bucket(file) < 500 + LINUX_PER_MILLE) },
  ];
}

/** The repository at its pinned commit, unpacked into the cache once. */
function repositoryCorpus(repo: string, commit: string): Corpus[] {
  const mirror = path.join(MIRRORS, repo.replace('/', '+'), 'repo');
  const root = path.join(CACHE, `${repo.replace('/', '+')}@${commit.slice(0, 12)}`);
  if (!fs.existsSync(path.join(root, '.complete'))) {
    if (!fs.existsSync(mirror)) {
      console.log(`${repo}: no mirror at ${mirror} (set QUARRY_EVAL_MIRRORS to a directory of <owner>+<name>/repo bare clones)`);
      return [];
    }
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(root, { recursive: true });
    const archive = execFileSync('git', ['--git-dir', mirror, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', root], { input: archive });
    fs.writeFileSync(path.join(root, '.complete'), `${repo}@${commit}\n`);
  }
  const files = listFiles(root).filter((file) => SYMBOL_LANGUAGES.includes(languageOf(file)));
  return [
    { name: `${repo} (dev)`, root, commit, files: files.filter((file) => bucket(file) % 2 === 0) },
    { name: `${repo} (held-out)`, root, commit, files: files.filter((file) => bucket(file) % 2 === 1) },
  ];
}

function listFiles(root: string, directory = ''): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, directory), { withFileTypes: true })) {
    const relative = directory === '' ? entry.name : `${directory}/${entry.name}`;
    if (entry.isDirectory()) files.push(...listFiles(root, relative));
    else if (entry.isFile()) files.push(relative);
  }
  return files.sort();
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

function printReport(corpus: Corpus, report: RecallReport, ctagsSeconds: number): void {
  const bytes = report.languages.reduce((sum, row) => sum + row.bytes, 0);
  console.log(`\n${corpus.name} @ ${corpus.commit.slice(0, 12)} — ${corpus.files.length} files, ${(bytes / 1e6).toFixed(1)} MB`);
  console.log(`  recall ${percent(recallOf(report))} (${report.found} of ${report.expected} ctags function/class definitions, same name and line)`);
  console.log(`  extraction ${report.extractSeconds.toFixed(1)} s (${(bytes / 1e6 / report.extractSeconds).toFixed(2)} MB/s); ctags ${ctagsSeconds.toFixed(1)} s`);
  if (report.warnings.length > 0) console.log(`  ${report.warnings.length} files without symbols: ${report.warnings.slice(0, 3).join('; ')}`);
  for (const row of report.languages) {
    if (row.expected === 0) continue;
    console.log(`  ${row.language.padEnd(12)} ${percent(recallOf(row)).padStart(6)}  ${row.found}/${row.expected}`);
    for (const miss of row.misses.slice(0, MISSES_SHOWN)) console.log(`      miss ${miss.kind} ${miss.name} ${miss.path}:${miss.line}  ${miss.source}`);
    if (row.misses.length > MISSES_SHOWN) console.log(`      … ${row.misses.length - MISSES_SHOWN} more`);
  }
}

async function main(): Promise<number> {
  if (!ctagsAvailable()) {
    console.error('eval:symbols needs universal-ctags (apt-get install universal-ctags)');
    return 2;
  }
  const extractor = await SymbolExtractor.create();
  const corpora = [...linuxCorpus(), ...REPOSITORIES.flatMap(({ repo, commit }) => repositoryCorpus(repo, commit))];
  const summary: { name: string; recall: number; expected: number }[] = [];
  for (const corpus of corpora) {
    const started = performance.now();
    const tags = runCtags(corpus.root, corpus.files);
    const ctagsSeconds = (performance.now() - started) / 1000;
    const report = measureRecall(extractor, corpus.root, corpus.files, tags);
    printReport(corpus, report, ctagsSeconds);
    summary.push({ name: corpus.name, recall: recallOf(report), expected: report.expected });
  }
  console.log('\nsummary (target ≥ 95% of ctags function/class definitions, equal lines)');
  for (const row of summary) console.log(`  ${row.name.padEnd(32)} ${percent(row.recall).padStart(6)} of ${row.expected}  ${row.recall >= TARGET ? 'met' : 'MISSED'}`);
  return summary.every((row) => row.recall >= TARGET) ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
