import { resolveWorkspaceRoot } from '@quarry/workspace';

/**
 * Checks done at submission, before a row exists, so a request that can never succeed gets its
 * 4xx at once instead of a failed job: a job that reads a workspace must name a root inside the
 * allowed roots. Returns the input to store, with the root replaced by its real path. Workers
 * check again when they run: they may see another file system.
 */
export async function admitInput(input: Record<string, unknown>, workspaceRoots: readonly string[]): Promise<Record<string, unknown>> {
  if (typeof input.root !== 'string') return input;
  return { ...input, root: await resolveWorkspaceRoot(input.root, workspaceRoots) };
}
