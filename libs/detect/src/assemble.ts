import * as path from 'node:path';
import type { z } from 'zod';
import type { universalBuildSchema } from '@quarry/contracts';
import type { ServiceAnalysis, Verdict, WorkspaceLayout, WorkspaceMember } from './model';

export type UniversalBuild = z.infer<typeof universalBuildSchema>;

/** Bumped when the meaning of a field changes, so stored results can be told apart. */
export const UNIVERSAL_BUILD_VERSION = '1';

/*
 * Phase 5 — Assemble. Turns one ServiceAnalysis into the wire shape. Commands run from
 * `workspace.root`, which for a service outside a workspace is its own directory.
 */
export function assemble(analysis: ServiceAnalysis): UniversalBuild {
  const { service, language, build, framework, runtime } = analysis;
  const verdicts: Verdict<unknown>[] = [language, build, ...(framework ? [framework] : []), runtime];
  const known = verdicts.filter((verdict) => verdict.confidence > 0);
  const layout = service.workspace;
  const reasoning = verdicts.map((verdict) => verdict.reasoning).filter(Boolean).join(' ');
  return {
    version: UNIVERSAL_BUILD_VERSION,
    metadata: {
      project_name: analysis.name,
      path: service.dir,
      language: language.value,
      build_system: build.value.id,
      ...(framework ? { framework: framework.value.id } : {}),
      ...(framework?.value.bundler ? { bundler: framework.value.bundler } : {}),
      confidence: language.confidence === 0 ? 0 : Math.min(...known.map((verdict) => verdict.confidence)),
      detected_by: verdicts.some((verdict) => verdict.detectedBy === 'llm') ? 'llm' : 'static',
      warnings: unique([...service.root.warnings, ...service.scan.problems(service.dir), ...verdicts.flatMap((verdict) => verdict.warnings ?? [])]),
      ...(reasoning ? { reasoning } : {}),
    },
    workspace: {
      root: layout?.root ?? service.dir,
      ...(layout?.orchestrator ? { orchestrator: layout.orchestrator } : {}),
      ...(layout?.manager ? { manager: layout.manager } : {}),
      members: layout ? sortedMemberDirs(layout) : [],
    },
    build: {
      commands: commandsOf(analysis, layout),
      cache: unique([...service.root.cache, ...build.value.cache.map((entry) => inService(service.dir, entry)), ...frameworkCache(analysis)]),
      env: build.value.env ?? {},
    },
    runtime: {
      name: runtime.value.name,
      version: runtime.value.version,
      ...(runtime.value.command ? { command: runtime.value.command } : {}),
      ports: runtime.value.ports,
      ...(runtime.value.health ? { health: runtime.value.health } : {}),
      ...(runtime.value.base_image ? { base_image: runtime.value.base_image } : {}),
    },
  };
}

function commandsOf(analysis: ServiceAnalysis, layout: WorkspaceLayout | undefined): string[] {
  const plan = analysis.build.value;
  if (!layout) return [...plan.install, ...plan.build];
  const member = memberAt(layout, analysis.service.dir);
  const install = layout.install ?? (layout.sharedInstall ? plan.install : plan.install.map((command) => inDirectory(analysis.service.dir, command)));
  if (member && layout.buildCommand) return [...install, layout.buildCommand(member)];
  return [...install, ...plan.build.map((command) => inDirectory(analysis.service.dir, command))];
}

/** Per-layout indexes: a 1,000-member workspace would otherwise sort and search its list per member. */
const memberIndexes = new WeakMap<WorkspaceLayout, { sorted: string[]; byDir: Map<string, WorkspaceMember> }>();

function memberIndex(layout: WorkspaceLayout) {
  let index = memberIndexes.get(layout);
  if (!index) {
    index = { sorted: layout.members.map((member) => member.dir).sort(), byDir: new Map(layout.members.map((member) => [member.dir, member])) };
    memberIndexes.set(layout, index);
  }
  return index;
}

/** One array shared by every member's result: copying it per member is a million strings for 1,000 members. */
function sortedMemberDirs(layout: WorkspaceLayout): string[] {
  return memberIndex(layout).sorted;
}

export function memberAt(layout: WorkspaceLayout, dir: string): WorkspaceMember | undefined {
  return memberIndex(layout).byDir.get(dir);
}

function inDirectory(dir: string, command: string): string {
  return dir === '.' ? command : `cd ${dir} && ${command}`;
}

function frameworkCache(analysis: ServiceAnalysis): string[] {
  return (analysis.framework?.value.cache ?? []).map((entry) => inService(analysis.service.dir, entry));
}

/** Home-directory caches stay as they are; in-repo ones become root-relative. */
function inService(dir: string, entry: string): string {
  if (entry.startsWith('~') || entry.startsWith('/') || dir === '.') return entry;
  return path.posix.join(dir, entry);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
