import type { JobResult } from '@quarry/contracts';

type Services = JobResult<'detect'>;

/** The stack of every service, a block each. */
export function formatServices(services: Services): string {
  const blocks = services.map((service) => {
    const { metadata, workspace, build, runtime } = service;
    const stack = [metadata.language, metadata.build_system, metadata.framework].filter(Boolean).join(' · ');
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
    for (const warning of metadata.warnings) lines.push(`  warning  ${warning}`);
    if (metadata.reasoning) lines.push(`  why      ${metadata.reasoning}`);
    return lines.join('\n');
  });
  return `${blocks.join('\n\n')}\n\n${services.length} service${services.length === 1 ? '' : 's'}`;
}
