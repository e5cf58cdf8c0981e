import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { QuarryError, closestMatch } from '@quarry/contracts';
import { JOB_TOOLS } from './job-tools';
import { describeTool, type ToolSpec } from './tool-spec';
import { WORKSPACE_TOOLS } from './workspace-tools';

/** Every tool, in the order `tools/list` shows them: the quick reads first, the jobs after. */
export const QUARRY_TOOLS: readonly ToolSpec[] = [...WORKSPACE_TOOLS, ...JOB_TOOLS];

/** The tools by name, with their `tools/list` form built once. */
export class ToolTable {
  private readonly byName = new Map<string, { spec: ToolSpec; listed: Tool }>();

  constructor(specs: readonly ToolSpec[] = QUARRY_TOOLS) {
    for (const spec of specs) {
      if (this.byName.has(spec.name)) throw new TypeError(`tool "${spec.name}" is defined twice`);
      this.byName.set(spec.name, { spec, listed: describeTool(spec) });
    }
  }

  list(): Tool[] {
    return [...this.byName.values()].map((entry) => entry.listed);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The tool, or `tool_unknown` naming the closest one. */
  get(name: string): ToolSpec {
    const entry = this.byName.get(name);
    if (entry) return entry.spec;
    const guess = closestMatch(name, this.names());
    throw new QuarryError('tool_unknown', `There is no tool "${name}".`, {
      suggestion: guess ? `Did you mean "${guess}"? Tools: ${this.names().join(', ')}.` : `Tools: ${this.names().join(', ')}.`,
    });
  }
}
