import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JobProgress, ScanResult } from '@quarry/contracts';
import { walkFiles } from '../file-walker';
import { measureFiles, type ReadStrategy } from '../adaptive-reader';
import { MAX_LARGEST_FILES, ScanTotals, type ScanSource } from '../scan-totals';

export interface ScanOptions {
  /** Stops the scan within a directory read, a reading slice (10 ms) or a chunk; the promise rejects with its reason. */
  signal?: AbortSignal;
  /** `listing` once per directory read, then `reading` once per file. The caller throttles. */
  onProgress?: (progress: JobProgress) => void;
  /** How many of the largest text files to report (at most 20, the contract's limit). */
  largestFiles?: number;
  /** Blocking or concurrent reads; `auto` (the default) picks by how fast the disk answers. */
  readStrategy?: ReadStrategy;
}

/**
 * The reference the scan engine (@quarry/blob-scan's shardedScan) is checked and benchmarked
 * against: in one pass, in this thread, it lists the files git would see under `root`, reads each
 * one, and sums files, bytes and lines per language and per top-level directory through the same
 * ScanTotals. No job runs it.
 */
export async function referenceScan(rootOrSource: string | ScanSource, options: ScanOptions = {}): Promise<ScanResult> {
  const { signal, onProgress } = options;
  const started = performance.now();
  signal?.throwIfAborted();
  const source = typeof rootOrSource === 'string' ? directorySource(rootOrSource) : rootOrSource;
  const root = source.root;

  onProgress?.({ stage: 'listing', done: 0 });
  const listing = await source.walk({
    signal,
    onProgress: onProgress && ((filesFound) => onProgress({ stage: 'listing', done: filesFound })),
  });

  const totals = new ScanTotals(Math.min(MAX_LARGEST_FILES, Math.max(0, options.largestFiles ?? MAX_LARGEST_FILES)));
  const total = listing.files.length;
  let done = 0;
  onProgress?.({ stage: 'reading', done: 0, total });
  await source.measure(
    listing.files,
    (relative, measure) => {
      // Reads already in flight when the scan is cancelled still finish: they count for nothing.
      if (signal?.aborted) return;
      totals.add(relative, measure);
      onProgress?.({ stage: 'reading', done: ++done, total });
    },
    { signal, strategy: options.readStrategy },
  );

  return totals.result(root, listing.skipped, Math.round(performance.now() - started));
}

/** A directory on this machine's disk, read as it is now. */
export function directorySource(root: string): ScanSource {
  return {
    root,
    walk: (options) => walkFiles(root, options),
    measure: (files, onMeasured, options) => measureFiles(path.resolve(root), files, onMeasured, options),
  };
}

