import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { QuarryError, closestMatch } from '@quarry/contracts';
import { JOB_TOOLS } from './job-tools';
import { NAVIGATION_TOOLS } from './navigation-tools';
import { describeTool, type ToolSpec } from './tool-spec';
import { DEFAULT_TOOLSETS, TOOLSET_NAMES, isToolsetName, type ToolsetName } from './toolsets';
import { WORKSPACE_TOOLS } from './workspace-tools';

/** Every tool, in the order `tools/list` shows them: the quick reads first, the jobs after. */
export const QUARRY_TOOLS: readonly ToolSpec[] = [...WORKSPACE_TOOLS, ...NAVIGATION_TOOLS, ...JOB_TOOLS];

/**
 * The tools by name, with their `tools/list` form built once, and the toolsets this server
 * offers: `list()` shows only theirs; a call of another tool is `tool_not_enabled`, naming the
 * set to add.
 */
export class ToolTable {
  private readonly byName = new Map<string, { spec: ToolSpec; listed: Tool }>();
  readonly toolsets: readonly ToolsetName[];

  constructor(specs: readonly ToolSpec[] = QUARRY_TOOLS, toolsets: readonly ToolsetName[] = DEFAULT_TOOLSETS) {
    for (const spec of specs) {
      if (this.byName.has(spec.name)) throw new TypeError(`tool "${spec.name}" is defined twice`);
      if (!isToolsetName(spec.toolset)) throw new TypeError(`tool "${spec.name}" names no toolset (one of ${TOOLSET_NAMES.join(', ')})`);
      this.byName.set(spec.name, { spec, listed: describeTool(spec) });
    }
    this.toolsets = [...toolsets];
  }

  /** The same tools, offering these sets. */
  withToolsets(toolsets: readonly ToolsetName[]): ToolTable {
    return new ToolTable(
      [...this.byName.values()].map((entry) => entry.spec),
      toolsets,
    );
  }

  /** The enabled tools as `tools/list` shows them. */
  list(): Tool[] {
    return [...this.byName.values()].filter((entry) => this.toolsets.includes(entry.spec.toolset)).map((entry) => entry.listed);
  }

  /** Every tool's name, enabled or not. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Every tool, enabled or not (the docs page lists them all). */
  specs(): ToolSpec[] {
    return [...this.byName.values()].map((entry) => entry.spec);
  }

  /** An enabled tool; `tool_not_enabled` naming its set, or `tool_unknown` naming the closest. */
  get(name: string): ToolSpec {
    const entry = this.byName.get(name);
    if (entry && this.toolsets.includes(entry.spec.toolset)) return entry.spec;
    if (entry) {
      const sets = [...this.toolsets, entry.spec.toolset].join(',');
      throw new QuarryError('tool_not_enabled', `${name} is in the "${entry.spec.toolset}" toolset, which this server does not offer (it offers ${this.toolsets.join(', ') || 'none'}).`, {
        suggestion: `Start the server with --toolsets ${sets} (quarry mcp), or connect to /mcp?toolsets=${sets}.`,
      });
    }
    const enabled = this.list().map((tool) => tool.name);
    const guess = closestMatch(name, enabled);
    throw new QuarryError('tool_unknown', `There is no tool "${name}".`, {
      suggestion: guess ? `Did you mean "${guess}"? Tools: ${enabled.join(', ')}.` : `Tools: ${enabled.join(', ')}.`,
    });
  }
}
