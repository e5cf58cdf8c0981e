import type { RankedFile, RankedSpan } from '../rank/fusion';
import type { SemanticScores } from './semantic-scores';

/** RRF's k: ranks deep in a list still count, and neither list's top rank dominates the fused one. */
const K = 60;

/**
 * Reciprocal rank fusion of the lexical ranking and the semantic one, over the candidate files
 * (the lexical ranking's first ones, whose chunks were compared with the task): a file's score is
 * 1/(k + its lexical rank) + 1/(k + its semantic rank). Files past the candidates keep their
 * lexical order after them, scored 1/(k + rank) alone. Ranks, not scores: BM25 and cosine have
 * no common scale.
 */
export function fuseFileRanks(files: readonly RankedFile[], semantic: SemanticScores): RankedFile[] {
  const semanticRank = ranksOf([...semantic.files].map(([file, { score }]) => [file, score] as const));
  const fused = files.map((ranked, index) => {
    const rank = semanticRank.get(ranked.file);
    const best = semantic.files.get(ranked.file);
    const score = 1 / (K + index + 1) + (rank === undefined ? 0 : 1 / (K + rank));
    const why = best === undefined ? ranked.why : [...ranked.why, { signal: 'semantic' as const, score: round(best.score), notes: [`cosine ${best.score.toFixed(3)}, semantic rank ${rank}`] }];
    return { ...ranked, score, why };
  });
  return fused.sort((a, b) => b.score - a.score);
}

/** The same fusion for spans: their lexical rank and their chunk's semantic rank among the compared chunks. */
export function fuseSpanRanks(spans: readonly RankedSpan[], semantic: SemanticScores): RankedSpan[] {
  const semanticRank = ranksOf(spans.filter((span) => semantic.chunks.has(span.chunk)).map((span) => [span.chunk, semantic.chunks.get(span.chunk)!] as const));
  const fused = spans.map((span, index) => {
    const rank = semanticRank.get(span.chunk);
    const cosine = semantic.chunks.get(span.chunk);
    const score = 1 / (K + index + 1) + (rank === undefined ? 0 : 1 / (K + rank));
    return { ...span, score, why: cosine === undefined ? span.why : [...span.why, { signal: 'semantic' as const, score: round(cosine), notes: [] }] };
  });
  return fused.sort((a, b) => b.score - a.score);
}

/** 1-based ranks by descending score. */
function ranksOf(scores: readonly (readonly [number, number])[]): Map<number, number> {
  const ordered = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return new Map(ordered.map(([id], index) => [id, index + 1]));
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
