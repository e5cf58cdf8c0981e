import path from 'node:path';
import type { QuarryConfig } from '@quarry/config/settings';
import { QuarryError } from '@quarry/contracts';
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
 * Runs `work` on a directory of files: the one named (resolved as localRoot does, without loading
 * the snapshot library: a mention or a question on a checkout starts as fast as a search), or a
 * checkout of a git URL's commit in this process's cache.
 */
export async function withLocalDirectory<T>(config: QuarryConfig, input: { source: { git: string; ref?: string } } | { root: string }, work: (root: string) => Promise<T>): Promise<T> {
  if ('root' in input) return work(await localRoot(input.root));
  return (await withLocalSnapshot(config, input, async (snapshot) => work(await snapshot.workingTree()), { identity: false })).result;
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

/** Whether a command's target names a repository by URL (any scheme, scp-like or transport syntax: the snapshot library decides what it accepts). */
export function isRepositoryUrl(target: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(target) || /^[A-Za-z][A-Za-z0-9+.-]*::/.test(target) || /^[^/\s]+@[^/\s]+:/.test(target);
}

/** The job input naming `target`: a git source (with `ref`), or `root` (an absolute path, as before). */
export function repositoryInput(target: string, ref?: string): { source: { git: string; ref?: string } } | { root: string } {
  if (isRepositoryUrl(target)) return { source: ref ? { git: target, ref } : { git: target } };
  if (ref) throw new QuarryError('input_invalid', '--ref applies to a git URL, not to a directory.', { suggestion: 'Check out the ref in the directory, or give the repository URL.' });
  return { root: path.resolve(target) };
}

/**
 * Runs `work` on a snapshot opened in this process (a URL is fetched into this process's cache
 * under QUARRY_DATA_DIR; a directory may be anywhere the user can read), then releases the cache.
 * With `identity: false` a directory's identity is never computed (no `git status`, no hashing):
 * for commands whose output does not name the commit.
 */
export async function withLocalSnapshot<T>(
  config: QuarryConfig,
  input: { source: { git: string; ref?: string } } | { root: string },
  work: (snapshot: import('@quarry/snapshot').Snapshot) => Promise<T>,
  options?: { identity?: true },
): Promise<{ result: T; source: import('@quarry/contracts').ResolvedSourceBody }>;
export async function withLocalSnapshot<T>(
  config: QuarryConfig,
  input: { source: { git: string; ref?: string } } | { root: string },
  work: (snapshot: import('@quarry/snapshot').Snapshot) => Promise<T>,
  options: { identity: false },
): Promise<{ result: T }>;
export async function withLocalSnapshot<T>(
  config: QuarryConfig,
  input: { source: { git: string; ref?: string } } | { root: string },
  work: (snapshot: import('@quarry/snapshot').Snapshot) => Promise<T>,
  options: { identity?: boolean } = {},
): Promise<{ result: T; source?: import('@quarry/contracts').ResolvedSourceBody }> {
  const { snapshotProviderFor, openPinned, sourceOf } = await import('@quarry/snapshot');
  const provider = snapshotProviderFor(config, ['/']);
  const identity = options.identity !== false;
  try {
    const pinned = await openPinned(provider, sourceOf(input), undefined, undefined, { prepareIdentity: identity });
    try {
      const result = await work(pinned.snapshot);
      return identity ? { result, source: await pinned.source() } : { result };
    } finally {
      pinned.snapshot.close();
    }
  } finally {
    await provider.close();
  }
}
