import type { JobProgress, JobResult, ScanResult } from '@quarry/contracts';
import { scanRepository as walkAndMeasure, type ScanSource } from '@quarry/workspace';

export interface ScanWithStackOptions {
  /** Stack detection of the same repository: the worker's, with its LLM cache, or an in-process one. */
  detect(signal: AbortSignal): Promise<JobResult<'detect'>>;
  signal: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
}

/**
 * The scan job's work, wherever it runs (a worker, or `quarry mcp` in-process): the walk with
 * its measures, and stack detection beside it (it reads a few manifests near the top, so it
 * runs during the walk, not after). A detection that fails, other than by cancellation, leaves
 * the result without `stack` rather than failing a long scan; the detect job reports such
 * failures in full. The listing stage has no total, so it is reported as a message and `done`
 * only ever grows.
 */
export async function scanWithStack(root: string | ScanSource, options: ScanWithStackOptions): Promise<ScanResult> {
  const { signal, onProgress } = options;
  return withStack(options.detect, signal, () =>
    walkAndMeasure(root, {
      signal,
      onProgress:
        onProgress &&
        ((progress) => onProgress(progress.stage === 'listing' ? { stage: 'listing', done: 0, message: `${progress.done} files found` } : progress)),
    }),
  );
}

/**
 * Any scan with stack detection beside it (a sharded scan too): the result gains `stack` unless
 * detection failed other than by cancellation.
 */
export async function withStack<R extends ScanResult>(detect: (signal: AbortSignal) => Promise<JobResult<'detect'>>, signal: AbortSignal, scan: () => Promise<R>): Promise<R> {
  const stack = detect(signal).catch((error: unknown) => {
    if (signal.aborted) throw error;
    return undefined;
  });
  stack.catch(() => undefined); // awaited below; a walk failure must not leave it unhandled
  const summary = await scan();
  const services = await stack;
  return services ? { ...summary, stack: services } : summary;
}
