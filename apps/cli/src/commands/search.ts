import type { SearchAnswer, SearchInput } from '@quarry/contracts';
import { EXIT } from '../cli-output';
import { localRoot, repositoryInput } from './local';

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
  /** Branch, tag or commit of a git URL. */
  ref?: string;
  /** --json: the answer's cap in o200k tokens (default 8,000), and the cursor of the page to continue. */
  maxTokens?: number;
  cursor?: string;
}

/**
 * `quarry search SOURCE PATTERN`: counts like `rg -c` (with `-F` unless --regex, `-i` with
 * --ignore-case), hits like `rg -n`. SOURCE is a directory or a git URL (at --ref). In this
 * process by default — for a directory nothing but the search library loads, so start-up stays
 * small — or on a gateway with --server (`POST /v1/search`, paths resolved on its machine, inside
 * QUARRY_WORKSPACE_ROOTS). A URL whose commit a scan indexed is answered from the index
 * (`indexed: true` in the JSON), on the gateway or here (through QUARRY_DATABASE_URL).
 */
export async function searchCommand(target: string, pattern: string, options: SearchOptions): Promise<number> {
  const repository = repositoryInput(target, options.ref);
  const input: SearchInput = {
    ...('root' in repository ? { root: repository.root } : { source: repository.source }),
    pattern,
    regex: options.regex === true,
    case: options.ignoreCase ? 'insensitive' : options.smartCase ? 'smart' : 'sensitive',
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.directory === undefined ? {} : { directory: options.directory }),
    hidden: options.hidden === true,
    maxResults: options.maxResults ?? (options.json ? 50 : 200),
    contextLines: options.context ?? 0,
    counts: options.counts === true,
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
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
      const request = { ...input, maxTokens: undefined, cursor: undefined };
      const root = 'root' in repository ? await localRoot(repository.root) : undefined;
      const run = (maxResults: number) =>
        root === undefined ? searchUrlHere(repository as { source: { git: string; ref?: string } }, { ...request, maxResults }) : search.answerSearch(root, { ...request, maxResults }, { timeoutMs: LOCAL_TIMEOUT_MS });
      // --json is what a program or an agent reads: within maxTokens, as the gateway answers.
      answer = options.json ? await (await import('@quarry/mcp/answers')).pageSearch(input, run) : await run(input.maxResults ?? 50);
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

const LOCAL_TIMEOUT_MS = 10 * 60_000;

/**
 * A git URL searched in this process: fetched into this process's cache (QUARRY_DATA_DIR), its
 * commit's index read from the database the scan wrote it to, when one is reachable and has it;
 * else the checkout is searched cold, with the same result.
 */
async function searchUrlHere(repository: { source: { git: string; ref?: string } }, input: SearchInput): Promise<SearchAnswer> {
  const [{ loadConfig }, { answerSourceSearch, IndexedCommits, SegmentCache }, { snapshotProviderFor }] = await Promise.all([
    import('@quarry/config/settings'),
    import('@quarry/search-index'),
    import('@quarry/snapshot'),
  ]);
  const config = loadConfig();
  const { Pool } = await import('pg');
  const { SearchIndexRepository } = await import('@quarry/db');
  const pool = new Pool({ connectionString: config.databaseUrl, max: 2, connectionTimeoutMillis: 2_000 });
  pool.on('error', () => undefined);
  const store = new SearchIndexRepository(pool);
  const commits = new IndexedCommits(store, new SegmentCache(config.dataDir, store));
  const provider = snapshotProviderFor(config, ['/']);
  try {
    return await answerSourceSearch(provider, repository.source, input, { commits, timeoutMs: LOCAL_TIMEOUT_MS });
  } finally {
    commits.close();
    await provider.close();
    await pool.end().catch(() => undefined);
  }
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
