import { isQuarryError, type ContextResultBody } from '@quarry/contracts';
import { tokenCounter, splitLines } from '@quarry/code-index';
import { assembleContext } from './assemble/context-assembly';
import type { ContextCorpus } from './corpus/context-corpus';
import { NameReferenceGraph } from './graph/name-reference-graph';
import type { ReferenceGraph } from './graph/reference-graph';
import { DEFAULT_WEIGHTS, fuseFiles, rankSpans, roleMultiplier, type FusionWeights, type RankedFile, type RankedSpan } from './rank/fusion';
import { focusNotFound, validateContextRequest, type ContextRequest } from './request/context-request';
import { chunkBm25, pathMatches } from './signals/bm25';
import { definitionMatches } from './signals/definition-matches';
import { explicitReferences } from './signals/explicit-references';
import { graphPropagation } from './signals/graph-propagation';
import { literalMatches } from './signals/literal-matches';
import { pageRankPrior } from './signals/page-rank-prior';
import { SignalScores, type SignalName } from './signals/signal-scores';
import { analyzeTask, type TaskAnalysis, type TaskIntent } from './task/task-analysis';
import { rerankByModel, type RerankSettings } from './semantic/llm-rerank';
import { fuseFileRanks, fuseSpanRanks } from './semantic/rank-fusion';
import { semanticScores, type SemanticSettings } from './semantic/semantic-scores';

export interface RankOptions {
  /** The definition/reference graph; by default the name-matching one over the corpus. */
  graph?: ReferenceGraph;
  weights?: FusionWeights;
  /** Signals left out (the evaluation's ablation). */
  disabled?: ReadonlySet<SignalName>;
}

export interface RetrieveOptions extends RankOptions {
  /** The text of a file of the corpus: only the files whose spans go into the context (or are embedded, or reranked) are read. */
  readText(path: string): Promise<string>;
  /** The commit the corpus is of, named in the result. */
  commit?: string;
  /** Embeddings fused with the lexical ranking; absent: off. */
  semantic?: SemanticSettings;
  /** The chat model's order of the top spans; absent: off. */
  rerank?: RerankSettings;
  signal?: AbortSignal;
}

export interface Ranking {
  task: TaskAnalysis;
  files: RankedFile[];
  spans: RankedSpan[];
}

const priors = new WeakMap<ContextCorpus, Float64Array>();
const graphs = new WeakMap<ContextCorpus, ReferenceGraph>();

/** Every signal's evidence for one task, before fusion: the evaluation fuses one set many ways. */
export interface TaskSignals {
  task: TaskAnalysis;
  signals: SignalScores[];
  prior: Float64Array | undefined;
  intent: TaskIntent;
  focus: Set<number>;
}

/**
 * Ranks the files and spans of a commit for a task, from the corpus alone (no file is read):
 * every signal scores the task, the file scores are fused, then the best files' chunks are ranked
 * as spans. Synchronous; the evaluation calls it directly, `retrieveContext` adds the context.
 */
export function rankForTask(corpus: ContextCorpus, taskText: string, focusPaths: readonly string[] = [], options: RankOptions = {}): Ranking {
  return fuseSignals(corpus, taskSignals(corpus, taskText, focusPaths, options), options.weights);
}

export function taskSignals(corpus: ContextCorpus, taskText: string, focusPaths: readonly string[] = [], options: RankOptions = {}): TaskSignals {
  const weights = options.weights ?? DEFAULT_WEIGHTS;
  const enabled = (signal: SignalName) => !options.disabled?.has(signal);
  const task = analyzeTask(taskText);
  // The graph spreads the direct evidence (or, without any, the lexical one): computed for its
  // seeds even when left out of the fusion, so "graph alone" measures the propagation itself.
  const useGraph = enabled('graph');
  const direct: SignalScores[] = [];
  if (enabled('explicit') || useGraph) direct.push(explicitReferences(corpus, task));
  if (enabled('definitions') || useGraph) direct.push(definitionMatches(corpus, task));
  if (enabled('literals') || useGraph) direct.push(literalMatches(corpus, task));
  const lexical: SignalScores[] = [];
  if (enabled('bm25')) lexical.push(chunkBm25(corpus, task));
  if (enabled('paths')) lexical.push(pathMatches(corpus, task));
  const focus = new Set(focusPaths.map((path) => corpus.fileOf(path)).filter((file): file is number => file !== undefined));

  const signals = [...direct, ...lexical].filter((scores) => enabled(scores.signal));
  const intent = enabled('roles') ? task.intent : { tests: true, docs: true };
  if (useGraph) {
    const graph = options.graph ?? graphs.get(corpus) ?? new NameReferenceGraph(corpus);
    if (options.graph === undefined) graphs.set(corpus, graph);
    const seeds = direct.some((scores) => scores.files.size > 0) ? direct : lexical;
    signals.push(graphPropagation(corpus, graph, seedsOf(corpus, seeds, focus, intent, weights)));
  }
  let prior: Float64Array | undefined;
  if (enabled('prior')) {
    prior = priors.get(corpus) ?? pageRankPrior(corpus);
    priors.set(corpus, prior);
  }
  return { task, signals, prior, intent, focus };
}

