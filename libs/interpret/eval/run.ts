import { isDeepStrictEqual } from 'node:util';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { LlmClient } from '@quarry/llm';
import { FakeChatServer } from '../../llm/src/testing';
import { interpretQuery, planByRules, prepareContext } from '../src/interpret';
import type { DroppedStep, Plan, QueryContext } from '../src/plan';
import { defaultToolRegistry } from '../src/tools';
import { FileListView, workspaceViewOf } from '../src/workspace-view';
import queriesFile from './queries.json';
import workspaceFile from './workspace.json';
import cassetteFile from './ai-cassette.json';
import corpusFile from './corpus.json';
import blindFile from './blind.json';
import blindTwoFile from './blind-2.json';
import blindThreeFile from './blind-3.json';
import questionClassesFile from './question-classes.json';
import codeQuestionsFile from './code-questions.json';
import { heldOut, heldOutHalf } from './held-out';

/**
 * The interpret eval: labelled queries against a fixture workspace, scored for the rule fallback
 * and for the AI path. The AI path is served by FakeChatServer with scripted answers from
 * ai-cassette.json — hand-written, including wrong, malformed and hallucinated ones, to measure the
 * pipeline's repairs; they are not a live model's answers.
 */

export interface Expectation {
  tool: string | null;
  args?: Record<string, unknown>;
  /** The step must be refused (outside the root) and recorded in `dropped` under this tool. */
  dropped?: string;
}

export interface LabelledQuery {
  query: string;
  context?: QueryContext;
  expect: Expectation;
  /** Never tuned against: reported separately as the honest figure. */
  heldout?: boolean;
  /** The corpus family the query belongs to. */
  family?: string;
  /** question-classes.json: the round it was written in (1 when absent). */
  round?: number;
}

/** A labelled set and the workspace its expected paths refer to. */
export interface EvalSet {
  name: string;
  workspace: readonly string[];
  queries: readonly LabelledQuery[];
}

/** One scripted AI answer: a plan, raw text, cut-off JSON, an HTTP status, or no answer. */
export interface CassetteEntry {
  query: string;
  answer: { plan?: unknown; text?: string; malformed?: true; refuse?: string; status?: number; hang?: true };
  /** What the entry exercises, for the report. */
  note: string;
}

export interface Miss {
  query: string;
  family?: string;
  expected: Expectation;
  got: { tools: Plan['tools']; dropped: DroppedStep[]; source?: string };
}

export interface PathScore {
  total: number;
  toolCorrect: number;
  argsCorrect: number;
  toolAccuracy: number;
  argsAccuracy: number;
  misses: Miss[];
}

export interface RuleScore {
  all: PathScore;
  development: PathScore;
  heldout: PathScore;
  /** Development queries per family (held-out ones are not broken down, so they give no hints). */
  families: Record<string, PathScore>;
  latencyMs: { median: number; p99: number };
}

export interface EvalReport {
  /** The issue 17 corpus: development and held-out parts. */
  corpus: RuleScore;
  /** The first labelled set (issue 6), kept as a regression gate. */
  original: RuleScore;
  /** Round 1 of the blind check: scored once (88.3% / 85.0%), then tuned on. */
  blind: RuleScore;
  /** Round 2 of the blind check: scored once (96.3% / 87.0%), then tuned on. */
  blindTwo: RuleScore;
  /** Round 3 of the blind check: written after round 2 was tuned on, never tuned on. */
  blindThree: RuleScore;
  /** Issue 34: five classes of questions, written before the fix; tuned on the development half only. */
  questionClasses: RuleScore;
  /** Issue 30: open questions about the code (→ find_relevant_code) and their look-alikes; tuned on the development half only. */
  codeQuestions: RuleScore;
  /** The same set by round: round 1 written before any change, rounds 2 and 3 each after the previous was tuned on. */
  questionClassRounds: Array<{ round: number; score: RuleScore }>;
  ai: PathScore & { bySource: Record<string, number> };
}

/** Targets of the rule fallback on the corpus's held-out part (issue 17). */
export const RULE_TARGETS = { toolAccuracy: 0.95, argsAccuracy: 0.88 } as const;
/**
 * The issue 34 set's held-out half, as a regression gate at what the fix reached (91.2% / 88.2%),
 * below the corpus's tool target: measured honestly, these classes are not yet where the corpus is.
 */
