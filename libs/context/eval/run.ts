import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BlobIndexer, blobIndexKey, decodeText, encodeBlobIndex, type BlobIndex } from '@quarry/code-index';
import { languageOf } from '@quarry/workspace';
import { createNavigationIndex, graphNeighbours, type GraphFileInput } from '@quarry/code-graph';
import { buildBlobChunks, ContextCorpus, encodeBlobChunks, fuseSignals, rankForTask, retrieveContext, SIGNALS, taskSignals, type BlobChunks, type CorpusFile, type SignalName } from '@quarry/context';
import { weightVariants } from './tuning';
import { accuracyOf, outcomeOf, percent, quantile, type Accuracy, type Outcome } from './metrics';
import { splitInstances } from './split';
import { BlobIndexDiskCache, hasCommit, listTree, loadInstances, mirrorOf, readBlobs, type SweInstance, type TreeBlob } from './swe-lite';
import { wholeFileBm25 } from './whole-file-bm25';

/**
 * `npm run eval:context`: task-aware retrieval on SWE-bench Lite instances (real GitHub issues of
 * six Python repositories, `shared/bench/swe-lite/dev.jsonl`). For each instance, the tree at its
 * base commit is read from the repository's bare mirror, indexed (code index + chunk rows, per
 * blob, reused across instances), and the engine ranks files and spans for the issue's text; a
 * plain BM25 over whole files runs on the same corpus as the peer. Reports file Acc@1/3/5/10 and
 * span hit@5 against the files and lines the fix changed, an ablation, query times and index
 * build time and size.
 *
 * The instances are split per repository by a hash of their id (eval/split.ts) into a development
 * part (tuned on) and a held-out part (looked at only for final figures): `--part dev` (default),
 * `--part held-out`, `--part all`. `--misses` lists the development part's misses. Skips (exit 0)
 * when the dataset or the mirrors are missing.
 *
 * Environment: QUARRY_EVAL_SWE_LITE (dev.jsonl), QUARRY_EVAL_MIRRORS (<owner>+<name>/repo bare
 * mirrors, default ../.mirror), QUARRY_EVAL_CACHE (code index rows between runs, default ../corpus/swe-lite).
 */

const DATASET = process.env.QUARRY_EVAL_SWE_LITE ?? path.resolve('../shared/bench/swe-lite/dev.jsonl');
const MIRRORS = process.env.QUARRY_EVAL_MIRRORS ?? path.resolve('../.mirror');
const CACHE = process.env.QUARRY_EVAL_CACHE ?? path.resolve('../corpus/swe-lite');

/** SweRank (2025), file level on the 274-instance LocAgent subset of SWE-bench Lite; the README's BM25 on these 74. */
const PUBLISHED = [
  { name: 'BM25 (published, 274 instances)', acc: [38.7, 51.8, 61.7] },
  { name: 'CodeRankEmbed (embeddings)', acc: [52.6, 77.7, 84.7] },
  { name: 'Agentless (GPT-4o)', acc: [67.2, 74.5, 74.5] },
  { name: 'LocAgent (Claude 3.5)', acc: [77.7, 92.0, 94.2] },
  { name: 'SweRankLLM-Large', acc: [83.2, 94.9, 96.0] },
  { name: 'BM25 whole files, these 74 (README)', acc: [18.9, 37.8, 44.6] },
];

const TARGETS = { acc1: 0.55, acc5: 0.8, span5: 0.5, p50Ms: 300 };

interface Arguments {
  part: 'dev' | 'held-out' | 'all';
  misses: boolean;
  tune: boolean;
  ablation: boolean;
  indexBench: boolean;
  only?: string;
  /** Which graph the propagation walks: the name-matching one (default) or the resolved navigation graph. */
  graph?: 'names' | 'resolved';
}

