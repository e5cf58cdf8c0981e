import { QuarryError } from '@quarry/contracts/errors';
import { gateUrl, parseAllowList, type AllowList } from '@quarry/fetch/policy';

const HTTPS_SUGGESTION = 'Give the repository\'s https:// clone URL, e.g. "https://github.com/owner/repo.git".';

/**
 * Checks the `git` field of a job's source before anything runs: only `https://` (and `http://`,
 * which the connect-time check then only lets through to allow-listed addresses) with a public or
 * allow-listed host. Refused, each with its reason: option-like strings (`--upload-pack=…`, which
 * git would read as an option), transport syntax (`ext::sh -c …`), scp-like `user@host:path`,
 * local paths and `file://`, `ssh://`, `git://` and every other scheme, credentials in the URL.
 * Returns the normalized URL (fragment dropped, host lower-cased, no trailing slash).
 */
export function checkGitUrl(input: string, allow: AllowList | readonly string[] = []): string {
  const list = Array.isArray(allow) ? parseAllowList(allow as readonly string[]) : (allow as AllowList);
  const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
  if (input.trim() !== input || input.length === 0 || /[\0-\x1f\x7f]/.test(input)) {
    throw new QuarryError('url_invalid', `The git URL "${shown}" is empty or contains whitespace or control characters.`, { suggestion: HTTPS_SUGGESTION });
  }
  if (input.startsWith('-')) {
    throw new QuarryError('url_invalid', `"${shown}" looks like a command-line option, not a repository URL.`, { suggestion: HTTPS_SUGGESTION });
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(input)) {
    throw refused(`"${shown}" uses git's transport syntax (${input.split('::')[0]}::), which can run commands on the worker.`);
  }
  if (input.startsWith('/') || input.startsWith('.') || input.startsWith('~') || /^[A-Za-z]:[\\/]/.test(input)) {
    throw new QuarryError('url_blocked', `"${shown}" is a local path; the git field takes a URL, a worker never clones from its own disk.`, {
      suggestion: 'For a directory on the worker, send {"path": "/abs/dir"} instead of {"git": …}; for a hosted repository, its https:// URL.',
    });
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(input)?.[1]?.toLowerCase();
  if (scheme === undefined || (!input.includes('://') && /^[^/]+@[^/]+:/.test(input))) {
    throw refused(`"${shown}" is not an http(s) URL (scp-like "user@host:path" is SSH).`);
  }
  if (scheme !== 'https' && scheme !== 'http') {
    throw refused(`"${shown}" uses ${scheme}://; Quarry clones over https:// only (http:// only to allow-listed addresses): ${scheme === 'file' ? 'file:// reads the worker\'s own disk' : scheme === 'ssh' ? 'ssh:// needs keys on the worker and reaches any port' : scheme === 'git' ? 'git:// is unauthenticated and unencrypted' : 'that transport is not supported'}.`);
  }
  const url = gateUrl(input, { allow: list, what: 'Git URL' });
  if (url.search !== '') {
    throw new QuarryError('url_invalid', `The git URL "${shown}" has a query string; a clone URL has none.`, { suggestion: HTTPS_SUGGESTION });
  }
  return url.href.replace(/\/+$/, '');
}

function refused(message: string): QuarryError {
  return new QuarryError('url_blocked', message, { suggestion: HTTPS_SUGGESTION });
}

/** The URL as messages and logs show it (no credentials can be in it: checkGitUrl refuses them). */
export function hostOf(url: string): string {
  return new URL(url).host;
}
