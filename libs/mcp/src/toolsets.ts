import { QuarryError, closestMatch } from '@quarry/contracts';

/**
 * The groups a server offers its tools in, after GitHub's MCP server: every tool's definition
 * costs tokens of every request an agent makes, so a server lists a small default and the rest
 * are one `--toolsets` (or `/mcp?toolsets=`) away. A tool names its set (`ToolSpec.toolset`).
 */
export const TOOLSETS = {
  files: 'read, list and find the files of a repository',
  search: 'search the text and find where names are defined',
  navigation: 'references, definitions, callers and callees, imports, impact and outlines from the code graph',
  context: 'the code a task touches, the repo map, @-mentions expanded, the repository packed',
  jobs: 'whole-repository work: scan, stack detection, plain-language questions',
  web: 'fetch a URL as text, through the SSRF guards',
} as const;

export type ToolsetName = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as ToolsetName[];

/** What a server lists when not told: the reads an agent needs on every task (tools/list ≤ 3,000 tokens, checked by a test). */
export const DEFAULT_TOOLSETS: readonly ToolsetName[] = ['files', 'search', 'context'];

export function isToolsetName(name: string): name is ToolsetName {
  return Object.hasOwn(TOOLSETS, name);
}

/**
 * `--toolsets files,search` / `?toolsets=files,search` as the sets it names: `all` is every set,
 * `default` the default ones (`default,navigation` adds one); absent or empty is the default.
 * An unknown name is `toolset_unknown` naming the closest.
 */
export function parseToolsets(value: string | readonly string[] | undefined): ToolsetName[] {
  const names = (typeof value === 'string' ? value.split(',') : (value ?? [])).flatMap((name) => name.split(',')).map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (names.length === 0) return [...DEFAULT_TOOLSETS];
  const chosen = new Set<ToolsetName>();
  for (const name of names) {
    if (name === 'all') TOOLSET_NAMES.forEach((set) => chosen.add(set));
    else if (name === 'default') DEFAULT_TOOLSETS.forEach((set) => chosen.add(set));
    else if (isToolsetName(name)) chosen.add(name);
    else {
      const guess = closestMatch(name, [...TOOLSET_NAMES, 'all', 'default']);
      throw new QuarryError('toolset_unknown', `There is no toolset "${name}".`, {
        suggestion: `${guess ? `Did you mean "${guess}"? ` : ''}Toolsets: ${TOOLSET_NAMES.join(', ')} (or all, default).`,
      });
    }
  }
  // In the table's order, whatever order they were named in.
  return TOOLSET_NAMES.filter((set) => chosen.has(set));
}
