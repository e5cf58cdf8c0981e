import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import * as binaryRule from '@quarry/workspace/binary';
import { createMatcher, searchContent, type Matcher } from './file-search';
import { comparePaths, type SearchTask, type TaskResult, type WorkerReady, type WorkerReply, type WorkerRequest } from './worker-protocol';

// The body of a search worker thread: reads its batch of files synchronously (nothing else runs
// on this thread, and sync reads skip the thread-pool round trip) and matches them.

/**
 * Every file's first bytes are looked at for a NUL (binary, skipped unread further); a file with
 * matches is looked at whole, since ripgrep skips a file with a NUL anywhere. A file without
 * matches and a late NUL makes no difference to any count, so it is not scanned for one.
 */
const { BINARY_SNIFF_BYTES } = binaryRule;
/** O_NOFOLLOW: a file swapped for a symlink after the walk is refused, not read outside the root. O_NONBLOCK: a FIFO cannot hang the open. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const MATCHER_CACHE_SIZE = 8;

const matchers = new Map<string, Matcher>();
/**
 * Per search, the paths of the matches this thread described so far, smallest first, at most
 * `keep`: once it holds `keep`, a later file past the last of them cannot be among the search's
 * first `keep` (those are within every thread's own first `keep`), so its matches are only counted.
 */
const describedBySearch = new Map<number, string[]>();
const SEARCHES_REMEMBERED = 8;

function describedPaths(searchId: number): string[] {
  let paths = describedBySearch.get(searchId);
  if (paths === undefined) {
    if (describedBySearch.size >= SEARCHES_REMEMBERED) describedBySearch.delete(describedBySearch.keys().next().value as number);
    paths = [];
    describedBySearch.set(searchId, paths);
  }
  return paths;
}
/** Reused across files and grown as needed: one allocation per worker instead of one per file. */
let readBuffer = Buffer.allocUnsafe(1 << 20);

function matcherFor(task: SearchTask): Matcher {
  const key = `${task.mode}\0${task.ignoreCase ? 'i' : ''}\0${task.pattern}`;
  let matcher = matchers.get(key);
  if (matcher === undefined) {
    matcher = createMatcher(task.mode, task.pattern, task.ignoreCase);
    if (matchers.size >= MATCHER_CACHE_SIZE) matchers.delete(matchers.keys().next().value as string);
    matchers.set(key, matcher);
  }
  return matcher;
}

type ReadOutcome = Buffer | 'tooLarge' | 'unreadable';

/**
 * The file's bytes, in as few system calls as a small file allows: open, one read, close. A
 * read that comes back short is the end of the file; only a file that fills the buffer is
 * stat'ed, for its size (the cap) and its type (a device that never ends is refused).
 */
function readWhole(absolutePath: string, maxBytes: number): ReadOutcome {
  let fd: number;
  try {
    fd = openSync(absolutePath, OPEN_FLAGS);
  } catch {
    return 'unreadable';
  }
  try {
    let length = readSync(fd, readBuffer, 0, readBuffer.length, null);
    if (length < readBuffer.length) return length > maxBytes ? 'tooLarge' : readBuffer.subarray(0, length);
    const stats = fstatSync(fd);
    if (!stats.isFile()) return 'unreadable';
    if (stats.size > maxBytes) return 'tooLarge';
    if (readBuffer.length <= stats.size) {
      const larger = Buffer.allocUnsafe(Math.max(stats.size + 1, readBuffer.length * 2));
      readBuffer.copy(larger, 0, 0, length);
      readBuffer = larger;
    }
    for (;;) {
      const count = readSync(fd, readBuffer, length, readBuffer.length - length, null);
      if (count === 0) break;
      length += count;
      // Grown since the stat: still capped.
      if (length > maxBytes) return 'tooLarge';
      if (length === readBuffer.length) {
        const larger = Buffer.allocUnsafe(readBuffer.length * 2);
        readBuffer.copy(larger, 0, 0, length);
        readBuffer = larger;
      }
    }
    return readBuffer.subarray(0, length);
  } catch {
    return 'unreadable';
  } finally {
    closeSync(fd);
  }
}

export function runTask(task: SearchTask): TaskResult {
  const matcher = matcherFor(task);
  const result: TaskResult = {
    matches: [],
    totalMatches: 0,
    filesSearched: 0,
    filesMatched: 0,
    skipped: { binary: 0, tooLarge: 0, unreadable: 0 },
    ...(task.countsPerFile ? { fileCounts: [] } : {}),
    stopped: false,
  };
  // Path order inside the batch, so the matches kept are this batch's first ones by path.
  const files = [...task.files].sort(comparePaths);
  const described = describedPaths(task.searchId);
  const prefix = task.root.endsWith('/') ? task.root : `${task.root}/`;
  const shouldStop = () => Atomics.load(task.cancel, 0) !== 0 || Date.now() > task.deadline;
  for (const file of files) {
    if (shouldStop()) {
      result.stopped = true;
      break;
    }
    const content = readWhole(prefix + file, task.maxFileBytes);
    if (content === 'tooLarge' || content === 'unreadable') {
      result.skipped[content]++;
      continue;
    }
    if (binaryRule.isBinaryContent(content)) {
      result.skipped.binary++;
      continue;
    }
    const beyond = described.length >= task.keep && comparePaths(file, described[described.length - 1]) > 0;
    const found = searchContent(content, file, matcher, beyond ? 0 : task.keep - result.matches.length, task.contextLines, shouldStop);
    result.stopped = found.stopped;
    if (found.count > 0 && content.length > BINARY_SNIFF_BYTES && content.indexOf(0, BINARY_SNIFF_BYTES) !== -1) {
      result.skipped.binary++;
      if (found.stopped) break;
      continue;
    }
    result.filesSearched++;
    if (found.count > 0) {
      result.filesMatched++;
      result.totalMatches += found.count;
      result.fileCounts?.push({ path: file, count: found.count });
      for (const match of found.matches) result.matches.push(match);
      if (found.matches.length > 0) remember(described, found.matches.map((match) => match.path), task.keep);
    }
    if (found.stopped) break;
  }
  return result;
}

/** Adds `paths` to the sorted list and keeps its first `keep`. */
function remember(described: string[], paths: string[], keep: number): void {
  for (const path of paths) described.push(path);
  described.sort(comparePaths);
  if (described.length > keep) described.length = keep;
}

parentPort?.on('message', ({ id, task }: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { id, result: runTask(task) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort?.postMessage(reply);
});

// Loaded (re2 included): the pool may now let the process end with this thread in it (see SearchWorkerPool.close).
parentPort?.postMessage({ ready: true } satisfies WorkerReady);