export const QUESTION_CLASS_TARGETS = { toolAccuracy: 0.9, argsAccuracy: 0.86 } as const;
/** The issue 30 set's held-out half, a gate below what the rule reached when the set was written (97.4%). */
export const CODE_QUESTION_TARGETS = { toolAccuracy: 0.9, argsAccuracy: 0.9 } as const;
/** The original set is a regression gate: it was tuned on, so its bar is its own. */
export const ORIGINAL_TARGETS = { toolAccuracy: 0.95, argsAccuracy: 0.9 } as const;
const AI_TIMEOUT_MS = 300;
const LATENCY_RUNS = 5;

export const LABELLED_QUERIES: readonly LabelledQuery[] = (queriesFile as { queries: LabelledQuery[] }).queries;

export const ORIGINAL_SET: EvalSet = { name: 'original', workspace: (workspaceFile as { files: string[] }).files, queries: LABELLED_QUERIES };

interface CorpusFile {
  workspace: string[];
  families: Array<{ family: string; queries: LabelledQuery[] }>;
}

/** The corpus with each query's family and its held-out mark (by the fixed rule, never by hand). */
export const CORPUS_SET: EvalSet = {
  name: 'corpus',
  workspace: (corpusFile as CorpusFile).workspace,
  queries: (corpusFile as CorpusFile).families.flatMap(({ family, queries }) => queries.map((item) => ({ ...item, family, heldout: heldOut(item.query) }))),
};

/** The issue 34 set: each query's class as its family, the held-out half by the fixed rule. */
export const QUESTION_CLASSES_SET: EvalSet = {
  name: 'question classes',
  workspace: (corpusFile as CorpusFile).workspace,
  queries: (questionClassesFile as { families: Array<{ family: string; queries: LabelledQuery[] }> }).families.flatMap(({ family, queries }) =>
    queries.map((item) => ({ ...item, family, heldout: heldOutHalf(item.query) })),
  ),
};

/** The issue 30 set: open questions about the code and look-alikes, the held-out half by the same fixed rule. */
export const CODE_QUESTIONS_SET: EvalSet = {
  name: 'code questions',
  workspace: (corpusFile as CorpusFile).workspace,
  queries: (codeQuestionsFile as { families: Array<{ family: string; queries: LabelledQuery[] }> }).families.flatMap(({ family, queries }) =>
    queries.map((item) => ({ ...item, family, heldout: heldOutHalf(item.query) })),
  ),
};

export function score(result: { plan: Plan; dropped: DroppedStep[] }, expect: Expectation): { tool: boolean; args: boolean } {
  const first = result.plan.tools[0];
  if (expect.dropped) {
    const refused = result.plan.tools.length === 0 && result.dropped.some((entry) => entry.tool === expect.dropped);
    return { tool: refused, args: refused };
  }
  if (expect.tool === null) {
    const none = result.plan.tools.length === 0 && !result.plan.needs_tools;
    return { tool: none, args: none };
  }
  const tool = first?.name === expect.tool;
  return { tool, args: tool && isDeepStrictEqual(first.args, expect.args ?? {}) };
}

async function materialise(files: readonly string[]): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'quarry-interpret-eval-'));
  for (const file of files) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), `// ${file}\n`);
  }
  return root;
}

const withRoot = (query: string, root: string) => query.split('$ROOT').join(root);

function emptyScore(): PathScore {
  return { total: 0, toolCorrect: 0, argsCorrect: 0, toolAccuracy: 0, argsAccuracy: 0, misses: [] };
}

