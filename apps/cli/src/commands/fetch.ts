import type { JobResult } from '@quarry/contracts';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { ClientOptions, clientFrom, report } from './jobs';
import { runLocally } from './local';
import { formatFetched } from '@quarry/render';

type FetchResult = JobResult<'fetch'>;

/**
 * `quarry fetch URL`: in this process by default (same guards, an in-memory cache and per-domain
 * limits of its own), or as a job on a gateway with --server (shared cache and limits).
 */
export async function fetchCommand(url: string, options: Partial<ClientOptions> & { force?: boolean; remote?: boolean }): Promise<number> {
  if (options.remote && options.server) {
    const client = clientFrom(options as ClientOptions);
    const job = await client.submit('fetch', { url, force: Boolean(options.force) });
    const display = new ProgressDisplay(`fetch ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, options as ClientOptions, job.id, (result) => formatFetched(result as FetchResult));
  }
  const result = await runLocally('fetch', { url, force: Boolean(options.force) });
  console.log(options.json ? JSON.stringify(result, null, 2) : formatFetched(result));
  return EXIT.ok;
}