function parseArguments(argv: string[]): Arguments {
  const args: Arguments = { part: 'dev', misses: false, tune: false, ablation: true, indexBench: true };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--part') args.part = argv[++index] as Arguments['part'];
    else if (arg === '--held-out') args.part = 'held-out';
    else if (arg === '--all') args.part = 'all';
    else if (arg === '--misses') args.misses = true;
    else if (arg === '--tune') args.tune = true;
    else if (arg === '--no-ablation') args.ablation = false;
    else if (arg === '--no-index-bench') args.indexBench = false;
    else if (arg === '--only') args.only = argv[++index];
    else if (arg === '--graph') args.graph = argv[++index] as Arguments['graph'];
    else throw new Error(`unknown argument ${arg} (--part dev|held-out|all, --misses, --no-ablation, --no-index-bench, --only <instance or repo>, --graph names|resolved)`);
  }
  if (!['dev', 'held-out', 'all'].includes(args.part)) throw new Error('--part is dev, held-out or all');
  if ((args.misses || args.tune) && args.part !== 'dev') throw new Error('--misses and --tune work on the development part only: the held-out part is for final figures');
  return args;
}

/** The configurations of the ablation: everything, each signal left out, each signal alone (with the role ranking). */
function ablationConfigs(): { name: string; disabled: Set<SignalName> }[] {
  const configs = [{ name: 'all signals', disabled: new Set<SignalName>() }];
  for (const signal of SIGNALS) configs.push({ name: `− ${signal}`, disabled: new Set([signal]) });
  for (const signal of SIGNALS) {
    if (signal === 'roles') continue;
    configs.push({ name: `${signal} alone`, disabled: new Set(SIGNALS.filter((other) => other !== signal && other !== 'roles')) });
  }
  return configs;
}

interface RepoState {
  gitDir: string;
  disk: BlobIndexDiskCache;
  /** The previous instance's rows, decoded: consecutive commits share most blobs. */
  previous: Map<string, { index: BlobIndex; chunks: BlobChunks }>;
  /** Chunk rows of every blob seen this run, encoded (what a store would hold). */
  chunkRows: Map<string, Buffer>;
}

interface IndexBench {
  repo: string;
  files: number;
  bytes: number;
  codeIndexMs: number;
  chunksMs: number;
  codeIndexBytes: number;
  chunkBytes: number;
  assembleMs: number;
}

