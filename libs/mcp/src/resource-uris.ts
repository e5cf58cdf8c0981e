/*
 * The resources the server offers, by URI:
 *   quarry://jobs/{id}                a job: status, input, progress, result or error (JSON)
 *   quarry://repo/{source}/{+path}{?ref}
 *                                     a file of a repository; `source` is the repository's
 *                                     absolute path or git URL, percent-encoded as one segment,
 *                                     and `ref` (for a URL) the branch, tag or commit
 */

export const JOB_URI_TEMPLATE = 'quarry://jobs/{id}';
export const REPO_FILE_URI_TEMPLATE = 'quarry://repo/{source}/{+path}{?ref}';

export type ResourceAddress = { type: 'job'; id: string } | { type: 'repo-file'; source: string; path: string; ref?: string };

export function jobUri(id: string): string {
  return `quarry://jobs/${encodeURIComponent(id)}`;
}

export function repoFileUri(source: string, path: string, ref?: string): string {
  const query = ref === undefined ? '' : `?ref=${encodeURIComponent(ref)}`;
  return `quarry://repo/${encodeURIComponent(source)}/${path.split('/').map(encodeURIComponent).join('/')}${query}`;
}

/** What a `quarry://` URI names, or undefined when it names nothing this server knows. */
export function parseResourceUri(uri: string): ResourceAddress | undefined {
  const job = /^quarry:\/\/jobs\/([^/?#]+)$/.exec(uri);
  if (job) return { type: 'job', id: decode(job[1]) ?? '' };
  const file = /^quarry:\/\/repo\/([^/?#]+)\/([^?#]+)(?:\?ref=([^?#&]+))?$/.exec(uri);
  if (file) {
    const source = decode(file[1]);
    const path = file[2].split('/').map(decode);
    const ref = file[3] === undefined ? undefined : decode(file[3]);
    if (source && path.every((segment) => segment !== undefined) && (file[3] === undefined || ref)) {
      return { type: 'repo-file', source, path: path.join('/'), ...(ref !== undefined ? { ref } : {}) };
    }
  }
  return undefined;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
