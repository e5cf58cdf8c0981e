import path from 'node:path';
import { CONTEXT_DEFAULT_LIMIT, CONTEXT_DEFAULT_TOKENS, CONTEXT_MAX_LIMIT, CONTEXT_MAX_TOKENS, CONTEXT_TASK_MAX_BYTES, QuarryError, closestMatch } from '@quarry/contracts';
import type { TokenEncoding } from '@quarry/code-index';

/** What a caller asks: the task, and optionally a budget, focus paths and how many results to list. */
export interface ContextRequest {
  task: string;
  /** Budget of the assembled context in tokens (default 8,000). */
  tokens?: number;
  /** Root-relative paths the caller is working on. */
  focus?: readonly string[];
  /** Files and spans listed (default 20). */
  limit?: number;
  encoding?: TokenEncoding;
}

export interface ValidContextRequest {
  task: string;
  tokens: number;
  focus: string[];
  limit: number;
  encoding: TokenEncoding;
}

/**
 * The request checked before any work, each bad value with its own typed error and a way out:
 * an empty task, a task over 64 KiB, a budget that is not a whole number from 1 to 1,000,000, a
 * focus path that leaves the root, a limit out of range.
 */
export function validateContextRequest(request: ContextRequest): ValidContextRequest {
  const task = typeof request.task === 'string' ? request.task : '';
  if (task.trim() === '') {
    throw new QuarryError('task_empty', 'The task is empty: retrieval needs the text of an issue, a question or a stack trace.', {
      suggestion: 'e.g. quarry context . "why does parse_config fail on empty files?", or --task-file issue.md',
    });
  }
  const bytes = Buffer.byteLength(task);
  if (bytes > CONTEXT_TASK_MAX_BYTES) {
    throw new QuarryError('task_too_large', `The task is ${bytes.toLocaleString('en-US')} bytes; at most ${CONTEXT_TASK_MAX_BYTES.toLocaleString('en-US')} (64 KiB) are read.`, {
      suggestion: 'Keep what says what is wrong: the title, the error message and the stack trace; drop long logs and listings.',
    });
  }
  const tokens = request.tokens ?? CONTEXT_DEFAULT_TOKENS;
  if (!Number.isInteger(tokens) || tokens < 1 || tokens > CONTEXT_MAX_TOKENS) {
    throw new QuarryError('budget_invalid', `A context budget must be a whole number of tokens from 1 to ${CONTEXT_MAX_TOKENS.toLocaleString('en-US')}; got ${String(request.tokens)}.`, {
      suggestion: `e.g. --tokens ${CONTEXT_DEFAULT_TOKENS} (the default): enough for 15-25 functions.`,
    });
  }
  const limit = request.limit ?? CONTEXT_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > CONTEXT_MAX_LIMIT) {
    throw new QuarryError('input_invalid', `limit must be a whole number from 1 to ${CONTEXT_MAX_LIMIT}; got ${String(request.limit)}.`, { suggestion: `e.g. --limit ${CONTEXT_DEFAULT_LIMIT}` });
  }
  return { task, tokens, focus: (request.focus ?? []).map(checkFocusPath), limit, encoding: request.encoding ?? 'o200k_base' };
}

/** A focus path as the corpus names files: root-relative, POSIX, inside the root. */
function checkFocusPath(written: string): string {
  const posix = written.replace(/\\/g, '/');
  const normalized = path.posix.normalize(posix).replace(/^\.\//, '').replace(/\/$/, '');
  if (path.posix.isAbsolute(posix) || /^[A-Za-z]:\//.test(posix) || normalized === '..' || normalized.startsWith('../')) {
    throw new QuarryError('path_outside_root', `The focus path ${written} is outside the repository root.`, {
      suggestion: 'Give focus paths relative to the root, e.g. --focus src/server.ts',
    });
  }
  return normalized;
}

/** A focus path the tree does not have: `file_not_found`, with the closest path the tree has. */
export function focusNotFound(written: string, paths: readonly string[]): QuarryError {
  const base = written.slice(written.lastIndexOf('/') + 1);
  const sameBase = paths.filter((candidate) => candidate.endsWith(`/${base}`) || candidate === base);
  const closest = sameBase[0] ?? closestMatch(written, paths.length > 20_000 ? paths.slice(0, 20_000) : paths);
  return new QuarryError('file_not_found', `The focus path ${written} is not a file of this tree.`, {
    suggestion: closest === undefined ? 'Give a path of a file in the repository, relative to its root.' : `Did you mean ${closest}?`,
  });
}
