import type { JobResult } from '@quarry/contracts';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { ClientOptions, clientFrom, report } from './jobs';
import { repositoryInput, runLocally } from './local';
import { formatServices } from '@quarry/render';

type Services = JobResult<'detect'>;
type Mode = 'full' | 'static' | 'llm-only';

/**
 * `quarry detect PATH`: in this process by default — no Redis or Postgres needed; the LLM
 * fallback uses QUARRY_LLM_* if set, with answers cached for this run only — or as a job on a
 * gateway with --server (answers cached in Postgres and shared by every worker).
 */
export async function detectCommand(target: string, options: Partial<ClientOptions> & { mode?: Mode; ref?: string; remote?: boolean }): Promise<number> {
  const repository = repositoryInput(target, options.ref);
  if (options.remote && options.server) {
    const client = clientFrom(options as ClientOptions);
    const job = await client.submit('detect', { ...repository, ...(options.mode ? { mode: options.mode } : {}) });
    const display = new ProgressDisplay(`detect ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, options as ClientOptions, job.id, (result) => formatServices(result as Services));
  }
  let source: import('@quarry/contracts').ResolvedSourceBody | undefined;
  const services = await runLocally('detect', { ...repository, ...(options.mode ? { mode: options.mode } : {}) }, { onSource: (pinned) => void (source = pinned) });
  if (!options.json && source && 'git' in source) console.log(`${source.git} @ ${source.ref} ${source.commit.slice(0, 12)}\n`);
  console.log(options.json ? JSON.stringify(services, null, 2) : formatServices(services));
  return EXIT.ok;
}
