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
  /** Written after the rules were tuned on the others, and never tuned against: the honest figure. */
  heldout?: boolean;
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

export interface EvalReport {
  rules: PathScore & { latencyMs: { median: number; p99: number }; heldout: { total: number; toolAccuracy: number; argsAccuracy: number } };
  ai: PathScore & { bySource: Record<string, number> };
}

export const RULE_TARGETS = { toolAccuracy: 0.95, argsAccuracy: 0.85 } as const;
const AI_TIMEOUT_MS = 300;
const LATENCY_RUNS = 5;

export const LABELLED_QUERIES: readonly LabelledQuery[] = (queriesFile as { queries: LabelledQuery[] }).queries;

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
  else scoreSoFar.misses.push({ query: item.query, expected: item.expect, got: { tools: result.plan.tools, dropped: result.dropped, source: result.source } });
  scoreSoFar.toolAccuracy = scoreSoFar.toolCorrect / scoreSoFar.total;
  scoreSoFar.argsAccuracy = scoreSoFar.argsCorrect / scoreSoFar.total;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

/** The rule fallback over every labelled query, with its per-query latency (planning + normalizing). */
export function evaluateRules(root: string, view: FileListView, queries: readonly LabelledQuery[] = LABELLED_QUERIES): EvalReport['rules'] {
  const registry = defaultToolRegistry();
  const result = emptyScore();
  const heldout = emptyScore();
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
    tally(result, item, planned);
    if (item.heldout) tally(heldout, item, planned);
  }
  timings.sort((a, b) => a - b);
  return {
    ...result,
    latencyMs: { median: percentile(timings, 0.5), p99: percentile(timings, 0.99) },
    heldout: { total: heldout.total, toolAccuracy: heldout.toolAccuracy, argsAccuracy: heldout.argsAccuracy },
  };
}

/** The AI path over the cassette's queries, each answer scripted on a real local HTTP server. */
export async function evaluateAi(root: string, view: FileListView): Promise<EvalReport['ai']> {
  const byQuery = new Map(LABELLED_QUERIES.map((item) => [item.query, item]));
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

export async function runInterpretEval(): Promise<EvalReport> {
  const root = await materialise((workspaceFile as { files: string[] }).files);
  try {
    const view = await workspaceViewOf(root);
    // Warm the code paths once so the latency figures are of steady state, not of first compilation.
    evaluateRules(root, view, LABELLED_QUERIES.slice(0, 20));
    return { rules: evaluateRules(root, view), ai: await evaluateAi(root, view) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
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
    console.log(`  - ${JSON.stringify(miss.query)}\n      expected ${expected}\n      got      ${got}${miss.got.source ? ` (${miss.got.source})` : ''}`);
  }
}

async function main(): Promise<void> {
  const report = await runInterpretEval();
  printPath('rule fallback', report.rules);
  const { heldout } = report.rules;
  console.log(`  of which held out (never tuned against): ${heldout.total} queries, tool name ${percent(heldout.toolAccuracy)}, exact arguments ${percent(heldout.argsAccuracy)}`);
  console.log(`  latency per query: median ${report.rules.latencyMs.median.toFixed(3)} ms, p99 ${report.rules.latencyMs.p99.toFixed(3)} ms`);
  console.log(`  targets: tool name ≥ ${percent(RULE_TARGETS.toolAccuracy)}, exact arguments ≥ ${percent(RULE_TARGETS.argsAccuracy)}`);
  printMisses(report.rules.misses);
  printPath('AI path (scripted answers on FakeChatServer, not a live model)', report.ai);
  console.log(`  plans by source: ${Object.entries(report.ai.bySource).map(([source, count]) => `${source} ${count}`).join(', ')}`);
  printMisses(report.ai.misses);
  const met = report.rules.toolAccuracy >= RULE_TARGETS.toolAccuracy && report.rules.argsAccuracy >= RULE_TARGETS.argsAccuracy;
  process.exitCode = met ? 0 : 1;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