async function main(): Promise<number> {
  const args = parseArguments(process.argv.slice(2));
  if (!fs.existsSync(DATASET)) {
    console.log(`eval:context skipped: no dataset at ${DATASET} (set QUARRY_EVAL_SWE_LITE)`);
    return 0;
  }
  const all = loadInstances(DATASET);
  const { dev, heldOut } = splitInstances(all);
  let selected = args.part === 'dev' ? dev : args.part === 'held-out' ? heldOut : all;
  if (args.only !== undefined) selected = selected.filter((instance) => instance.instance_id === args.only || instance.repo === args.only);

  const repos = [...new Set(selected.map((instance) => instance.repo))];
  const available = repos.filter((repo) => fs.existsSync(mirrorOf(MIRRORS, repo)));
  const missing = repos.filter((repo) => !available.includes(repo));
  if (available.length === 0) {
    console.log(`eval:context skipped: no mirrors under ${MIRRORS} for ${repos.join(', ')} — see shared/bench/swe-lite/README.md (set QUARRY_EVAL_MIRRORS)`);
    return 0;
  }
  if (missing.length > 0) console.log(`no mirror for ${missing.join(', ')}: their instances are skipped`);
  selected = selected.filter((instance) => available.includes(instance.repo) && hasCommit(mirrorOf(MIRRORS, instance.repo), instance.base_commit));
  console.log(`SWE-bench Lite, ${args.part} part: ${selected.length} instances (split: ${dev.length} dev, ${heldOut.length} held-out) from ${available.join(', ')}`);

  const indexer = await BlobIndexer.create();
  const configs = args.ablation ? ablationConfigs() : ablationConfigs().slice(0, 1);
  const outcomes = new Map<string, Outcome[]>(configs.map((config) => [config.name, []]));
  const baseline: Outcome[] = [];
  const rankMs: number[] = [];
  const fullMs: number[] = [];
  const sympyMs: number[] = [];
  const assembleMs: number[] = [];
  const contextTokens: number[] = [];
  const benches: IndexBench[] = [];
  const misses: string[] = [];
  const states = new Map<string, RepoState>();
  const variants = args.tune ? weightVariants() : [];
  const tuned = new Map<string, Outcome[]>(variants.map((variant) => [variant.name, []]));

  for (const instance of orderByCommitTime(selected)) {
    let state = states.get(instance.repo);
    if (state === undefined) {
      const gitDir = mirrorOf(MIRRORS, instance.repo);
      state = { gitDir, disk: new BlobIndexDiskCache(path.join(CACHE, `${instance.repo.replace('/', '+')}.blob-index`)), previous: new Map(), chunkRows: new Map() };
      states.set(instance.repo, state);
      if (args.indexBench) benches.push(benchIndexing(instance, state, indexer));
    }
    const blobs = listTree(state.gitDir, instance.base_commit);
    const indexed: GraphFileInput[] = [];
    const files = filesOf(blobs, state, indexer, indexed);
    const assembleStarted = performance.now();
    const corpus = new ContextCorpus(files);
    assembleMs.push(performance.now() - assembleStarted);
    // `--graph resolved`: the propagation walks the navigation graph (uses resolved through imports and scopes) instead of matching names.
    let graphOption: { graph?: ReturnType<typeof graphNeighbours> } = {};
    if (args.graph === 'resolved') {
      const byPathOid = new Map(blobs.map((blob) => [blob.path, blob.oid]));
      const read = async (file: string) => {
        const oid = byPathOid.get(file);
        return oid === undefined ? undefined : decodeText(readBlobs(state.gitDir, [oid]).get(oid) ?? Buffer.alloc(0));
      };
      graphOption = { graph: graphNeighbours(await createNavigationIndex(indexed, read)) };
    }

    // Warm: the first query on a commit computes its PageRank prior, which belongs to the index.
    rankForTask(corpus, instance.problem_statement, [], graphOption);
    const started = performance.now();
    const ranking = rankForTask(corpus, instance.problem_statement, [], graphOption);
    const elapsed = performance.now() - started;
    rankMs.push(elapsed);
    if (instance.repo === 'sympy/sympy') sympyMs.push(elapsed);

    // The whole answer, context included, with the texts of the best spans' files at hand.
    const spanPaths = [...new Set(ranking.spans.slice(0, 60).map((span) => corpus.paths[corpus.chunkFile[span.chunk]]))];
    const byPath = new Map(blobs.map((blob) => [blob.path, blob.oid]));
    const texts = readBlobs(state.gitDir, spanPaths.map((file) => byPath.get(file)!));
    const fullStarted = performance.now();
    const result = await retrieveContext(corpus, { task: instance.problem_statement.slice(0, 60_000) }, { ...graphOption, readText: async (file) => decodeText(texts.get(byPath.get(file)!) ?? Buffer.alloc(0)) });
    fullMs.push(performance.now() - fullStarted);
    contextTokens.push(result.tokens);

    for (const config of configs) {
      const run = config.disabled.size === 0 ? ranking : rankForTask(corpus, instance.problem_statement, [], { ...graphOption, disabled: config.disabled });
      const paths = run.files.map((ranked) => corpus.paths[ranked.file]);
      const spans = run.spans.map((span) => ({ path: corpus.paths[corpus.chunkFile[span.chunk]], ...corpus.chunk(span.chunk) }));
      outcomes.get(config.name)!.push(outcomeOf(instance, paths, spans));
    }
    if (args.tune) {
      const evidence = taskSignals(corpus, instance.problem_statement);
      for (const variant of variants) {
        const run = fuseSignals(corpus, evidence, variant.weights);
        const spans = run.spans.map((span) => ({ path: corpus.paths[corpus.chunkFile[span.chunk]], ...corpus.chunk(span.chunk) }));
        tuned.get(variant.name)!.push(outcomeOf(instance, run.files.map((ranked) => corpus.paths[ranked.file]), spans));
      }
    }
    baseline.push(outcomeOf(instance, wholeFileBm25(corpus, instance.problem_statement).map((file) => corpus.paths[file]), undefined));

    const outcome = outcomes.get('all signals')!.at(-1)!;
    if (args.misses && (outcome.goldRank === undefined || outcome.goldRank >= 5 || !outcome.spanHit)) misses.push(describeMiss(instance, corpus, ranking, outcome));
    process.stderr.write(`${instance.instance_id}: gold #${outcome.goldRank === undefined ? '—' : outcome.goldRank + 1}, span ${outcome.spanHit ? 'hit' : 'miss'}, ${elapsed.toFixed(0)} ms\n`);
  }
  for (const state of states.values()) state.disk.save();

  const main = accuracyOf(outcomes.get('all signals')!);
  printAccuracy(args.part, main, accuracyOf(baseline), outcomes.get('all signals')!, baseline);
  if (args.ablation) printAblation(configs.map((config) => ({ name: config.name, accuracy: accuracyOf(outcomes.get(config.name)!) })));
  if (args.tune) printTuning(variants.map((variant) => ({ name: variant.name, outcomes: tuned.get(variant.name)! })));
  printTimes(rankMs, fullMs, sympyMs, assembleMs, contextTokens);
  if (benches.length > 0) printBenches(benches);
  if (misses.length > 0) console.log(`\n## Misses (development part)\n\n${misses.join('\n')}`);
  const report = { part: args.part, date: new Date().toISOString(), instances: selected.length, engine: main, baseline: accuracyOf(baseline), ablation: configs.map((config) => ({ name: config.name, ...accuracyOf(outcomes.get(config.name)!) })), rankMs: { p50: quantile(rankMs, 0.5), p99: quantile(rankMs, 0.99) }, fullMs: { p50: quantile(fullMs, 0.5), p99: quantile(fullMs, 0.99) }, sympyMs: { p50: quantile(sympyMs, 0.5), p99: quantile(sympyMs, 0.99) }, benches };
  fs.mkdirSync(CACHE, { recursive: true });
  fs.writeFileSync(path.join(CACHE, `context-eval-${args.part}.json`), JSON.stringify(report, null, 2));
  const meets = main.files[1] >= TARGETS.acc1 && main.files[5] >= TARGETS.acc5 && main.spanHit5 >= TARGETS.span5;
  console.log(`\ntargets (no model): Acc@1 ≥ ${percent(TARGETS.acc1)}%, Acc@5 ≥ ${percent(TARGETS.acc5)}%, span hit@5 ≥ ${percent(TARGETS.span5)}%, sympy query p50 ≤ ${TARGETS.p50Ms} ms: ${meets && quantile(sympyMs, 0.5) <= TARGETS.p50Ms ? 'met' : 'not met'}`);
  return 0;
}

