import path from 'node:path';
import type { QuarryConfig } from '@quarry/config/settings';
import type { SafeFetcher } from '@quarry/fetch';

/*
 * What the in-process commands (scan --local, fetch, detect, mention, ask) share: the directory
 * you named, checked like a job's root but with no allowed-roots limit (they are your own
 * files), and a fetcher with the same guards as the fetch job.
 */

/** The real path of `target`, with typed errors for a missing path or a file. */
export async function localRoot(target: string): Promise<string> {
  const { resolveWorkspaceRoot } = await import('@quarry/workspace');
  const root = path.resolve(target);
  return resolveWorkspaceRoot(root, [path.parse(root).root]);
}

/** A fetcher configured from QUARRY_FETCH_*; close it when done. */
export async function localFetcher(config: QuarryConfig): Promise<SafeFetcher> {
  const { SafeFetcher } = await import('@quarry/fetch');
  return new SafeFetcher({ allow: config.fetch.allow, maxBytes: config.fetch.maxBytes, timeoutMs: config.fetch.timeoutMs });
}

/**
 * Runs `work` with a fetcher, then releases what in-process work holds: the fetcher's sockets and
 * the search threads. The fetcher (undici, ~100 ms to load) is made on the first URL only.
 */
export async function withLocalTools<T>(config: QuarryConfig, work: (fetcher: Pick<SafeFetcher, 'fetch'>) => Promise<T>): Promise<T> {
  let fetcher: Promise<SafeFetcher> | undefined;
  try {
    return await work({ fetch: async (url, options) => (await (fetcher ??= localFetcher(config))).fetch(url, options) });
  } finally {
    if (fetcher) await (await fetcher).close();
    await (await import('@quarry/search')).closeSharedSearchPool();
  }
}
