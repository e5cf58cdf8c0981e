import { JobKind } from '@quarry/contracts';
import { resolveWorkspaceRoot } from '@quarry/workspace';

/**
 * Checks done at submission, before a row exists, so a request that can never succeed gets its
 * 4xx at once instead of a failed job. Returns the input to store (a root becomes its real path).
 * Workers check again when they run: they may see another file system.
 */
export async function admitInput(kind: JobKind, input: Record<string, unknown>, workspaceRoots: readonly string[]): Promise<unknown> {
  if (typeof input.root === 'string') {
    return { ...input, root: await resolveWorkspaceRoot(input.root, workspaceRoots) };
  }
  void kind;
  return input;
}
