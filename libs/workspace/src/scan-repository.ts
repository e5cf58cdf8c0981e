import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JobProgress, LanguageStats, ScanResult } from '@quarry/contracts';
import { walkFiles } from './file-walker';
import { measureFileSteps, type FileMeasure } from './file-measure';
import { languageOf } from './languages';
import { LargestFiles } from './largest-files';

export interface ScanOptions {
  /** Stops the scan within one directory read or one reading slice (10 ms); the promise rejects with its reason. */
  signal?: AbortSignal;
  /** `listing` once per directory read, then `reading` once per file. The caller throttles. */
  onProgress?: (progress: JobProgress) => void;
  /** How many of the largest text files to report (at most 20, the contract's limit). */
  largestFiles?: number;
}

/** The scan contract caps the largest-files list at 20. */
export const MAX_LARGEST_FILES = 20;
/** How long reading may hold the event loop before letting it run. */
const SLICE_MS = 10;
/** Per reader; files larger than this are streamed through it, so memory does not grow with them. */
const READ_CHUNK_BYTES = 64 * 1024;
/** Files directly in the root count under this directory name. */
const ROOT_DIRECTORY = '.';

/**
 * The work behind the `scan` job: lists the files git would see under `root` (which should already
 * be validated, see resolveWorkspaceRoot), reads each one, and sums files, bytes and lines per
 * language and per top-level directory. Binary files are counted as skipped, not as code.
 */
export async function scanRepository(root: string, options: ScanOptions = {}): Promise<ScanResult> {
  const { signal, onProgress } = options;
  const started = performance.now();
  signal?.throwIfAborted();

  onProgress?.({ stage: 'listing', done: 0 });
  const listing = await walkFiles(root, {
    signal,
    onProgress: onProgress && ((filesFound) => onProgress({ stage: 'listing', done: filesFound })),
  });

  const totals = new ScanTotals(Math.min(MAX_LARGEST_FILES, Math.max(0, options.largestFiles ?? MAX_LARGEST_FILES)));
  const rootPath = path.resolve(root);
  const files = listing.files;
  const total = files.length;
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  onProgress?.({ stage: 'reading', done: 0, total });

  // Blocking reads in short slices (see measureFileSteps): between slices the event loop runs,
  // so timers, sockets and an abort get their turn, and a large file can be left mid-way.
  let sliceStarted = performance.now();
  for (let index = 0; index < total; index++) {
    // Cheap, and catches an abort raised synchronously (from onProgress, say) without waiting for a slice.
    signal?.throwIfAborted();
    const relative = files[index];
    const steps = measureFileSteps(`${rootPath}/${relative}`, buffer);
    let step = steps.next();
    while (!step.done) {
      if (performance.now() - sliceStarted >= SLICE_MS) {
        await yieldToEventLoop(steps, signal);
        sliceStarted = performance.now();
      }
      step = steps.next();
    }
    totals.add(relative, step.value);
    onProgress?.({ stage: 'reading', done: index + 1, total });
    if (performance.now() - sliceStarted >= SLICE_MS) {
      await yieldToEventLoop(undefined, signal);
      sliceStarted = performance.now();
    }
  }

  return {
    root,
    ...totals.summary(),
    skipped: {
      binary: totals.binary,
      ignored: listing.skipped.ignored,
      symlinks: listing.skipped.symlinks,
      // Special files (devices, FIFOs, sockets) cannot be read as text either.
      unreadable: listing.skipped.unreadable + listing.skipped.special + totals.unreadable,
    },
    durationMs: Math.round(performance.now() - started),
  };
}

/** Lets pending I/O callbacks run (setImmediate comes after the poll phase), then honours an abort. */
async function yieldToEventLoop(unfinished: Generator<void, FileMeasure, void> | undefined, signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal?.aborted) {
    unfinished?.return(UNREADABLE_ON_ABORT); // closes the file it holds open
    signal.throwIfAborted();
  }
}
const UNREADABLE_ON_ABORT: FileMeasure = { kind: 'unreadable' };

/** Running sums of a scan, fed one measured file at a time. */
class ScanTotals {
  files = 0;
  bytes = 0;
  lines = 0;
  binary = 0;
  unreadable = 0;
  private readonly languages = new Map<string, LanguageStats>();
  private readonly directories = new Map<string, { path: string; files: number; bytes: number }>();
  private readonly largest: LargestFiles;

  constructor(largestFiles: number) {
    this.largest = new LargestFiles(largestFiles);
  }

  add(relative: string, measure: FileMeasure): void {
    if (measure.kind === 'binary') {
      this.binary++;
      return;
    }
    if (measure.kind === 'unreadable') {
      this.unreadable++;
      return;
    }
    const { bytes, lines } = measure;
    const language = languageOf(relative);
    this.files++;
    this.bytes += bytes;
    this.lines += lines;

    const languageStats = this.languages.get(language);
    if (languageStats) {
      languageStats.files++;
      languageStats.bytes += bytes;
      languageStats.lines += lines;
    } else {
      this.languages.set(language, { language, files: 1, bytes, lines });
    }

    const slash = relative.indexOf('/');
    const top = slash === -1 ? ROOT_DIRECTORY : relative.slice(0, slash);
    const directory = this.directories.get(top);
    if (directory) {
      directory.files++;
      directory.bytes += bytes;
    } else {
      this.directories.set(top, { path: top, files: 1, bytes });
    }

    this.largest.offer({ path: relative, bytes, language });
  }

  summary(): Pick<ScanResult, 'files' | 'bytes' | 'lines' | 'languages' | 'largestFiles' | 'directories'> {
    return {
      files: this.files,
      bytes: this.bytes,
      lines: this.lines,
      languages: [...this.languages.values()].sort((a, b) => b.bytes - a.bytes || compareText(a.language, b.language)),
      largestFiles: this.largest.toArray(),
      directories: [...this.directories.values()].sort((a, b) => b.bytes - a.bytes || compareText(a.path, b.path)),
    };
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
