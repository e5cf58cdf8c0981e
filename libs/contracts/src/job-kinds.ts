/** Every job kind Quarry knows. The queue of each kind is named after it. */
export const JOB_KINDS = ['scan', 'detect', 'mentions', 'fetch', 'interpret', 'symbols', 'map', 'pack', 'context'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * Kinds that have a worker handler today. Submitting any other known kind is refused with
 * `kind_not_available` instead of being queued into nowhere; a worker refuses to boot unless
 * each of these has exactly one handler.
 */
export const BUILT_KINDS: readonly JobKind[] = [...JOB_KINDS];

export function isJobKind(value: unknown): value is JobKind {
  return typeof value === 'string' && (JOB_KINDS as readonly string[]).includes(value);
}

export function isBuiltKind(kind: JobKind): boolean {
  return BUILT_KINDS.includes(kind);
}
