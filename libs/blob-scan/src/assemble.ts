import type { ScanResult } from '@quarry/contracts';
import { MAX_LARGEST_FILES, ScanTotals, type FileMeasure, type WalkSkipped } from '@quarry/workspace';

export interface AssembleInput {
  root: string;
  /** Every listed file of the commit and its blob (undefined: it could not be read). */
  files: Iterable<readonly [path: string, blob: string | undefined]>;
  /** The facts of the commit's blobs; a blob without facts counts as unreadable. */
  facts: ReadonlyMap<string, FileMeasure>;
  skipped: WalkSkipped;
  largestFiles?: number;
  durationMs: number;
}

/**
 * A scan result from a commit's entries and the facts of their blobs: the same sums, sorts and
 * largest files as the single-process scan (`scanRepository`), which feeds the same ScanTotals.
 */
export function assembleScan(input: AssembleInput): ScanResult {
  return totalsOf(input).result(input.root, input.skipped, input.durationMs);
}

/** The running sums behind `assembleScan`'s result, which a re-scan of a next commit updates. */
export function totalsOf(input: Pick<AssembleInput, 'files' | 'facts' | 'largestFiles'>): ScanTotals {
  const totals = new ScanTotals(largestFilesOf(input.largestFiles));
  for (const [path, blob] of input.files) totals.add(path, factsOf(blob, input.facts));
  return totals;
}

/** How many largest files a result lists, for a requested count. */
export function largestFilesOf(requested: number | undefined): number {
  return Math.min(MAX_LARGEST_FILES, Math.max(0, requested ?? MAX_LARGEST_FILES));
}

/** A file's facts by its blob; unreadable when it has no blob or the blob no facts. */
export function factsOf(blob: string | undefined, facts: ReadonlyMap<string, FileMeasure>): FileMeasure {
  return (blob !== undefined && facts.get(blob)) || UNREADABLE;
}

const UNREADABLE: FileMeasure = { kind: 'unreadable' };