function tally(scoreSoFar: PathScore, item: LabelledQuery, result: { plan: Plan; dropped: DroppedStep[]; source?: string }): void {
  const verdict = score(result, item.expect);
  scoreSoFar.total += 1;
  if (verdict.tool) scoreSoFar.toolCorrect += 1;
  if (verdict.args) scoreSoFar.argsCorrect += 1;
  else scoreSoFar.misses.push({ query: item.query, family: item.family, expected: item.expect, got: { tools: result.plan.tools, dropped: result.dropped, source: result.source } });
  scoreSoFar.toolAccuracy = scoreSoFar.toolCorrect / scoreSoFar.total;
  scoreSoFar.argsAccuracy = scoreSoFar.argsCorrect / scoreSoFar.total;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

/** The rule fallback over labelled queries, with its per-query latency (planning + normalizing). */
export function evaluateRules(root: string, view: FileListView, queries: readonly LabelledQuery[] = LABELLED_QUERIES): RuleScore {
  const registry = defaultToolRegistry();
  const report: RuleScore = { all: emptyScore(), development: emptyScore(), heldout: emptyScore(), families: {}, latencyMs: { median: 0, p99: 0 } };
  const timings: number[] = [];
  for (const item of queries) {
    const query = withRoot(item.query, root);
    const plan = () => {
      const { context, references } = prepareContext(query, item.context, root);
      return planByRules(query, { root, view, registry, cwd: context.cwd, references });
    };
    // The median of a few runs per query: on a shared machine a single run also measures the scheduler.
    const runs: number[] = [];
    for (let run = 0; run < LATENCY_RUNS; run++) {
      const started = process.hrtime.bigint();
      plan();
      runs.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    timings.push(runs.sort((a, b) => a - b)[Math.floor(LATENCY_RUNS / 2)]);
    const planned = plan();
    tally(report.all, item, planned);
    if (item.heldout) {
      tally(report.heldout, item, planned);
    } else {
      tally(report.development, item, planned);
      if (item.family) tally((report.families[item.family] ??= emptyScore()), item, planned);
    }
  }
  timings.sort((a, b) => a - b);
  report.latencyMs = { median: percentile(timings, 0.5), p99: percentile(timings, 0.99) };
  return report;
}

/** The AI path over the cassette's queries, each answer scripted on a real local HTTP server. */
export async function evaluateAi(root: string, view: FileListView): Promise<EvalReport['ai']> {
  // The original set's queries, and the issue 30 set's (their answers name no path, so the workspace does not matter).
  const byQuery = new Map([...LABELLED_QUERIES, ...CODE_QUESTIONS_SET.queries].map((item) => [item.query, item]));
  const server = await FakeChatServer.start();
  const llm = new LlmClient({ baseUrl: server.baseUrl, model: 'scripted-eval-answers', timeoutMs: AI_TIMEOUT_MS, maxRetries: 1, retryBaseMs: 5 });
  const result = { ...emptyScore(), bySource: {} as Record<string, number> };
  try {
    for (const entry of (cassetteFile as { answers: CassetteEntry[] }).answers) {
      const item = byQuery.get(entry.query);
      if (!item) throw new Error(`ai-cassette.json: "${entry.query}" is not a labelled query`);
      server.reset();
      script(server, JSON.parse(withRoot(JSON.stringify(entry.answer), root)) as CassetteEntry['answer']);
      const planned = await interpretQuery({ query: withRoot(item.query, root), context: item.context, root, view, llm, ai: 'auto', execute: false, aiTimeoutMs: AI_TIMEOUT_MS });
      result.bySource[planned.source] = (result.bySource[planned.source] ?? 0) + 1;
      tally(result, item, planned);
    }
  } finally {
    await server.close();
  }
  return result;
}

function script(server: FakeChatServer, answer: CassetteEntry['answer']): void {
  // One retry is allowed, so failures are scripted twice: the retry meets the same trouble.
  if (answer.plan !== undefined) server.reply(answer.plan);
  else if (answer.text !== undefined) server.replyText(answer.text);
  else if (answer.malformed) server.malformed();
  else if (answer.refuse !== undefined) server.refuse(answer.refuse);
  else if (answer.status !== undefined) server.fail(answer.status, undefined, { 'retry-after': '0' }).fail(answer.status, undefined, { 'retry-after': '0' });
  else if (answer.hang) server.hang(AI_TIMEOUT_MS * 3).hang(AI_TIMEOUT_MS * 3);
}

/** Checks written after the rules, on the corpus workspace: round 1 was tuned on after its first score, round 2 never. */
const blindSet = (name: string, file: { queries: LabelledQuery[] }): EvalSet => ({
  name,
  workspace: (corpusFile as CorpusFile).workspace,
  queries: file.queries.map((item) => ({ ...item, heldout: true, family: name })),
});
export const BLIND_SET = blindSet('blind round 1', blindFile as { queries: LabelledQuery[] });
export const BLIND_TWO_SET = blindSet('blind round 2', blindTwoFile as { queries: LabelledQuery[] });
export const BLIND_THREE_SET = blindSet('blind round 3', blindThreeFile as { queries: LabelledQuery[] });

/** The rules over one set, in a temp copy of its workspace. */
async function withWorkspace<T>(files: readonly string[], run: (root: string, view: FileListView) => Promise<T> | T): Promise<T> {
  const root = await materialise(files);
  try {
    return await run(root, await workspaceViewOf(root));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export async function runInterpretEval(): Promise<EvalReport> {
  const rounds = [...new Set(QUESTION_CLASSES_SET.queries.map((item) => item.round ?? 1))].sort();
  const [[corpus, blind, blindTwo, blindThree, questionClasses, codeQuestions], questionClassRounds] = await withWorkspace(CORPUS_SET.workspace, (root, view) => {
    // Warm the code paths once so the latency figures are of steady state, not of first compilation.
    evaluateRules(root, view, CORPUS_SET.queries.slice(0, 40));
    const sets = [CORPUS_SET, BLIND_SET, BLIND_TWO_SET, BLIND_THREE_SET, QUESTION_CLASSES_SET, CODE_QUESTIONS_SET].map((set) => evaluateRules(root, view, set.queries));
    const byRound = rounds.map((round) => ({ round, score: evaluateRules(root, view, QUESTION_CLASSES_SET.queries.filter((item) => (item.round ?? 1) === round)) }));
    return [sets, byRound] as const;
  });
  return withWorkspace(ORIGINAL_SET.workspace, async (root, view) => ({
    corpus,
    blind,
    blindTwo,
    blindThree,
    questionClasses,
    questionClassRounds,
    codeQuestions,
    original: evaluateRules(root, view, ORIGINAL_SET.queries),
    ai: await evaluateAi(root, view),
  }));
}

export function meetsTargets(report: EvalReport): boolean {
  const { heldout } = report.corpus;
  const { all } = report.original;
  const blind = report.blindThree.all;
  const classes = report.questionClasses.heldout;
  return (
    report.codeQuestions.heldout.toolAccuracy >= CODE_QUESTION_TARGETS.toolAccuracy &&
    report.codeQuestions.heldout.argsAccuracy >= CODE_QUESTION_TARGETS.argsAccuracy &&
    classes.toolAccuracy >= QUESTION_CLASS_TARGETS.toolAccuracy &&
    classes.argsAccuracy >= QUESTION_CLASS_TARGETS.argsAccuracy &&
    heldout.toolAccuracy >= RULE_TARGETS.toolAccuracy &&
    heldout.argsAccuracy >= RULE_TARGETS.argsAccuracy &&
    blind.toolAccuracy >= RULE_TARGETS.toolAccuracy &&
    blind.argsAccuracy >= RULE_TARGETS.argsAccuracy &&
    all.toolAccuracy >= ORIGINAL_TARGETS.toolAccuracy &&
    all.argsAccuracy >= ORIGINAL_TARGETS.argsAccuracy
  );
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function printPath(title: string, scoreOf: PathScore): void {
  console.log(`${title}: ${scoreOf.total} queries, tool name ${percent(scoreOf.toolAccuracy)}, exact arguments ${percent(scoreOf.argsAccuracy)}`);
}

function printMisses(misses: readonly Miss[]): void {
  for (const miss of misses) {
    const got = miss.got.tools.map((step) => `${step.name} ${JSON.stringify(step.args)}`).join(' + ') || (miss.got.dropped.length ? `dropped ${miss.got.dropped.map((d) => d.tool).join(', ')}` : 'no tool');
    const expected = miss.expected.dropped ? `dropped ${miss.expected.dropped}` : miss.expected.tool ? `${miss.expected.tool} ${JSON.stringify(miss.expected.args)}` : 'no tool';
    console.log(`  - ${miss.family ? `[${miss.family}] ` : ''}${JSON.stringify(miss.query)}\n      expected ${expected}\n      got      ${got}${miss.got.source ? ` (${miss.got.source})` : ''}`);
  }
}

function printRules(title: string, report: RuleScore, options: { showHeldout: boolean; byFamily: boolean }): void {
  console.log(`${title}`);
  printPath('  development', report.development);
  printPath('  held out (never tuned against)', report.heldout);
  printPath('  all', report.all);
  console.log(`  latency per query (plan + normalize): median ${report.latencyMs.median.toFixed(3)} ms, p99 ${report.latencyMs.p99.toFixed(3)} ms`);
  if (options.byFamily) {
    for (const [family, scoreOf] of Object.entries(report.families)) printPath(`    dev · ${family}`, scoreOf);
  }
  if (report.development.misses.length > 0) console.log('  development misses:');
  printMisses(report.development.misses);
  if (options.showHeldout) {
    if (report.heldout.misses.length > 0) console.log('  held-out misses (do not tune on these):');
    printMisses(report.heldout.misses);
  } else if (report.heldout.misses.length > 0) {
    console.log(`  ${report.heldout.misses.length} held-out misses not shown (--show-heldout prints them; tuning on them spoils the figure)`);
  }
}

async function main(): Promise<void> {
  const showHeldout = process.argv.includes('--show-heldout');
  const report = await runInterpretEval();
  printRules(`rule fallback on the issue 17 corpus (${CORPUS_SET.queries.length} queries, ${CORPUS_SET.workspace.length}-file workspace)`, report.corpus, { showHeldout, byFamily: true });
  printPath('rule fallback on blind round 1 (first scored 88.3% / 85.0%, then tuned on)', report.blind.all);
  printMisses(report.blind.all.misses);
  printPath('rule fallback on blind round 2 (first scored 96.3% / 87.0%, then tuned on)', report.blindTwo.all);
  printMisses(report.blindTwo.all.misses);
  printPath('rule fallback on blind round 3 (written after round 2 was tuned on; never tuned on)', report.blindThree.all);
  if (showHeldout) printMisses(report.blindThree.all.misses);
  else if (report.blindThree.all.misses.length > 0) console.log(`  ${report.blindThree.all.misses.length} blind misses not shown (--show-heldout prints them)`);
  printRules(`rule fallback on the issue 34 question classes (${QUESTION_CLASSES_SET.queries.length} queries, half held out)`, report.questionClasses, { showHeldout, byFamily: true });
  for (const { round, score: byRound } of report.questionClassRounds) {
    printPath(`    round ${round} development`, byRound.development);
    printPath(`    round ${round} held out`, byRound.heldout);
  }
  printRules(`rule fallback on the issue 30 code questions (${CODE_QUESTIONS_SET.queries.length} queries, half held out)`, report.codeQuestions, { showHeldout, byFamily: true });
  printRules(`rule fallback on the original set (${ORIGINAL_SET.queries.length} queries)`, report.original, { showHeldout, byFamily: false });
  console.log(
    `targets: corpus held out and blind round 3 tool name ≥ ${percent(RULE_TARGETS.toolAccuracy)}, exact arguments ≥ ${percent(RULE_TARGETS.argsAccuracy)}; question classes held out ≥ ${percent(QUESTION_CLASS_TARGETS.toolAccuracy)} / ${percent(QUESTION_CLASS_TARGETS.argsAccuracy)}; code questions held out ≥ ${percent(CODE_QUESTION_TARGETS.toolAccuracy)} / ${percent(CODE_QUESTION_TARGETS.argsAccuracy)}; original set ≥ ${percent(ORIGINAL_TARGETS.toolAccuracy)} / ${percent(ORIGINAL_TARGETS.argsAccuracy)}`,
  );
  printPath('AI path (scripted answers on FakeChatServer, not a live model)', report.ai);
  console.log(`  plans by source: ${Object.entries(report.ai.bySource).map(([source, count]) => `${source} ${count}`).join(', ')}`);
  printMisses(report.ai.misses);
  process.exitCode = meetsTargets(report) ? 0 : 1;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