/** Instances of a repository in commit order, so each tree shares most blobs with the one before. */
function orderByCommitTime(instances: readonly SweInstance[]): SweInstance[] {
  const time = new Map<string, number>();
  for (const instance of instances) {
    const output = execFileSync('git', ['--git-dir', mirrorOf(MIRRORS, instance.repo), 'show', '-s', '--format=%ct', instance.base_commit], { encoding: 'utf8' });
    time.set(instance.instance_id, Number(output.trim()));
  }
  return [...instances].sort((a, b) => (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : time.get(a.instance_id)! - time.get(b.instance_id)!));
}

/** The corpus files of a tree: code index rows from the disk cache (or indexed now), chunk rows computed once per blob this run. */
function filesOf(blobs: readonly TreeBlob[], state: RepoState, indexer: BlobIndexer, indexed: GraphFileInput[] = []): CorpusFile[] {
  const current = new Map<string, { index: BlobIndex; chunks: BlobChunks }>();
  const unread: TreeBlob[] = [];
  for (const blob of blobs) {
    const key = blobIndexKey(blob.oid, blob.variant);
    const known = state.previous.get(key);
    if (known !== undefined) current.set(key, known);
    else unread.push(blob);
  }
  const contents = readBlobs(state.gitDir, [...new Set(unread.map((blob) => blob.oid))]);
  for (const blob of unread) {
    const key = blobIndexKey(blob.oid, blob.variant);
    if (current.has(key)) continue;
    const content = contents.get(blob.oid);
    if (content === undefined) continue;
    let index = state.disk.get(key);
    if (index === undefined) {
      index = indexer.index({ path: blob.path, language: languageOf(blob.path), content });
      state.disk.set(key, index);
    }
    if (index.binary) continue;
    const chunks = buildBlobChunks({ text: decodeText(content), definitions: index.definitions });
    if (!state.chunkRows.has(key)) state.chunkRows.set(key, encodeBlobChunks(chunks));
    current.set(key, { index, chunks });
  }
  state.previous = current;
  const files: CorpusFile[] = [];
  for (const blob of blobs) {
    const row = current.get(blobIndexKey(blob.oid, blob.variant));
    if (row === undefined) continue;
    files.push({ path: blob.path, definitions: row.index.definitions, references: row.index.references, chunks: row.chunks });
    indexed.push({ path: blob.path, index: row.index });
  }
  return files;
}

