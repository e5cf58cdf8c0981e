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
  const totals = new ScanTotals(Math.min(MAX_LARGEST_FILES, Math.max(0, input.largestFiles ?? MAX_LARGEST_FILES)));
  for (const [path, blob] of input.files) {
    totals.add(path, (blob !== undefined && input.facts.get(blob)) || UNREADABLE);
  }
  return totals.result(input.root, input.skipped, input.durationMs);
}

const UNREADABLE: FileMeasure = { kind: 'unreadable' };
