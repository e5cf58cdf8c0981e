import type { JobInput, JobResult } from '@quarry/contracts';
import type { JobRun } from '../job-run';
import type { FetchPorts } from '../ports';

/** The fetch job: a URL as readable text, through the fetcher's SSRF guards, cache and per-domain limits. */
export async function runFetch(input: JobInput<'fetch'>, ports: FetchPorts, run: JobRun): Promise<JobResult<'fetch'>> {
  run.progress({ stage: 'fetching', done: 0, total: 1, message: input.url });
  const result = await ports.fetcher.fetch(input.url, { force: input.force, signal: run.signal });
  run.progress({ stage: 'fetched', done: 1, total: 1, message: result.fromCache ? 'from cache' : `${result.bytes} bytes` });
  return result;
}
