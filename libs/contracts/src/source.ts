import { z } from 'zod';

/**
 * Where a job's repository is: a git URL with an optional ref (branch, tag, full or abbreviated
 * commit; default: the remote's HEAD), or a directory on the worker inside QUARRY_WORKSPACE_ROOTS.
 */
export const sourceInputSchema = z.union([
  z.object({ git: z.string().min(1).max(2048), ref: z.string().min(1).max(256).optional() }).strict(),
  z.object({ path: z.string().min(1).max(4096) }).strict(),
]);
export type SourceInputBody = z.infer<typeof sourceInputSchema>;

/** The source as the job pinned it when it started: every result describes exactly this commit. */
export const resolvedSourceSchema = z.union([
  z.object({ git: z.string(), ref: z.string(), commit: z.string() }),
  /** A directory: HEAD of a clean checkout, else a content hash of the tree (`dirty: true`). */
  z.object({ path: z.string(), ref: z.null(), commit: z.string(), dirty: z.boolean().optional() }),
]);
export type ResolvedSourceBody = z.infer<typeof resolvedSourceSchema>;

/** A job input that reads a repository: `source`, or the older `root` (a local path). One of them. */
export function withRepository<T extends z.ZodRawShape>(shape: T) {
  return z
    .object({ ...shape, root: z.string().min(1).max(4096).optional(), source: sourceInputSchema.optional() })
    .refine((input) => ((input as { root?: unknown }).root === undefined) !== ((input as { source?: unknown }).source === undefined), {
      message: 'give exactly one of root and source ({"git": url, "ref"?} or {"path": dir})',
      path: ['root'],
    });
}

/** The local directory an input names, if it names one (`root`, or `source.path`). */
export function localPathOf(input: { root?: string; source?: SourceInputBody }): string | undefined {
  if (input.root !== undefined) return input.root;
  return input.source && 'path' in input.source ? input.source.path : undefined;
}
