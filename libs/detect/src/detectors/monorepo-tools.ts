import type { BuildSystemId } from '../ids';
import type { Orchestrator, WorkspaceMember } from '../model';
import { tomlString, tomlStrings } from '../toml';
import { basename, expandMembers, found } from './shared';

/* Orchestrators that own their member list: rush (rush.json), moon (.moon/workspace.yml), uv workspaces. */

interface RushJson {
  pnpmVersion?: string;
  yarnVersion?: string;
  projects?: { packageName?: string; projectFolder?: string }[];
}

function rushManager(rush: RushJson): BuildSystemId {
  if (rush.pnpmVersion) return 'pnpm';
  if (rush.yarnVersion) return 'yarn-classic';
  return 'npm';
}

export const rush: Orchestrator = {
  id: 'rush',
  role: 'members',
  async detect(root) {
    const config = await root.json<RushJson>('rush.json');
    if (!config?.projects?.length) return undefined;
    const members: WorkspaceMember[] = config.projects
      .filter((project) => project.projectFolder && root.scan.has(project.projectFolder, 'package.json'))
      .map((project) => ({ dir: project.projectFolder!.replace(/\/+$/, ''), name: project.packageName ?? basename(project.projectFolder!) }));
    return found({
      orchestrator: 'rush' as const,
      manager: rushManager(config),
      install: ['rush install'],
      members,
      buildCommand: (member: WorkspaceMember) => `rush build --to ${member.name}`,
      cache: ['common/temp'],
    });
  },
};

interface MoonWorkspace {
  projects?: string[] | Record<string, string> | { globs?: string[]; sources?: Record<string, string> };
}

/** moon names a project after its folder unless the `projects` map gives it an id. */
function moonProjects(projects: MoonWorkspace['projects']): { globs: string[]; named: Record<string, string> } {
  if (Array.isArray(projects)) return { globs: projects, named: {} };
  if (!projects) return { globs: [], named: {} };
  if ('globs' in projects || 'sources' in projects) {
    const split = projects as { globs?: string[]; sources?: Record<string, string> };
    return { globs: split.globs ?? [], named: split.sources ?? {} };
  }
  return { globs: [], named: projects as Record<string, string> };
}

export const moon: Orchestrator = {
  id: 'moon',
  role: 'members',
  async detect(root) {
    const config = await root.scan.yaml<MoonWorkspace>(root.dir === '.' ? '.moon' : `${root.dir}/.moon`, 'workspace.yml');
    if (!config?.projects) return undefined;
    const { globs, named } = moonProjects(config.projects);
    const isProject = (dir: string) => (root.scan.files.get(dir)?.length ?? 0) > 0;
    const members: WorkspaceMember[] = [
      ...Object.entries(named).map(([name, dir]) => ({ dir: dir.replace(/^\.\//, '').replace(/\/+$/, ''), name })),
      ...expandMembers(root, globs, isProject).map((dir) => ({ dir, name: basename(dir) })),
    ];
    return found({ orchestrator: 'moon' as const, members, buildCommand: (member: WorkspaceMember) => `moon run ${member.name}:build`, cache: ['.moon/cache'] });
  },
};

export const uvWorkspace: Orchestrator = {
  id: 'uv-workspace',
  role: 'members',
  async detect(root) {
    const pyproject = await root.toml('pyproject.toml');
    const patterns = tomlStrings(pyproject, 'tool', 'uv', 'workspace', 'members');
    if (patterns.length === 0) return undefined;
    const excluded = tomlStrings(pyproject, 'tool', 'uv', 'workspace', 'exclude').map((pattern) => `!${pattern}`);
    const members: WorkspaceMember[] = [];
    for (const dir of expandMembers(root, [...patterns, ...excluded], 'pyproject.toml')) {
      members.push({ dir, name: tomlString(await root.scan.toml(dir, 'pyproject.toml'), 'project', 'name') ?? basename(dir) });
    }
    return found({
      orchestrator: 'uv-workspace' as const,
      manager: 'uv' as const,
      install: ['uv sync --frozen --all-packages'],
      members,
      cache: ['.venv'],
    });
  },
};
