import { QuarryError } from '@quarry/contracts/errors';
import { GitCommandError } from './git-process';
import type { ProxySession } from './guarded-git-proxy';

/**
 * A failed git command → the typed error a user can act on. The proxy's own refusal comes first
 * (url_blocked, dns_failed, repo_too_large: git only saw "403 from proxy"); then git's messages.
 * Credentials never appear: they are not in URLs, arguments or these messages.
 */
export function gitFailure(error: unknown, session: ProxySession | undefined, url: string, timeoutMs: number): unknown {
  if (session?.error) return session.error;
  if (!(error instanceof GitCommandError)) return error;
  const stderr = error.stderr;
  if (error.timedOut) {
    return new QuarryError('url_timeout', `git took longer than ${Math.round(timeoutMs / 1000)} s talking to ${url}.`, {
      permanent: false,
      suggestion: 'The host is slow or the repository very large; the job is retried. Operators can raise QUARRY_GIT_TIMEOUT_MS.',
    });
  }
  if (/not our ref|couldn't find remote ref|no such remote ref|unadvertised object|bad object|upload-pack: not our/i.test(stderr)) {
    return new QuarryError('ref_not_found', `${url} has no commit named by that ref.`, {
      suggestion: 'Check the commit id; a commit only reachable from a deleted branch cannot be fetched.',
    });
  }
  if (/returned error: (401|403|404|410)|repository .* not found|Authentication failed|could not read (Username|Password)|terminal prompts disabled|not valid: is this a git repository|does not appear to be a git repository|Repository not found/i.test(stderr)) {
    return new QuarryError('repo_not_found', `${url} is not a git repository this worker can read (not found, or it needs credentials).`, {
      suggestion: 'Check the URL (it usually ends in .git). For a private repository, the operator configures credentials for its host (QUARRY_GIT_CREDENTIALS).',
    });
  }
  if (/returned error: (5\d\d|429)|Connection refused|Connection reset|Failed to connect|Operation timed out|early EOF|RPC failed|unexpected disconnect|transfer closed/i.test(stderr)) {
    return new QuarryError('repo_unavailable', `${url} could not be read right now: ${lastLine(stderr)}`, {
      permanent: false,
      suggestion: 'The git host failed or dropped the connection; the job is retried automatically.',
    });
  }
  return new QuarryError('repo_unavailable', `git failed on ${url}: ${lastLine(stderr)}`, {
    permanent: false,
    suggestion: 'The job is retried automatically; if it keeps failing, check the URL.',
    cause: error,
  });
}

function lastLine(stderr: string): string {
  const lines = stderr.trim().split('\n').filter((line) => line.trim() !== '');
  return (lines.at(-1) ?? 'no message').replace(/https?:\/\/[^\s@/]*@/g, 'https://***@').slice(0, 300);
}
