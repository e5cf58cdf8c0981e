import { JobKind } from '@quarry/contracts';
import { gateUrl, parseAllowList } from '@quarry/fetch';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { validateCodeIndexInput } from '@quarry/code-index';

export interface AdmissionPolicy {
  workspaceRoots: readonly string[];
  fetchAllow: readonly string[];
}

/**
 * Checks done at submission, before a row exists, so a request that can never succeed gets its
 * 4xx at once instead of a failed job: a job that reads a workspace must name a root inside the
 * allowed roots (stored as its real path); a URL must pass the URL gate (scheme, port, no
 * credentials, no internal literal address); a code-index request must have a sane budget, a
 * known style, compilable globs and a symbol name that can be one. Workers check again when they run: they may see
 * another file system, and DNS is only asked at connect time.
 */
export async function admitInput(
  kind: JobKind,
  input: Record<string, unknown>,
  policy: AdmissionPolicy,
  /** Roots already resolved in this request (a batch of 500 jobs on one repository resolves it once). */
  roots?: Map<string, Promise<string>>,
): Promise<Record<string, unknown>> {
  let admitted = input;
  if (kind === 'symbols' || kind === 'map' || kind === 'pack') validateCodeIndexInput(kind, input);
  if (typeof input.root === 'string') {
    const requested = input.root;
    let real = roots?.get(requested);
    if (!real) {
      real = resolveWorkspaceRoot(requested, policy.workspaceRoots);
      roots?.set(requested, real);
    }
    admitted = { ...admitted, root: await real };
  }
  if (kind === 'fetch' && typeof input.url === 'string') {
    admitted = { ...admitted, url: gateUrl(input.url, { allow: parseAllowList(policy.fetchAllow) }).toString() };
  }
  return admitted;
}
