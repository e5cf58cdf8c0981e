import path from 'node:path';
import type { QuarryConfig } from '@quarry/config';
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

/** Runs `work` with a fetcher, then releases what in-process work holds: the fetcher's sockets and the search threads. */
export async function withLocalTools<T>(config: QuarryConfig, work: (fetcher: SafeFetcher) => Promise<T>): Promise<T> {
  const fetcher = await localFetcher(config);
  try {
    return await work(fetcher);
  } finally {
    await fetcher.close();
    await (await import('@quarry/search')).closeSharedSearchPool();
  }
}
