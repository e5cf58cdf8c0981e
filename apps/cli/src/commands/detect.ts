import path from 'node:path';
import type { JobResult } from '@quarry/contracts';
import { loadConfig } from '@quarry/config';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { ClientOptions, clientFrom, report } from './jobs';
import { localRoot } from './local';

type Services = JobResult<'detect'>;
type Mode = 'full' | 'static' | 'llm-only';

/**
 * `quarry detect PATH`: in this process by default — no Redis or Postgres needed; the LLM
 * fallback uses QUARRY_LLM_* if set, with answers cached for this run only — or as a job on a
 * gateway with --server (answers cached in Postgres and shared by every worker).
 */
export async function detectCommand(target: string, options: Partial<ClientOptions> & { mode?: Mode; remote?: boolean }): Promise<number> {
  const root = path.resolve(target);
  if (options.remote && options.server) {
    const client = clientFrom(options as ClientOptions);
    const job = await client.submit('detect', { root, ...(options.mode ? { mode: options.mode } : {}) });
    const display = new ProgressDisplay(`detect ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, options as ClientOptions, job.id, (result) => formatServices(result as Services));
  }
  const config = loadConfig();
  const { detectStack } = await import('@quarry/detect');
  const real = await localRoot(root);
  const llm = config.llm && (options.mode ?? config.detectionMode) !== 'static' ? new (await import('@quarry/llm')).LlmClient(config.llm) : undefined;
  const services = await detectStack(real, { mode: options.mode ?? config.detectionMode, llm });
  console.log(options.json ? JSON.stringify(services, null, 2) : formatServices(services));
  return EXIT.ok;
}

export function formatServices(services: Services): string {
  // Warnings every service carries belong to the run (the mode, a truncated scan): printed once, at the end.
  const shared = services.length > 1 ? services[0].metadata.warnings.filter((warning) => services.every((service) => service.metadata.warnings.includes(warning))) : [];
  const blocks = services.map((service) => {
    const { metadata, workspace, build, runtime } = service;
    const stack = [metadata.language, metadata.build_system, metadata.framework, metadata.bundler && `(${metadata.bundler})`].filter(Boolean).join(' · ');
    const version = runtime.version.requested ? ` ${runtime.version.requested} (${runtime.version.source})` : '';
    const lines = [
      `${metadata.path}  ${metadata.project_name}`,
      `  stack    ${stack}   [${metadata.detected_by}, confidence ${metadata.confidence.toFixed(2)}]`,
      `  runtime  ${runtime.name}${version}${runtime.ports.length ? `   ports ${runtime.ports.join(', ')}` : ''}`,
    ];
    if (workspace.orchestrator || workspace.members.length) {
      lines.push(`  workspace ${[workspace.orchestrator, workspace.manager].filter(Boolean).join(' + ') || workspace.root} (${workspace.members.length} member${workspace.members.length === 1 ? '' : 's'}, root ${workspace.root})`);
    }
    if (build.commands.length) lines.push(`  build    ${build.commands.join(' && ')}`);
    if (runtime.command) lines.push(`  start    ${runtime.command}`);
    if (build.cache.length) lines.push(`  cache    ${build.cache.join(', ')}`);
    for (const warning of metadata.warnings) if (!shared.includes(warning)) lines.push(`  warning  ${warning}`);
    if (metadata.reasoning) lines.push(`  why      ${metadata.reasoning}`);
    return lines.join('\n');
  });
  const footer = shared.map((warning) => `\nwarning  ${warning}`).join('');
  return `${blocks.join('\n\n')}\n\n${services.length} service${services.length === 1 ? '' : 's'}${footer}`;
}