/** One tree indexed from scratch both ways: the code index (what a code-indexed scan computes per blob) and the chunk rows retrieval adds. */
function benchIndexing(instance: SweInstance, state: RepoState, indexer: BlobIndexer): IndexBench {
  const blobs = listTree(state.gitDir, instance.base_commit);
  const contents = readBlobs(state.gitDir, [...new Set(blobs.map((blob) => blob.oid))]);
  let codeIndexMs = 0;
  let chunksMs = 0;
  let codeIndexBytes = 0;
  let chunkBytes = 0;
  let bytes = 0;
  const files: CorpusFile[] = [];
  for (const blob of blobs) {
    const content = contents.get(blob.oid);
    if (content === undefined) continue;
    bytes += content.length;
    let started = performance.now();
    const index = indexer.index({ path: blob.path, language: languageOf(blob.path), content });
    // The indexer computes the chunk row too: the code index alone is its time less the chunking's (measured again below).
    codeIndexMs += performance.now() - started;
    codeIndexBytes += encodeBlobIndex(index).length;
    state.disk.set(blobIndexKey(blob.oid, blob.variant), index);
    if (index.binary) continue;
    started = performance.now();
    const chunks = buildBlobChunks({ text: decodeText(content), definitions: index.definitions });
    const chunkMs = performance.now() - started;
    chunksMs += chunkMs;
    codeIndexMs -= chunkMs;
    chunkBytes += encodeBlobChunks(chunks).length;
    files.push({ path: blob.path, definitions: index.definitions, references: index.references, chunks });
  }
  const started = performance.now();
  new ContextCorpus(files);
  return { repo: instance.repo, files: blobs.length, bytes, codeIndexMs, chunksMs, codeIndexBytes, chunkBytes, assembleMs: performance.now() - started };
}

