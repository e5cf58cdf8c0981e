import type { FileCount, SearchMatch, SearchMode, SearchSkipped } from './search-types';

/** One batch of files for a search worker. Plain data: it crosses the thread boundary by structured clone. */
export interface SearchTask {
  /** The same for every batch of one search: a thread remembers what it described for it. */
  searchId: number;
  /** Absolute directory the paths are relative to (the workspace root). */
  root: string;
  /** Root-relative POSIX paths. */
  files: string[];
  mode: SearchMode;
  pattern: string;
  ignoreCase: boolean;
  /** Report every matching file's count. */
  countsPerFile: boolean;
  /** Matches to describe in full (the rest are only counted). */
  keep: number;
  contextLines: number;
  maxFileBytes: number;
  /** Date.now() after which the worker stops between files. */
  deadline: number;
  /** Int32Array[1] over a SharedArrayBuffer: non-zero asks the worker to stop between files. */
  cancel: Int32Array;
}

export interface TaskResult {
  matches: SearchMatch[];
  totalMatches: number;
  filesSearched: number;
  filesMatched: number;
  skipped: SearchSkipped;
  /** With `countsPerFile`: the batch's matching files, in path order. */
  fileCounts?: FileCount[];
  /** Stopped early by the cancel flag or the deadline; the counts cover the files done before. */
  stopped: boolean;
}

export type WorkerRequest = { id: number; task: SearchTask };
export type WorkerReply = { id: number; result: TaskResult } | { id: number; error: string };
/** A thread's first message: its modules, the native re2 among them, are loaded. */
export type WorkerReady = { ready: true };

/** Code-unit order: the same on every machine and locale, so results sort deterministically. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
