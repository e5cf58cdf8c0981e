/*
 * The resources the server offers, by URI:
 *   quarry://jobs/{id}                a job: status, input, progress, result or error (JSON)
 *   quarry://repo/{source}/{+path}    a file of a repository; `source` is the repository's
 *                                     absolute path, percent-encoded as one segment
 */

export const JOB_URI_TEMPLATE = 'quarry://jobs/{id}';
export const REPO_FILE_URI_TEMPLATE = 'quarry://repo/{source}/{+path}';

export type ResourceAddress = { type: 'job'; id: string } | { type: 'repo-file'; source: string; path: string };

export function jobUri(id: string): string {
  return `quarry://jobs/${encodeURIComponent(id)}`;
}

export function repoFileUri(source: string, path: string): string {
  return `quarry://repo/${encodeURIComponent(source)}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** What a `quarry://` URI names, or undefined when it names nothing this server knows. */
export function parseResourceUri(uri: string): ResourceAddress | undefined {
  const job = /^quarry:\/\/jobs\/([^/?#]+)$/.exec(uri);
  if (job) return { type: 'job', id: decode(job[1]) ?? '' };
  const file = /^quarry:\/\/repo\/([^/?#]+)\/([^?#]+)$/.exec(uri);
  if (file) {
    const source = decode(file[1]);
    const path = file[2].split('/').map(decode);
    if (source && path.every((segment) => segment !== undefined)) return { type: 'repo-file', source, path: path.join('/') };
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
