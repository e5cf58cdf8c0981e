import { JobKind } from '@quarry/contracts';
import { gateUrl, parseAllowList } from '@quarry/fetch';
import { checkGitUrl } from '@quarry/snapshot';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { validateCodeIndexInput } from '@quarry/code-index';
import { validateContextRequest, type ContextRequest } from '@quarry/context';

export interface AdmissionPolicy {
  workspaceRoots: readonly string[];
  fetchAllow: readonly string[];
}

/**
 * Checks done at submission, before a row exists, so a request that can never succeed gets its
 * 4xx at once instead of a failed job: a job that reads a workspace must name a root inside the
 * allowed roots (stored as its real path); a git source must be an https URL the policy allows; a
 * URL must pass the URL gate (scheme, port, no credentials, no internal literal address); a
 * code-index request must have a sane budget, a known style, compilable globs and a symbol name
 * that can be one; a context request a task of 1 byte to 64 KiB, a sane budget and focus paths inside the root. Workers check again when they run: they may see
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
  if (kind === 'context') validateContextRequest(input as unknown as ContextRequest);
  if (typeof input.root === 'string') {
    const requested = input.root;
    let real = roots?.get(requested);
    if (!real) {
      real = resolveWorkspaceRoot(requested, policy.workspaceRoots);
      roots?.set(requested, real);
    }
    admitted = { ...admitted, root: await real };
  }
  const source = input.source as { git?: unknown; ref?: unknown; path?: unknown } | undefined;
  if (source && typeof source === 'object') {
    // A git URL is checked for what can be known without the network (scheme, option-like,
    // credentials, internal literal addresses); the ref is resolved by the worker when it starts.
    if (typeof source.git === 'string') admitted = { ...admitted, source: { ...source, git: checkGitUrl(source.git, policy.fetchAllow) } };
    else if (typeof source.path === 'string') admitted = { ...admitted, source: { path: await resolveWorkspaceRoot(source.path, policy.workspaceRoots) } };
  }
  if (kind === 'fetch' && typeof input.url === 'string') {
    admitted = { ...admitted, url: gateUrl(input.url, { allow: parseAllowList(policy.fetchAllow) }).toString() };
  }
  return admitted;
}
