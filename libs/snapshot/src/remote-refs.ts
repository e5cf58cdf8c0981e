import { QuarryError } from '@quarry/contracts/errors';
import { editDistance } from '@quarry/contracts/suggest';

/** What `git ls-remote --symref` says about a repository. */
export interface RemoteRefs {
  /** refs/heads/main → commit (tags peeled: an annotated tag maps to the commit it names). */
  refs: Map<string, string>;
  /** The branch HEAD points at (refs/heads/main), when the server says. */
  head: string | undefined;
  headCommit: string | undefined;
}

const FULL_COMMIT = /^[0-9a-f]{40}$/;
const SHORT_COMMIT = /^[0-9a-f]{4,39}$/;

export function parseLsRemote(output: string): RemoteRefs {
  const refs = new Map<string, string>();
  let head: string | undefined;
  let headCommit: string | undefined;
  for (const line of output.split('\n')) {
    if (line === '') continue;
    const [left, name] = line.split('\t');
    if (left.startsWith('ref: ')) {
      if (name === 'HEAD') head = left.slice(5);
      continue;
    }
    if (!FULL_COMMIT.test(left) || name === undefined) continue;
    if (name === 'HEAD') headCommit = left;
    else if (name.endsWith('^{}')) refs.set(name.slice(0, -3), left);
    else if (!refs.has(name) || !name.startsWith('refs/tags/')) refs.set(name, left);
  }
  // A peeled tag line comes after its tag line; make sure the commit wins over the tag object.
  for (const line of output.split('\n')) {
    const [left, name] = line.split('\t');
    if (name?.endsWith('^{}') && FULL_COMMIT.test(left)) refs.set(name.slice(0, -3), left);
  }
  return { refs, head, headCommit };
}

export interface ResolvedRef {
  /** What the user asked for, or the default branch's name when they asked for nothing. */
  ref: string;
  commit: string;
}

/**
 * A branch, a tag, a full ref name, HEAD (no ref), a full commit id (taken as is: the fetch proves
 * it exists) or an abbreviated id of a branch or tag tip. Anything else is `ref_not_found`, with
 * the closest branch and tag names (and `main` for `master`, or the other way round).
 */
export function resolveRef(remote: RemoteRefs, requested: string | undefined, url: string): ResolvedRef {
  if (requested === undefined || requested === '' || requested === 'HEAD') {
    const commit = remote.headCommit ?? (remote.head ? remote.refs.get(remote.head) : undefined);
    if (!commit) {
      throw new QuarryError('ref_not_found', `${url} has no default branch (HEAD); it may be empty.`, {
        suggestion: suggestRefs(remote, 'main') ?? 'Push a first commit, or name a ref with --ref.',
      });
    }
    return { ref: remote.head?.replace(/^refs\/heads\//, '') ?? 'HEAD', commit };
  }
  const lower = requested.toLowerCase();
  if (FULL_COMMIT.test(lower)) return { ref: requested, commit: lower };
  for (const name of [requested, `refs/heads/${requested}`, `refs/tags/${requested}`]) {
    const commit = remote.refs.get(name);
    if (commit) return { ref: requested, commit };
  }
  if (SHORT_COMMIT.test(lower)) {
    const tips = new Set([...remote.refs.values()].filter((commit) => commit.startsWith(lower)));
    if (tips.size === 1) return { ref: requested, commit: [...tips][0] };
    if (tips.size > 1) {
      throw new QuarryError('ref_not_found', `The abbreviated commit "${requested}" is ambiguous in ${url}.`, { suggestion: 'Give more characters of the commit id, or the full 40.' });
    }
  }
  throw new QuarryError('ref_not_found', `${url} has no branch or tag "${requested}"${SHORT_COMMIT.test(lower) ? ' (and no branch or tag tip starts with that commit id)' : ''}.`, {
    suggestion:
      suggestRefs(remote, requested) ??
      (SHORT_COMMIT.test(lower) ? 'Give the full 40-character commit id: abbreviated ids only resolve against branch and tag tips.' : 'List the branches with `git ls-remote --heads <url>`.'),
  });
}

const TWINS: Record<string, string> = { master: 'main', main: 'master', trunk: 'main', develop: 'dev', dev: 'develop' };

function suggestRefs(remote: RemoteRefs, requested: string): string | undefined {
  const names = [...remote.refs.keys()]
    .filter((name) => name.startsWith('refs/heads/') || name.startsWith('refs/tags/'))
    .map((name) => name.replace(/^refs\/(heads|tags)\//, ''));
  const wanted = requested.replace(/^refs\/(heads|tags)\//, '');
  const ranked = names
    .map((name) => ({ name, distance: TWINS[wanted.toLowerCase()] === name ? 0 : editDistance(wanted.toLowerCase(), name.toLowerCase()) }))
    .filter(({ name, distance }) => distance <= Math.max(2, Math.floor(wanted.length / 3)) || TWINS[wanted.toLowerCase()] === name)
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map(({ name }) => name);
  if (ranked.length === 0) return undefined;
  return `Did you mean ${ranked.map((name) => `"${name}"`).join(' or ')}?`;
}
