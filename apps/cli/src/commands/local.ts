import path from 'node:path';
import type { QuarryConfig } from '@quarry/config/settings';
import { QuarryError, type JobInput, type JobKind, type JobProgress, type JobResult, type ResolvedSourceBody } from '@quarry/contracts';
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
 * Runs one job of `kind` in this process, without a server: the kind's use case (@quarry/jobs,
 * the same the workers run) with in-memory ports, released after. The input is checked against
 * the kind's contract first, with its defaults, as the gateway checks a submission.
 */
export async function runLocally<K extends JobKind>(
  kind: K,
  rawInput: JobInput<K>,
  options: {
    onProgress?: (progress: JobProgress) => void;
    /** Told the commit the job reads, once it is known (a git ref resolved; a directory's identity). */
    onSource?: (source: ResolvedSourceBody) => void;
    /** Where a pack goes (default: QUARRY_ARTIFACT_DIR). */
    packFile?: string;
  } = {},
): Promise<JobResult<K>> {
  const [{ JOB_CONTRACTS, parseOrThrow }, { InProcessPorts, runUseCase }, { loadConfig }] = await Promise.all([
    import('@quarry/contracts'),
    import('@quarry/jobs/in-process'),
    import('@quarry/config/settings'),
  ]);
  const input = parseOrThrow(JOB_CONTRACTS[kind].input, rawInput, 'input') as JobInput<K>;
  const packFile = options.packFile;
  // One job, then the process ends: a scan's rows answer no later question, so they skip the chunk rows.
  const ports = new InProcessPorts(loadConfig(), { ...(packFile ? { artifacts: { fileFor: () => packFile } } : {}), chunkRowsInScans: kind !== 'scan' });
  const onSource = options.onSource;
  const run = {
    id: `${kind}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    signal: new AbortController().signal,
    progress: (progress: JobProgress) => options.onProgress?.(progress),
    ...(onSource ? { pins: { pin: async (source: ResolvedSourceBody) => onSource(source) } } : {}),
  };
  try {
    return await runUseCase(kind, input, await ports.ports(kind), run);
  } finally {
    await ports.close();
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
