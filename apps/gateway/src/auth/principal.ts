/**
 * Who is calling. With no API keys configured everyone is `anonymous` and sees every job; once a
 * key exists, every request must present one and sees only the jobs it created.
 */
export type Principal = { kind: 'anonymous' } | { kind: 'key'; keyId: string; name: string };

/** The owner filter a principal gets: undefined means "all jobs". */
export function ownerFilter(principal: Principal): string | undefined {
  return principal.kind === 'key' ? principal.keyId : undefined;
}

export function ownerIdOf(principal: Principal): string | null {
  return principal.kind === 'key' ? principal.keyId : null;
}