function describeMiss(instance: SweInstance, corpus: ContextCorpus, ranking: ReturnType<typeof rankForTask>, outcome: Outcome): string {
  const top = ranking.files.slice(0, 5).map((ranked, index) => `  ${index + 1}. ${corpus.paths[ranked.file]} ${ranked.score.toFixed(3)} [${ranked.why.map((why) => `${why.signal} ${why.score.toFixed(2)}${why.notes.length ? ` (${why.notes.slice(0, 2).join('; ')})` : ''}`).join(', ')}]`);
  const gold = instance.gold_files.map((file) => {
    const ranked = ranking.files.findIndex((entry) => corpus.paths[entry.file] === file);
    const entry = ranking.files[ranked];
    return `  gold ${file}: ${ranked === -1 ? 'not ranked' : `#${ranked + 1} ${entry.score.toFixed(3)} [${entry.why.map((why) => `${why.signal} ${why.score.toFixed(2)}${why.notes.length ? ` (${why.notes.slice(0, 2).join('; ')})` : ''}`).join(', ')}]`} lines ${JSON.stringify(instance.gold_lines[file])}`;
  });
  const spans = ranking.spans.slice(0, 5).map((span) => {
    const chunk = corpus.chunk(span.chunk);
    return `  span ${corpus.paths[corpus.chunkFile[span.chunk]]}:${chunk.startLine}-${chunk.endLine} ${chunk.symbol ?? ''} ${span.score.toFixed(3)} [${span.why.map((why) => `${why.signal} ${why.score.toFixed(2)}`).join(', ')}]`;
  });
  return [`### ${instance.instance_id} — ${instance.problem_statement.split('\n')[0].slice(0, 100)} (file ${outcome.goldRank === undefined ? '—' : `#${outcome.goldRank + 1}`}, span ${outcome.spanHit ? 'hit' : 'miss'})`, ...top, ...gold, ...spans].join('\n');
}

function row(cells: readonly (string | number)[]): string {
  return `| ${cells.join(' | ')} |`;
}

function printAccuracy(part: string, engine: Accuracy, baseline: Accuracy, engineOutcomes: readonly Outcome[], baselineOutcomes: readonly Outcome[]): void {
  console.log(`\n## File Acc@k and span hit@5, ${part} part (${engine.count} instances)\n`);
  console.log(row(['retriever', 'Acc@1', 'Acc@3', 'Acc@5', 'Acc@10', 'span hit@5']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:']));
  console.log(row(['**quarry context** (no model)', ...[1, 3, 5, 10].map((k) => percent(engine.files[k as 1])), percent(engine.spanHit5)]));
  console.log(row(['BM25 over whole files (same trees, same run)', ...[1, 3, 5, 10].map((k) => percent(baseline.files[k as 1])), '—']));
  for (const published of PUBLISHED) console.log(row([`${published.name}`, ...published.acc.map(String), '—', '—']));
  console.log(`\nPer repository (engine Acc@1 / Acc@5 / span hit@5; BM25 Acc@5):\n`);
  console.log(row(['repository', 'n', 'Acc@1', 'Acc@5', 'span hit@5', 'BM25 Acc@5']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:']));
  for (const repo of [...new Set(engineOutcomes.map((outcome) => outcome.repo))].sort()) {
    const mine = accuracyOf(engineOutcomes.filter((outcome) => outcome.repo === repo));
    const theirs = accuracyOf(baselineOutcomes.filter((outcome) => outcome.repo === repo));
    console.log(row([repo, mine.count, percent(mine.files[1]), percent(mine.files[5]), percent(mine.spanHit5), percent(theirs.files[5])]));
  }
}

function printAblation(results: readonly { name: string; accuracy: Accuracy }[]): void {
  console.log('\n## Ablation (alone = that signal with the role ranking)\n');
  console.log(row(['configuration', 'Acc@1', 'Acc@3', 'Acc@5', 'Acc@10', 'span hit@5']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:']));
  for (const { name, accuracy } of results) console.log(row([name, ...[1, 3, 5, 10].map((k) => percent(accuracy.files[k as 1])), percent(accuracy.spanHit5)]));
}

function printTuning(results: readonly { name: string; outcomes: Outcome[] }[]): void {
  console.log('\n## Tuning (development part): each knob moved alone\n');
  console.log(row(['variant', 'Acc@1', 'Acc@3', 'Acc@5', 'Acc@10', 'span hit@5', 'repos Acc@5 (min)']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
  for (const { name, outcomes } of results) {
    const accuracy = accuracyOf(outcomes);
    const perRepo = [...new Set(outcomes.map((outcome) => outcome.repo))].map((repo) => accuracyOf(outcomes.filter((outcome) => outcome.repo === repo)).files[5]);
    console.log(row([name, ...[1, 3, 5, 10].map((k) => percent(accuracy.files[k as 1])), percent(accuracy.spanHit5), percent(Math.min(...perRepo))]));
  }
}

function printTimes(rankMs: number[], fullMs: number[], sympyMs: number[], assembleMs: number[], tokens: number[]): void {
  console.log('\n## Query times (one process, on the assembled commit)\n');
  console.log(row(['', 'p50 ms', 'p99 ms', 'max ms', 'n']));
  console.log(row(['---', '---:', '---:', '---:', '---:']));
  const line = (name: string, values: number[]) => console.log(row([name, quantile(values, 0.5).toFixed(1), quantile(values, 0.99).toFixed(1), Math.max(0, ...values).toFixed(1), values.length]));
  line('rank files and spans (all instances)', rankMs);
  line('rank on sympy commits', sympyMs);
  line('whole answer, 8k-token context (all)', fullMs);
  line('assemble a commit’s statistics from its rows', assembleMs);
  console.log(`\ncontext tokens: p50 ${quantile(tokens, 0.5)}, max ${Math.max(0, ...tokens)} (budget 8000)`);
}

function printBenches(benches: readonly IndexBench[]): void {
  console.log('\n## Index build per tree, from scratch (one process)\n');
  console.log(row(['tree', 'files', 'MB', 'code index s', 'chunk rows s', 'added', 'code index MB', 'chunk rows MB', 'assemble ms']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']));
  for (const bench of benches) {
    console.log(
      row([
        bench.repo,
        bench.files,
        (bench.bytes / 1e6).toFixed(1),
        (bench.codeIndexMs / 1000).toFixed(2),
        (bench.chunksMs / 1000).toFixed(2),
        `${((100 * bench.chunksMs) / bench.codeIndexMs).toFixed(0)}%`,
        (bench.codeIndexBytes / 1e6).toFixed(2),
        (bench.chunkBytes / 1e6).toFixed(2),
        bench.assembleMs.toFixed(0),
      ]),
    );
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
