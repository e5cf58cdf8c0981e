import type { JobResult } from '@quarry/contracts';
import { formatBytes, formatCount } from '@quarry/contracts/format';

type FetchResult = JobResult<'fetch'>;

/** A fetched page: title, final URL with status and size, redirects, then the text. */
export function formatFetched(result: FetchResult): string {
  const lines = [
    result.title ? `# ${result.title}` : undefined,
    `${result.finalUrl}  (${result.status}, ${result.contentType}, ${formatBytes(result.bytes)}${result.truncated ? ', truncated' : ''}${result.fromCache ? ', from cache' : ''})`,
    result.redirects.length ? `redirected: ${[result.url, ...result.redirects].join(' → ')}` : undefined,
    '',
    result.text,
  ];
  return lines.filter((line) => line !== undefined).join('\n');
}
