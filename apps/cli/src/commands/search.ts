import path from 'node:path';
import type { SearchAnswer, SearchInput } from '@quarry/contracts';
import { EXIT } from '../cli-output';
import { localRoot } from './local';

export interface SearchOptions {
  regex?: boolean;
  ignoreCase?: boolean;
  smartCase?: boolean;
  path?: string;
  directory?: string;
  hidden?: boolean;
  maxResults?: number;
  context?: number;
  counts?: boolean;
  json?: boolean;
  server?: string;
  key?: string;
}

/**
 * `quarry search PATH PATTERN`: counts like `rg -c` (with `-F` unless --regex, `-i` with
 * --ignore-case), hits like `rg -n`. In this process by default — nothing but the search
 * library loads, so start-up stays small — or on a gateway with --server (`POST /v1/search`,
 * paths resolved on its machine, inside QUARRY_WORKSPACE_ROOTS).
 */
export async function searchCommand(target: string, pattern: string, options: SearchOptions): Promise<number> {
  const input: SearchInput = {
    root: path.resolve(target),
    pattern,
    regex: options.regex === true,
    case: options.ignoreCase ? 'insensitive' : options.smartCase ? 'smart' : 'sensitive',
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.directory === undefined ? {} : { directory: options.directory }),
    hidden: options.hidden === true,
    maxResults: options.maxResults ?? (options.json ? 50 : 200),
    contextLines: options.context ?? 0,
    counts: options.counts === true,
  };
  let answer: SearchAnswer;
  if (options.server) {
    const { QuarryClient } = await import('../quarry-client');
    answer = await new QuarryClient(options.server.replace(/\/+$/, ''), options.key).search(input);
  } else {
    const search = await import('@quarry/search');
    // The threads start (and load RE2) while the root is resolved.
    search.sharedSearchPool().warm();
    try {
      answer = await search.answerSearch(await localRoot(input.root), input, { timeoutMs: 10 * 60_000 });
    } finally {
      await search.closeSharedSearchPool();
    }
  }
  if (options.json) {
    console.log(JSON.stringify(answer, null, 2));
  } else {
    const lines = options.counts ? (answer.counts ?? []).map((entry) => `${entry.path}:${entry.count}`) : answer.hits.map((hit) => `${hit.path}:${hit.line}:${hit.text}`);
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
    process.stderr.write(`${describeAnswer(answer)}\n`);
  }
  return answer.total > 0 ? EXIT.ok : EXIT.failed;
}

/** One line: the counts, what was left out, and whether the hits shown are all of them. */
export function describeAnswer(answer: SearchAnswer): string {
  const parts = [`${answer.total} matching line${answer.total === 1 ? '' : 's'} in ${answer.files} file${answer.files === 1 ? '' : 's'} (${answer.filesSearched} searched${answer.indexed ? ', from the index' : ''})`];
  const { binary, tooLarge, unreadable } = answer.skipped;
  if (binary || tooLarge || unreadable) parts.push(`not searched: ${binary} binary, ${tooLarge} over the size cap, ${unreadable} unreadable`);
  if (answer.truncated && answer.hits.length > 0) parts.push(`first ${answer.hits.length} shown`);
  if (answer.timedOut) parts.push('stopped at the time budget: counts are partial');
  return parts.join('; ');
}
