import type { ContextCorpus } from '../corpus/context-corpus';
import type { FileRole } from '../corpus/file-roles';
import type { SignalName, SignalScores } from '../signals/signal-scores';
import type { TaskIntent } from '../task/task-analysis';

/**
 * How the signals add up. Evidence that is absolute (a path named, a name defined, a message
 * matched) is squashed with s / (s + k), so one strong match counts near its weight whatever else
 * the task says; relative evidence (BM25, path terms, graph) is divided by its best file's score.
 */
export interface FusionWeights {
  file: Record<Exclude<SignalName, 'roles' | 'prior'>, number>;
  /** k of the squash per absolute signal; a signal without one is divided by its best file's score. */
  squash: Partial<Record<SignalName, number>>;
  /** Signals already in the fusion's units, taken as they are (the graph passes on shares of its seeds' fused scores). */
  asIs: readonly SignalName[];
  /**
   * Added: prior × log(1 + PageRank relative to the median file). Small: it orders what the task
   * does not (ties, a task that matches nothing); at 0.05 it ranked central files over the
   * evidence (the development part's ablation, with and without it).
   */
  prior: number;
  /** Multipliers for files whose role the task does not ask for. */
  roles: Record<Exclude<FileRole, 'source'>, number>;
  span: {
    /** The share of its file's score a span starts with. */
    file: number;
    signals: Record<'explicit' | 'definitions' | 'literals' | 'bm25' | 'graph', number>;
  };
  /** Files whose chunks compete for spans. */
  spanFiles: number;
  /** Added to a focus file. */
  focus: number;
}

export const DEFAULT_WEIGHTS: FusionWeights = {
  file: { explicit: 1, definitions: 0.7, literals: 0.8, bm25: 0.9, paths: 0.25, graph: 0.3 },
  squash: { explicit: 0.5, definitions: 3, literals: 0.3 },
  asIs: ['graph'],
  prior: 0.005,
  roles: { test: 0.3, docs: 0.2, example: 0.4 },
  span: { file: 0.5, signals: { explicit: 1, definitions: 0.7, literals: 0.8, bm25: 1.2, graph: 0.1 } },
  spanFiles: 12,
  focus: 0.5,
};

export interface SignalContribution {
  /** A lexical/structural signal, or an optional layer: `semantic` (its cosine), `rerank` (the chat model's place). */
  signal: SignalName | 'semantic' | 'rerank';
  /** What this signal added to the file's score (before the role multiplier). */
  score: number;
  /** What matched (`defines nthroot_mod`, `stack frame line 179 in _collect_factor_and_dimension`). */
  notes: string[];
}

export interface RankedFile {
  file: number;
  score: number;
  why: SignalContribution[];
}

export function fuseFiles(
  corpus: ContextCorpus,
  signals: readonly SignalScores[],
  prior: Float64Array | undefined,
  intent: TaskIntent,
  weights: FusionWeights,
  focus: ReadonlySet<number>,
): RankedFile[] {
  // Dense by file: with the prior every file of the commit is ranked (78k for a kernel tree).
  const totals = new Float64Array(corpus.fileCount);
  const whys: (SignalContribution[] | undefined)[] = new Array(corpus.fileCount);
  const order: number[] = [];
  const entry = (file: number) => {
    let why = whys[file];
    if (why === undefined) {
      whys[file] = why = [];
      order.push(file);
    }
    return why;
  };
  for (const scores of signals) {
    const weight = weights.file[scores.signal as keyof FusionWeights['file']];
    if (!(weight > 0)) continue;
    const max = scores.maxFileScore();
    if (max === 0) continue;
    const k = weights.squash[scores.signal];
    const asIs = weights.asIs.includes(scores.signal);
    for (const [file, raw] of scores.files) {
      const normalized = asIs ? raw : k !== undefined ? raw / (raw + k) : raw / max;
      const contribution = weight * normalized;
      const why = entry(file);
      totals[file] += contribution;
      why.push({ signal: scores.signal, score: contribution, notes: scores.notesOf(file) });
    }
  }
  for (const file of focus) {
    const why = entry(file);
    totals[file] += weights.focus;
    why.push({ signal: 'explicit', score: weights.focus, notes: ['focus path'] });
  }
  // The prior orders every file, matched or not (it is the ranking of a task that matches nothing).
  const withPrior = prior !== undefined && weights.prior > 0;
  if (withPrior) for (let file = 0; file < corpus.fileCount; file++) entry(file);
  const ranked: RankedFile[] = [];
  for (const file of order) {
    const why = whys[file]!;
    let total = totals[file];
    if (withPrior) {
      const boost = weights.prior * Math.log1p(prior[file]);
      total += boost;
      why.push({ signal: 'prior', score: boost, notes: [] });
    }
    const multiplier = roleMultiplier(corpus.roles[file], intent, weights);
    if (multiplier !== 1) why.push({ signal: 'roles', score: multiplier, notes: [`${corpus.roles[file]} file ×${multiplier}`] });
    ranked.push({ file, score: total * multiplier, why: why.length > 1 ? why.sort((a, b) => b.score - a.score) : why });
  }
  // Ties by path: files are numbered in path order.
  return ranked.sort((a, b) => b.score - a.score || a.file - b.file);
}

export function roleMultiplier(role: FileRole, intent: TaskIntent, weights: FusionWeights): number {
  if (role === 'source') return 1;
  if (role === 'test' && intent.tests) return 1;
  if (role === 'docs' && intent.docs) return 1;
  return weights.roles[role];
}

export interface RankedSpan {
  chunk: number;
  score: number;
  why: SignalContribution[];
}

/**
 * Spans are the chunks of the best files: each starts with a share of its file's score and adds
 * its own evidence (the frame or definition or message it holds, its BM25, the graph), each
 * signal divided by its best chunk's score.
 */
export function rankSpans(corpus: ContextCorpus, files: readonly RankedFile[], signals: readonly SignalScores[], intent: TaskIntent, weights: FusionWeights): RankedSpan[] {
  const candidates = files.slice(0, weights.spanFiles);
  // The best of the candidates: the first, unless a semantic fusion reordered them.
  const best = candidates.reduce((max, ranked) => Math.max(max, ranked.score), 0);
  if (best === 0) return [];
  const spans: RankedSpan[] = [];
  const maxima = new Map(signals.map((scores) => [scores.signal, scores.maxChunkScore()]));
  for (const ranked of candidates) {
    const multiplier = roleMultiplier(corpus.roles[ranked.file], intent, weights);
    for (let chunk = corpus.chunkStart[ranked.file]; chunk < corpus.chunkStart[ranked.file + 1]; chunk++) {
      const fileShare = (weights.span.file * ranked.score) / best;
      let score = fileShare;
      const why: SignalContribution[] = [];
      for (const scores of signals) {
        const weight = weights.span.signals[scores.signal as keyof FusionWeights['span']['signals']];
        const raw = scores.chunks.get(chunk);
        if (!(weight > 0) || raw === undefined) continue;
        // Relative to the signal's best chunk (squashing the absolute signals as for files measured worse on spans).
        const contribution = (weight * raw) / maxima.get(scores.signal)!;
        score += contribution * multiplier;
        why.push({ signal: scores.signal, score: contribution, notes: [] });
      }
      spans.push({ chunk, score, why: why.sort((a, b) => b.score - a.score) });
    }
  }
  return spans.sort((a, b) => b.score - a.score || a.chunk - b.chunk);
}
