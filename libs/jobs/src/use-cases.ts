import type { JobInput, JobKind, JobResult } from '@quarry/contracts';
import type { JobRun } from './job-run';
import type { JobPorts } from './ports';

/** What a job kind does, given its ports: the one function every caller runs. */
export type UseCase<K extends JobKind> = (input: JobInput<K>, ports: JobPorts[K], run: JobRun) => Promise<JobResult<K>>;

/**
 * The one table of job kinds and their use cases, each loaded on first use: `quarry detect`
 * never loads the scan's shards or the code index, and a worker loads what its queues need.
 */
export const USE_CASES: { [K in JobKind]: () => Promise<UseCase<K>> } = {
  scan: async () => (await import('./kinds/scan')).runScan,
  detect: async () => (await import('./kinds/detect')).runDetect,
  mentions: async () => (await import('./kinds/mentions')).runMentions,
  fetch: async () => (await import('./kinds/fetch')).runFetch,
  interpret: async () => (await import('./kinds/interpret')).runInterpret,
  symbols: async () => (await import('./kinds/code-index')).runSymbols,
  map: async () => (await import('./kinds/code-index')).runMap,
  pack: async () => (await import('./kinds/code-index')).runPack,
  context: async () => (await import('./kinds/context')).runContext,
};

/** Runs one job of `kind` with the caller's ports. */
export async function runUseCase<K extends JobKind>(kind: K, input: JobInput<K>, ports: JobPorts[K], run: JobRun): Promise<JobResult<K>> {
  const useCase = (await USE_CASES[kind]()) as UseCase<K>;
  return useCase(input, ports, run);
}
