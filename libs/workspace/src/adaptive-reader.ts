import { performance } from 'node:perf_hooks';
import { measureFileConcurrently, measureFileSteps, READ_CHUNK_BYTES, type ExpectedStat, type FileMeasure } from './file-measure';

/**
 * How files are read. Measured scanning the 100k-file benchmark tree (bench/walk.bench.ts) on a
 * 2-core VM:
 * - `blocking`: synchronous reads in slices of ~10 ms, the event loop running between slices.
 *   From a warm page cache this is the fastest by far, because each thread-pool round trip costs
 *   more than the syscall inside it: 1.2 s warm, but 9–10 s cold, one disk wait at a time.
 * - `concurrent`: up to 32 files in flight through the libuv thread pool: 2.6–4.4 s warm,
 *   4.3–5.5 s cold, the disk serving several reads at once.
 * - `auto` (default): blocking while slices run at page-cache speed; a slice several times slower
 *   is waiting on the disk, so the next batch goes concurrent, then a blocking slice probes again.
 *   1.3–1.8 s warm, 4.2–5.3 s cold. A machine whose system calls are slow (a VM: 20–25 µs to open,
 *   read, fstat and close a file warm) makes warm slices look like disk waits; there, the last
 *   concurrent batch having been slower per file than the slow slice keeps the reads blocking.
 */
export type ReadStrategy = 'auto' | 'blocking' | 'concurrent';

export interface MeasureFilesOptions {
  signal?: AbortSignal;
  strategy?: ReadStrategy;
  /**
   * The whole bytes of each file read to measure it (a git snapshot: one call per blob, with its
   * first path), so a scan's shard can build more from them without reading them again. Not
   * called for measures served from a cache, nor by measures that stream a file in chunks.
   */
  onContent?: (relative: string, content: Buffer) => void;
  /** What a file is expected to be (see ExpectedStat); one that is not anymore is measured `unreadable`. */
  expect?: (relative: string) => ExpectedStat | undefined;
}

/**
 * The last concurrent batch this thread read, across calls: what concurrency buys is a property of
 * the machine, and a scan measures its files in many calls (one per shard) that would each pay
 * for finding it out again.
 */
let lastConcurrentBatch: SliceStats | undefined;

/** How long blocking reads may hold the event loop before letting it run. */
export const SLICE_MS = 10;
const CONCURRENT_READS = 32;
/**
 * Files per concurrent batch before a blocking slice probes the cache again. The batch doubles
 * each time the probe still finds the disk slow, so a cold tree pays for few probes.
 */
const FIRST_CONCURRENT_BATCH = 1024;
const LARGEST_CONCURRENT_BATCH = 32 * 1024;

/**
 * Measures `files` (relative to `root`), calling `onMeasured` once per file (in completion order,
 * not list order). Peak memory is one chunk buffer per read in flight, whatever the file sizes.
 * An abort is seen between slices and between chunks: the promise rejects with the signal's
 * reason, after every file it opened is closed.
 */
export async function measureFiles(
  root: string,
  files: readonly string[],
  onMeasured: (relative: string, measure: FileMeasure) => void,
  options: MeasureFilesOptions = {},
): Promise<void> {
  const { signal, strategy = 'auto' } = options;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const blockingBuffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  let concurrentBuffers: Buffer[] | undefined;
  let blocking = strategy !== 'concurrent';
  let batch = strategy === 'concurrent' ? LARGEST_CONCURRENT_BATCH : FIRST_CONCURRENT_BATCH;
  let next = 0;

  while (next < files.length) {
    signal?.throwIfAborted();
    if (blocking) {
      const slice = await readSliceBlocking(prefix, files, next, blockingBuffer, onMeasured, signal, options.expect);
      next += slice.files;
      if (strategy === 'auto' && shouldReadConcurrently(slice, lastConcurrentBatch)) blocking = false;
      else batch = FIRST_CONCURRENT_BATCH;
    } else {
      const end = Math.min(files.length, next + batch);
      batch = Math.min(LARGEST_CONCURRENT_BATCH, batch * 2);
      concurrentBuffers ??= Array.from({ length: CONCURRENT_READS }, () => Buffer.allocUnsafe(READ_CHUNK_BYTES));
      lastConcurrentBatch = await readBatchConcurrently(prefix, files, next, end, concurrentBuffers, onMeasured, signal, options.expect);
      next = end;
      if (strategy === 'auto') blocking = true;
    }
  }
}