export function fuseSignals(corpus: ContextCorpus, evidence: TaskSignals, weights: FusionWeights = DEFAULT_WEIGHTS): Ranking {
  const files = fuseFiles(corpus, evidence.signals, evidence.prior, evidence.intent, weights, evidence.focus);
  const spans = rankSpans(corpus, files, evidence.signals, evidence.intent, weights);
  return { task: evidence.task, files, spans };
}

/**
 * Where the graph starts from: the direct evidence per file and chunk, relative to each signal's
 * best, ranked by role like the files (a test that uses everything is no place to spread from),
 * and the focus files.
 */
function seedsOf(corpus: ContextCorpus, signals: readonly SignalScores[], focus: ReadonlySet<number>, intent: TaskIntent, weights: FusionWeights): { files: Map<number, number>; chunks: Map<number, number> } {
  const files = new Map<number, number>();
  const chunks = new Map<number, number>();
  const role = (file: number) => roleMultiplier(corpus.roles[file], intent, weights);
  // In the fusion's units, so what the graph passes on weighs like the evidence it came from.
  for (const scores of signals) {
    const weight = weights.file[scores.signal as keyof FusionWeights['file']] ?? 0;
    const chunkMax = scores.maxChunkScore();
    const fileMax = scores.maxFileScore();
    const k = weights.squash[scores.signal];
    const scale = (raw: number, max: number) => (k !== undefined ? raw / (raw + k) : raw / max);
    for (const [file, score] of scores.files) files.set(file, (files.get(file) ?? 0) + role(file) * weight * scale(score, fileMax));
    for (const [chunk, score] of scores.chunks) chunks.set(chunk, (chunks.get(chunk) ?? 0) + role(corpus.chunkFile[chunk]) * weight * scale(score, chunkMax));
  }
  for (const file of focus) files.set(file, (files.get(file) ?? 0) + weights.focus);
  return { files, chunks };
}

/**
 * The answer to a context request on one commit: the request checked (typed errors), files and
 * spans ranked, and the spans' code assembled within the budget.
 */
export async function retrieveContext(corpus: ContextCorpus, request: ContextRequest, options: RetrieveOptions): Promise<ContextResultBody> {
  const started = performance.now();
  const valid = validateContextRequest(request);
  for (const path of valid.focus) if (corpus.fileOf(path) === undefined) throw focusNotFound(path, corpus.paths);
  const ranking = await rankWithLayers(corpus, valid.task, valid.focus, options);
  const countTokens = tokenCounter(valid.encoding);
  const shown = ranking.spans.map((span) => {
    const chunk = corpus.chunk(span.chunk);
    return { path: corpus.paths[corpus.chunkFile[span.chunk]], startLine: chunk.startLine, endLine: chunk.endLine, symbol: chunk.symbol, kind: chunk.kind, container: chunk.container };
  });
  const assembled = await assembleContext(shown, valid.tokens, countTokens, options.readText);
  const listed = Math.max(valid.limit, assembled.included.filter((state) => state !== 'omitted').length);
  const warnings = ranking.warnings;
  const matched = ranking.files.some((ranked) => ranked.why.some((entry) => entry.signal !== 'prior' && entry.signal !== 'roles'));
  if (!matched) warnings.push('Nothing in the repository matched the task: no file, name, message or term of it was found.');
  return {
    files: ranking.files.slice(0, valid.limit).map((ranked) => ({
      path: corpus.paths[ranked.file],
      score: round(ranked.score),
      role: corpus.roles[ranked.file],
      why: ranked.why.map((entry) => ({ ...entry, score: round(entry.score) })),
    })),
    spans: ranking.spans.slice(0, listed).map((span, index) => ({
      ...definedOnly(shown[index]),
      score: round(span.score),
      why: span.why.map((entry) => ({ ...entry, score: round(entry.score) })),
      inContext: assembled.included[index],
    })),
    context: assembled.text,
    tokens: assembled.tokens,
    budget: valid.tokens,
    encoding: valid.encoding,
    ...(options.commit === undefined ? {} : { commit: options.commit }),
    task: {
      frames: ranking.task.frames.map((frame) => ({ path: frame.path, ...(frame.line === undefined ? {} : { line: frame.line }), ...(frame.symbol === undefined ? {} : { symbol: frame.symbol }) })),
      paths: ranking.task.paths,
      asksFor: [...(ranking.task.intent.tests ? ['tests' as const] : []), ...(ranking.task.intent.docs ? ['docs' as const] : [])],
    },
    stats: { files: corpus.fileCount, chunks: corpus.chunkCount, terms: corpus.termCount, durationMs: Math.round(performance.now() - started) },
    ...(Object.keys(ranking.layers).length > 0 ? { layers: ranking.layers } : {}),
    warnings,
  };
}

