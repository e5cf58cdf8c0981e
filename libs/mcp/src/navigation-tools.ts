import { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { navigationInputSchema, navigationResultSchemas, type NavigationInput, type NavigationQuery, type NavigationResult } from '@quarry/contracts';
import { formatCallGraph, formatDefinition, formatImpact, formatImports, formatOutline, formatReferences } from '@quarry/render';
import type { ListAnswer } from './paged-answer';
import { chooseRepository, repositoryFields, toolInputFrom } from './repository-argument';
import { defineTool, withPagingArguments, type ToolSpec } from './tool-spec';

/** The navigation contract's fields a tool can take besides the repository and the query. */
export type NavigationField = Exclude<keyof NavigationInput, 'query' | 'root' | 'source'>;

interface NavigationToolSpec<Q extends NavigationQuery> {
  name: string;
  title: string;
  description: string;
  whenToUse: string;
  example: Record<string, unknown>;
  /** The result's list a long answer is paged on (`references`, an outline's `definitions`); without one the answer is shortened to fit. */
  pages?: { list: string; unit: string };
  /** The query the tool answers; with two, its `direction` argument chooses one. */
  queries: readonly [Q] | readonly [Q, Q];
  /** The contract fields the tool takes, each described for the model. */
  fields: Partial<Record<NavigationField, string>>;
  /** Fields the tool's queries cannot do without: required in its schema, not only checked at run time. */
  required?: readonly NavigationField[];
  /** With two queries: what `direction` means. */
  direction?: string;
  /** A default limit smaller than the query's own: a tool's answer lands in a model's context. */
  limit?: number;
  render(result: NavigationResult<Q>): string;
}

/** Uses listed when a call gives no limit (the contract's default is 1,000): a few hundred lines, not a context window. */
export const NAVIGATION_TOOL_LIMIT = 200;

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The input schema of a navigation tool: its fields of the navigation contract, `root`/`source` as `repository`/`ref`, the query as `direction` when it has two. */
export function navigationToolInput<Q extends NavigationQuery>(spec: Pick<NavigationToolSpec<Q>, 'queries' | 'fields' | 'required' | 'direction'>) {
  const contract = navigationInputSchema.shape;
  const shape: Record<string, z.ZodType> = { root: contract.root, source: contract.source };
  for (const field of Object.keys(spec.fields) as NavigationField[]) {
    const type = contract[field] as z.ZodOptional<z.ZodType>;
    shape[field] = spec.required?.includes(field) ? type.unwrap() : type;
  }
  const descriptions: Record<string, string> = { ...spec.fields };
  if (spec.queries.length === 2) {
    shape.direction = contract.query.extract([...spec.queries]);
    descriptions.direction = spec.direction ?? '';
  }
  return toolInputFrom(z.object(shape), descriptions);
}

/**
 * A tool answering one navigation query (or one of two) of a repository, in the call: `POST
 * /v1/navigation`'s read. A paged one cuts its list to the answer's budget; a continuation reads
 * the commit the first page read, and the items before the page prove the list unchanged.
 */
function navigationTool<Q extends NavigationQuery>(spec: NavigationToolSpec<Q>): ToolSpec {
  const input = navigationToolInput(spec);
  return defineTool({
    name: spec.name,
    title: spec.title,
    toolset: 'navigation',
    description: spec.description,
    whenToUse: spec.whenToUse,
    example: spec.example,
    input: spec.pages ? withPagingArguments(input) : input,
    output: navigationResultSchemas[spec.queries[0]],
    annotations: READ_ONLY,
    paged: spec.pages !== undefined,
    async run(args, { backend, signal, progress, cursor }) {
      const { repository, ref, direction, maxTokens: _maxTokens, cursor: _cursor, ...rest } = args as Record<string, unknown> & { repository?: string; ref?: string; direction?: Q };
      const query = direction ?? spec.queries[0];
      const input = {
        ...rest,
        ...(spec.limit !== undefined && rest.limit === undefined ? { limit: spec.limit } : {}),
        ...repositoryFields(chooseRepository(repository, backend.defaultRepository), cursor?.commit ?? ref),
        query,
      } as NavigationInput & { query: Q };
      // The first query on a commit indexes its tree: that is what the progress reports.
      const result = await backend.navigate(input, { signal, onProgress: (report) => progress?.report(report) });
      const { root, source } = input as { root?: string; source?: { git: string; ref?: string } };
      const index = await backend.indexState?.(root !== undefined ? { root } : { source: source! }, { commit: result.source.commit, read: 'index', signal });
      const present = (shown: NavigationResult<Q>) => {
        const text = spec.render(shown);
        return { text: 'git' in shown.source ? `${text}\n(at commit ${shown.source.commit})` : text, structured: shown as Record<string, unknown> };
      };
      if (!spec.pages) return { ...present(result), ...(index ? { index } : {}) };
      const { list, unit } = spec.pages;
      const record = result as Record<string, unknown>;
      const answer: ListAnswer<unknown> = {
        paged: true,
        kind: 'list',
        unit,
        items: record[list] as unknown[],
        ...('git' in result.source ? { commit: result.source.commit } : {}),
        build: (slice) => present({ ...record, [list]: slice.items } as NavigationResult<Q>),
      };
      return { ...answer, ...(index ? { index } : {}) };
    },
  });
}

/** What a symbol argument may be, said once for every tool that takes one. */
const SYMBOL = 'A name ("parseConfig"), Class.method ("Server.start"), or a place "path:line[:column]" (a definition there, or a use of one).';

export const NAVIGATION_TOOLS: readonly ToolSpec[] = [
  navigationTool({
    name: 'find_references',
    title: 'Find the references of a definition',
    description:
      'Every use of a definition across the repository, grouped by file: line, column, the line\'s text and the function it sits in. Names are resolved through imports, so Server.start is told apart from other start methods (unlike grep).',
    whenToUse: 'Use it before changing or renaming something.',
    example: { symbol: 'Server.start' },
    pages: { list: 'references', unit: 'reference' },
    queries: ['references'],
    fields: {
      symbol: SYMBOL,
      limit: `Uses listed at most (default ${NAVIGATION_TOOL_LIMIT}); total counts them all.`,
      guessed: 'false: leave out uses guessed from the file (receiver of unknown type); they are marked "guessed" otherwise.',
    },
    required: ['symbol'],
    limit: NAVIGATION_TOOL_LIMIT,
    render: formatReferences,
  }),
  navigationTool({
    name: 'go_to_definition',
    title: 'Go to the definition',
    description: 'Where something is defined: for a name, its definitions ranked; for a use at "path:line[:column]", the definition that use resolves to through imports.',
    whenToUse: 'Sharper than grep for a name defined in several places.',
    example: { symbol: 'src/app.ts:42:10' },
    queries: ['definition'],
    fields: { symbol: SYMBOL },
    required: ['symbol'],
    render: formatDefinition,
  }),
  navigationTool({
    name: 'call_graph',
    title: 'Callers or callees of a function',
    description: 'Who calls a function or method (callers), or what it calls (callees), one hop or up to depth hops, each with where the call is.',
    whenToUse: 'Use it to follow a bug up or down the calls.',
    example: { symbol: 'parseConfig', direction: 'callers', depth: 2 },
    queries: ['callers', 'callees'],
    direction: 'callers: the definitions that call it; callees: the definitions it calls.',
    fields: { symbol: SYMBOL, depth: 'Hops to follow, 1 to 10 (default 1).', limit: 'Entries listed at most (default 200).' },
    required: ['symbol'],
    render: formatCallGraph,
  }),
  navigationTool({
    name: 'file_outline',
    title: 'Outline a file',
    description: 'A file\'s definitions (classes, functions, methods…) nested, each with its line range and signature.',
    whenToUse: 'What is in a file without reading it all.',
    example: { path: 'src/server.ts' },
    pages: { list: 'definitions', unit: 'definition' },
    queries: ['outline'],
    fields: { path: 'The file, relative to the repository root.' },
    required: ['path'],
    render: formatOutline,
  }),
  navigationTool({
    name: 'file_imports',
    title: 'Imports of a file, or its importers',
    description: 'The repository files a file imports, or the files that import it (packages outside the tree listed apart).',
    whenToUse: 'Use it to see what a change to a file can reach.',
    example: { path: 'src/config.ts', direction: 'importedBy' },
    queries: ['imports', 'importedBy'],
    direction: 'imports: what the file imports; importedBy: the files importing it.',
    fields: { path: 'The file, relative to the repository root.' },
    required: ['path'],
    render: formatImports,
  }),
  navigationTool({
    name: 'change_impact',
    title: 'Impact of a change, and the tests to run',
    description:
      'What a change touches: the definitions it changes, the code depending on them (nearest, most used first) and the tests that reach it. The change: a unified diff against the repository as it is, or for a directory since a ref or workingTree (uncommitted edits).',
    whenToUse: 'Use it to know which tests to run.',
    example: { workingTree: true },
    queries: ['impact'],
    fields: {
      diff: 'A unified diff (output of git diff) that applies to the repository as it is; a hunk that does not apply is named in the error.',
      since: 'For a directory: the change from this ref (branch, tag, commit) to the working tree.',
      workingTree: 'For a directory: the uncommitted changes (git diff HEAD).',
      depth: 'Hops from the changed definitions to follow, 1 to 10 (default 2).',
      limit: 'Dependent definitions and files listed at most (default 200).',
    },
    render: formatImpact,
  }),
];