export interface SliceStats {
  files: number;
  bytes: number;
  elapsedMs: number;
}

/**
 * Whether a blocking slice ran well below page-cache speed. Warm, a small file costs ~6 µs to
 * open, read and close, and lines are counted at ~1 GB/s (measured on the benchmark tree: 91k
 * files, 321 MB in 0.65 s; 1.8 s with the machine busy; 9–10 s from a cold cache). Three times
 * slower than that model is the disk, not a busy CPU.
 */
export function isWaitingOnDisk(slice: SliceStats): boolean {
  if (slice.files === 0) return false;
  return slowness(slice) > 3 && slice.elapsedMs >= SLICE_MS / 2;
}

/** How many times the warm model's time a slice or batch took. */
function slowness({ files, bytes, elapsedMs }: SliceStats): number {
  return elapsedMs / (files * 0.006 + bytes / 1_000_000);
}

/**
 * The auto strategy's choice after a blocking slice: concurrent reads when the slice looks like
 * disk waits, unless the last concurrent batch was slower still (per file and byte). That batch is
 * the measure of what concurrency buys on this machine: on a VM with slow system calls, warm slices
 * exceed the model and concurrent batches are slower yet, so reads stay blocking.
 */
export function shouldReadConcurrently(slice: SliceStats, lastConcurrent: SliceStats | undefined): boolean {
  if (!isWaitingOnDisk(slice)) return false;
  return lastConcurrent === undefined || lastConcurrent.files === 0 || slowness(lastConcurrent) < slowness(slice);
}

/** Reads files from `start` until SLICE_MS has passed, then lets the event loop run. */
async function readSliceBlocking(
  prefix: string,
  files: readonly string[],
  start: number,
  buffer: Buffer,
  onMeasured: (relative: string, measure: FileMeasure) => void,
  signal: AbortSignal | undefined,
  expect: MeasureFilesOptions['expect'],
): Promise<SliceStats> {
  const started = performance.now();
  let sliceStarted = started;
  let index = start;
  let bytes = 0;
  while (index < files.length) {
    const relative = files[index++];
    const steps = measureFileSteps(prefix + relative, buffer, expect?.(relative));
    let step = steps.next();
    // A large file can span slices: the event loop still gets its turn every SLICE_MS.
    while (!step.done) {
      if (performance.now() - sliceStarted >= SLICE_MS) {
        await letEventLoopRun(signal, steps);
        sliceStarted = performance.now();
      }
      step = steps.next();
    }
    if (step.value.kind === 'text') bytes += step.value.bytes;
    onMeasured(relative, step.value);
    // Cheap, and sees an abort raised synchronously (from onMeasured, say) without waiting.
    signal?.throwIfAborted();
    if (performance.now() - sliceStarted >= SLICE_MS) break;
  }
  const elapsedMs = performance.now() - started;
  await letEventLoopRun(signal);
  return { files: index - start, bytes, elapsedMs };
}

/** Up to CONCURRENT_READS files in flight, one buffer each, over files[start, end). */
async function readBatchConcurrently(
  prefix: string,
  files: readonly string[],
  start: number,
  end: number,
  buffers: Buffer[],
  onMeasured: (relative: string, measure: FileMeasure) => void,
  signal: AbortSignal | undefined,
  expect: MeasureFilesOptions['expect'],
): Promise<SliceStats> {
  const started = performance.now();
  let next = start;
  let bytes = 0;
  const reader = async (buffer: Buffer): Promise<void> => {
    while (next < end) {
      signal?.throwIfAborted();
      const relative = files[next++];
      const measure = await measureFileConcurrently(prefix + relative, buffer, signal, expect?.(relative));
      if (measure.kind === 'text') bytes += measure.bytes;
      onMeasured(relative, measure);
    }
  };
  // Settle every reader before rejecting, so no file is still open when the caller hears of it.
  const outcomes = await Promise.allSettled(buffers.slice(0, Math.max(1, Math.min(buffers.length, end - start))).map(reader));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return { files: end - start, bytes, elapsedMs: performance.now() - started };
}

/** setImmediate runs after the poll phase: pending I/O callbacks (sockets, timers) get their turn. */
async function letEventLoopRun(signal: AbortSignal | undefined, unfinished?: Generator<void, FileMeasure, void>): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal?.aborted) {
    unfinished?.return(UNFINISHED); // closes the file it holds open
    signal.throwIfAborted();
  }
}
const UNFINISHED: FileMeasure = { kind: 'unreadable' };
