import type { JobResult } from '@quarry/contracts';
import { loadConfig } from '@quarry/config/settings';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { ClientOptions, clientFrom, report } from './jobs';
import { repositoryInput, withLocalSnapshot } from './local';
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
  const config = loadConfig();
  const { detectStack } = await import('@quarry/detect');
  const { repoReaderOf, shortCommit } = await import('@quarry/snapshot');
  const llm = config.llm && (options.mode ?? config.detectionMode) !== 'static' ? new (await import('@quarry/llm')).LlmClient(config.llm) : undefined;
  const { result: services, source } = await withLocalSnapshot(config, repository, (snapshot) =>
    detectStack(repoReaderOf(snapshot), { mode: options.mode ?? config.detectionMode, llm }),
  );
  if (!options.json && 'git' in source) console.log(`${source.git} @ ${source.ref} ${shortCommit(source.commit)}\n`);
  console.log(options.json ? JSON.stringify(services, null, 2) : formatServices(services));
  return EXIT.ok;
}