type Layers = NonNullable<ContextResultBody['layers']>;

/**
 * The lexical/structural ranking, then the optional layers, each of which can only fall back:
 * embeddings fused with it by rank over its first files, then the chat model's order of the top
 * spans. A layer whose endpoint is down, slow, rate-limited or answers nonsense leaves the ranking
 * as it was and says so in a warning; only the caller's abort stops the answer.
 */
async function rankWithLayers(corpus: ContextCorpus, task: string, focus: readonly string[], options: RetrieveOptions): Promise<Ranking & { warnings: string[]; layers: Layers }> {
  const weights = options.weights ?? DEFAULT_WEIGHTS;
  const evidence = taskSignals(corpus, task, focus, options);
  const lexical = fuseFiles(corpus, evidence.signals, evidence.prior, evidence.intent, weights, evidence.focus);
  const warnings: string[] = [];
  const layers: Layers = {};
  let files = lexical;
  let semantic: Awaited<ReturnType<typeof semanticScores>> | undefined;
  if (options.semantic) {
    const started = performance.now();
    const candidates = lexical.slice(0, options.semantic.candidateFiles).map((ranked) => ranked.file);
    try {
      semantic = await semanticScores(corpus, candidates, task, options.semantic, options.readText, options.signal);
      files = fuseFileRanks(lexical, semantic);
      layers.embeddings = { status: 'used', files: candidates.length, chunks: semantic.chunks.size, embedded: semantic.embedded, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      warnings.push(`The semantic layer was not used (${reasonOf(error)}): the ranking is lexical.`);
      layers.embeddings = { status: 'fell_back', files: candidates.length, chunks: 0, embedded: 0, durationMs: Math.round(performance.now() - started) };
    }
  }
  // Spans share their file's lexical score; the files competing for them are the fused ranking's first.
  const lexicalOf = new Map(lexical.map((ranked) => [ranked.file, ranked]));
  let spans = rankSpans(
    corpus,
    files.map((ranked) => lexicalOf.get(ranked.file)!),
    evidence.signals,
    evidence.intent,
    weights,
  );
  if (semantic) spans = fuseSpanRanks(spans, semantic);
  if (options.rerank && spans.length > 1) {
    const started = performance.now();
    const top = spans.slice(0, options.rerank.top);
    try {
      const candidates = await Promise.all(top.map((span) => rerankCandidate(corpus, span.chunk, options.readText)));
      const order = await rerankByModel(task, candidates, options.rerank, options.signal);
      ({ files, spans } = applyRerank(corpus, files, spans, order));
      layers.rerank = { status: 'used', spans: top.length, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      warnings.push(`The rerank was not used (${reasonOf(error)}): the ranking is the ${semantic ? 'fused lexical and semantic' : 'lexical'} one.`);
      layers.rerank = { status: 'fell_back', spans: top.length, durationMs: Math.round(performance.now() - started) };
    }
  }
  return { task: evidence.task, files, spans, warnings, layers };
}

async function rerankCandidate(corpus: ContextCorpus, chunk: number, readText: (path: string) => Promise<string>) {
  const row = corpus.chunk(chunk);
  const path = corpus.paths[corpus.chunkFile[chunk]];
  const lines = splitLines(await readText(path));
  const label = row.symbol === undefined ? undefined : `${row.kind ?? 'definition'} ${row.container ? `${row.container}.` : ''}${row.symbol}`;
  return { path, startLine: row.startLine, endLine: row.endLine, ...(label ? { label } : {}), code: lines.slice(row.startLine - 1, row.endLine).join('\n') };
}

/**
 * The model's order of the top spans; the rest follow as they were. Files follow their spans: the
 * files of the reordered spans first, in the order their first span now appears, then the others.
 * Scores stay those of the places (a descending sequence), the `why` says the model's rank.
 */
function applyRerank(corpus: ContextCorpus, files: readonly RankedFile[], spans: readonly RankedSpan[], order: readonly number[]): { files: RankedFile[]; spans: RankedSpan[] } {
  const reordered = [...order.map((index, place) => ({ ...spans[index], why: [...spans[index].why, { signal: 'rerank' as const, score: place + 1, notes: [`the chat model's rank ${place + 1} of ${order.length}`] }] })), ...spans.slice(order.length)];
  const rankedSpans = reordered.map((span, place) => ({ ...span, score: spans[place].score }));
  const first: number[] = [];
  for (const span of reordered.slice(0, order.length)) {
    const file = corpus.chunkFile[span.chunk];
    if (!first.includes(file)) first.push(file);
  }
  const byFile = new Map(files.map((ranked) => [ranked.file, ranked]));
  const fileOrder = [...first.map((file) => byFile.get(file)!).filter(Boolean), ...files.filter((ranked) => !first.includes(ranked.file))];
  return { files: fileOrder.map((ranked, place) => ({ ...ranked, score: files[place].score })), spans: rankedSpans };
}

function reasonOf(error: unknown): string {
  if (isQuarryError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
