import type { LanguageStats, ScanResult } from '@quarry/contracts';
import type { WalkOptions, WalkResult, WalkSkipped } from './file-walker';
import type { MeasureFilesOptions } from './adaptive-reader';
import type { FileMeasure } from './file-measure';
import { languageOf } from './languages';
import { LargestFiles } from './largest-files';

/**
 * What a scan reads: the files git would see and their measures. A directory on disk is one
 * (`directorySource(root)` in ./testing); a git commit in a worker's cache is another (@quarry/snapshot).
 */
export interface ScanSource {
  /** Shown as the result's `root`. */
  readonly root: string;
  walk(options: WalkOptions): Promise<WalkResult>;
  /** Calls `onMeasured` once per listed file, in any order. */
  measure(files: readonly string[], onMeasured: (relative: string, measure: FileMeasure) => void, options: MeasureFilesOptions): Promise<void>;
}

/** The scan contract caps the largest-files list at 20. */
export const MAX_LARGEST_FILES = 20;
/** Files directly in the root count under this directory name. */
const ROOT_DIRECTORY = '.';

interface ScanTotalsJson {
  version: 1;
  /** files, bytes, lines, binary, unreadable */
  counts: [number, number, number, number, number];
  languages: LanguageStats[];
  directories: Array<{ path: string; files: number; bytes: number }>;
  largest: ReturnType<LargestFiles['toJSON']>;
}

/**
 * Running sums of a scan, fed one measured file at a time, in any order: the summary sorts, and
 * ties in the largest files go by path. A sharded scan feeds it from per-blob rows (@quarry/blob-scan).
 */
export class ScanTotals {
  files = 0;
  bytes = 0;
  lines = 0;
  binary = 0;
  unreadable = 0;
  private readonly languages = new Map<string, LanguageStats>();
  private readonly directories = new Map<string, { path: string; files: number; bytes: number }>();
  private largest: LargestFiles;

  constructor(largestFiles: number) {
    this.largest = new LargestFiles(largestFiles);
  }

  /** The sums as JSON (a remembered scan kept in Postgres for any worker's next re-scan). */
  toJSON(): ScanTotalsJson {
    return {
      version: 1,
      counts: [this.files, this.bytes, this.lines, this.binary, this.unreadable],
      languages: [...this.languages.values()].map((row) => ({ ...row })),
      directories: [...this.directories.values()].map((row) => ({ ...row })),
      largest: this.largest.toJSON(),
    };
  }

  /** Sums from `toJSON`'s output; undefined for anything else (another version's). */
  static fromJSON(json: unknown): ScanTotals | undefined {
    const data = json as Partial<ScanTotalsJson> | undefined;
    if (data?.version !== 1 || !Array.isArray(data.counts) || !Array.isArray(data.languages) || !Array.isArray(data.directories) || !data.largest) return undefined;
    const totals = new ScanTotals(0);
    [totals.files, totals.bytes, totals.lines, totals.binary, totals.unreadable] = data.counts;
    for (const row of data.languages) totals.languages.set(row.language, { ...row });
    for (const row of data.directories) totals.directories.set(row.path, { ...row });
    totals.largest = LargestFiles.fromJSON(data.largest);
    return totals;
  }

  add(relative: string, measure: FileMeasure): void {
    const language = this.count(relative, measure, 1);
    if (language !== undefined && measure.kind === 'text') this.largest.offer({ path: relative, bytes: measure.bytes, language });
  }

  /**
   * Takes back a file `add` counted with this measure (a re-scan's file that changed or went). The
   * sums are then those of never having added it; the largest files too, unless it was one of a
   * full list (`exact` turns false: the file that would now rank last was never kept).
   */
  remove(relative: string, measure: FileMeasure): void {
    if (this.count(relative, measure, -1) !== undefined) this.largest.remove(relative);
  }

  /** Whether `result` equals the result of adding only the files now counted (see `remove`). */
  get exact(): boolean {
    return this.largest.complete;
  }

  /** Adds (sign 1) or takes back (-1) a file's part of the sums; its language when it is text. */
  private count(relative: string, measure: FileMeasure, sign: 1 | -1): string | undefined {
    if (measure.kind === 'binary') {
      this.binary += sign;
      return undefined;
    }
    if (measure.kind === 'unreadable') {
      this.unreadable += sign;
      return undefined;
    }
    const bytes = sign * measure.bytes;
    const lines = sign * measure.lines;
    const language = languageOf(relative);
    this.files += sign;
    this.bytes += bytes;
    this.lines += lines;

    const languageStats = this.languages.get(language);
    if (languageStats) {
      languageStats.files += sign;
      languageStats.bytes += bytes;
      languageStats.lines += lines;
      if (languageStats.files === 0) this.languages.delete(language);
    } else {
      this.languages.set(language, { language, files: sign, bytes, lines });
    }

    const slash = relative.indexOf('/');
    const top = slash === -1 ? ROOT_DIRECTORY : relative.slice(0, slash);
    const directory = this.directories.get(top);
    if (directory) {
      directory.files += sign;
      directory.bytes += bytes;
      if (directory.files === 0) this.directories.delete(top);
    } else {
      this.directories.set(top, { path: top, files: sign, bytes });
    }
    return language;
  }

  /** The scan result: these sums plus what the listing skipped. */
  result(root: string, listed: WalkSkipped, durationMs: number): ScanResult {
    return {
      root,
      ...this.summary(),
      skipped: {
        binary: this.binary,
        ignored: listed.ignored,
        symlinks: listed.symlinks,
        // Special files (devices, FIFOs, sockets) cannot be read as text either.
        unreadable: listed.unreadable + listed.special + this.unreadable,
      },
      durationMs,
    };
  }

  summary(): Pick<ScanResult, 'files' | 'bytes' | 'lines' | 'languages' | 'largestFiles' | 'directories'> {
    return {
      files: this.files,
      bytes: this.bytes,
      lines: this.lines,
      // Copies: the sums go on changing when a re-scan updates them (`remove`), a result does not.
      languages: [...this.languages.values()].map((row) => ({ ...row })).sort((a, b) => b.bytes - a.bytes || compareText(a.language, b.language)),
      largestFiles: this.largest.toArray(),
      directories: [...this.directories.values()].map((row) => ({ ...row })).sort((a, b) => b.bytes - a.bytes || compareText(a.path, b.path)),
    };
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
