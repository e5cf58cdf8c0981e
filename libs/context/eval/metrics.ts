import type { SweInstance } from './swe-lite';

export const FILE_KS = [1, 3, 5, 10] as const;
export const SPAN_K = 5;

/** One instance's outcome: the gold file's rank among the files (0-based, undefined when absent) and whether a top-k span hit. */
export interface Outcome {
  instance: string;
  repo: string;
  goldRank: number | undefined;
  spanHit: boolean;
}

export interface Accuracy {
  count: number;
  /** File Acc@k for k in FILE_KS, as fractions. */
  files: Record<(typeof FILE_KS)[number], number>;
  spanHit5: number;
}

export function outcomeOf(instance: SweInstance, rankedPaths: readonly string[], spans: readonly { path: string; startLine: number; endLine: number }[] | undefined): Outcome {
  const ranks = instance.gold_files.map((file) => rankedPaths.indexOf(file)).filter((rank) => rank !== -1);
  const goldRank = ranks.length === 0 ? undefined : Math.min(...ranks);
  const spanHit = spans !== undefined && spans.slice(0, SPAN_K).some((span) => (instance.gold_lines[span.path] ?? []).some(([first, last]) => span.startLine <= last && span.endLine >= first));
  return { instance: instance.instance_id, repo: instance.repo, goldRank, spanHit };
}

export function accuracyOf(outcomes: readonly Outcome[]): Accuracy {
  const count = outcomes.length;
  const at = (k: number) => (count === 0 ? 0 : outcomes.filter((outcome) => outcome.goldRank !== undefined && outcome.goldRank < k).length / count);
  return {
    count,
    files: { 1: at(1), 3: at(3), 5: at(5), 10: at(10) },
    spanHit5: count === 0 ? 0 : outcomes.filter((outcome) => outcome.spanHit).length / count,
  };
}

export function percent(value: number): string {
  return (100 * value).toFixed(1);
}

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
