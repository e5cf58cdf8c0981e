import { z } from 'zod';
import { DEFAULT_ANSWER_TOKENS, MAX_ANSWER_TOKENS } from '@quarry/contracts';
import { answerSchema, modelDescription, type ToolSpec } from './tool-spec';
import { DEFAULT_TOOLSETS, TOOLSETS, TOOLSET_NAMES } from './toolsets';

type JsonSchema = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  [key: string]: unknown;
};

/** Where the page lives, from the repository's root; `npm run docs:mcp` writes it. */
export const TOOL_DOCS_PATH = 'docs/mcp-tools.md';

/**
 * docs/mcp-tools.md: every tool by toolset, with what the model is told (the same text
 * `tools/list` sends), its arguments and the fields of its answer. Generated from the tool
 * table, so the page and the server cannot disagree (a test fails when the page is stale).
 */
export function renderToolDocs(specs: readonly ToolSpec[]): string {
  const lines = [
    '# Quarry MCP tools',
    '',
    '<!-- Generated from libs/mcp (the tool table and the contracts) by `npm run docs:mcp`; do not edit by hand. -->',
    '',
    `Tools come in toolsets. \`quarry mcp\` and the gateway's \`/mcp\` list the default sets (${DEFAULT_TOOLSETS.map((set) => `\`${set}\``).join(', ')}) unless told otherwise: \`quarry mcp --toolsets files,search,navigation\`, \`/mcp?toolsets=all\`. A call to a tool of a set that is not offered answers \`tool_not_enabled\`, naming the set.`,
    '',
    '| toolset | what for | tools |',
    '|---|---|---|',
    ...TOOLSET_NAMES.map((set) => `| \`${set}\`${DEFAULT_TOOLSETS.includes(set) ? ' (default)' : ''} | ${TOOLSETS[set]} | ${specs.filter((spec) => spec.toolset === set).map((spec) => `[\`${spec.name}\`](#${spec.name})`).join(', ') || '—'} |`),
    '',
    '## Every answer',
    '',
    `- **Budget.** A tool marked *paged* takes \`maxTokens\` (default ${DEFAULT_ANSWER_TOKENS.toLocaleString('en-US')}; more than ${MAX_ANSWER_TOKENS.toLocaleString('en-US')} counts as ${MAX_ANSWER_TOKENS.toLocaleString('en-US')}): the whole result — its text and its \`structuredContent\`, serialized — never holds more o200k_base tokens. A longer answer is cut at a line or an item, ends with what was left out, and gives \`structuredContent.nextCursor\`. \`structuredContent.page\` says which items it holds (\`first\`, \`last\`, \`total\`, \`left\`) and its size (\`tokens\`).`,
    '- **Cursor.** Call the same tool with the same arguments and `"cursor": nextCursor` for the next page (only `maxTokens` may change; when the arguments were short, the cursor alone will do): it starts exactly after the last item shown, in any process, after a restart. A cursor whose content changed meanwhile answers `cursor_stale` (call again without it); one that was altered, or given with other arguments, `cursor_invalid`.',
    '- **Index state.** An answer that read a repository has `structuredContent.index`: `commit` (the commit read: HEAD of a checkout, the pinned commit of a URL; for a directory outside git, the hash Quarry names its state by), `dirty` (files of the working tree that differ from it — they are read as they are now), `coverage` (0–1, the share of its files in the code index), `building` (a scan of it, or a build of its search index, runs now), `read` (`index`: answered from the index; `files`: by reading the files) and, once a search asked for it, `searchIndex` (a checkout\'s HEAD search index: `ready`, `building` with `progress` 0–1, or `none`).',
    '',
  ];
  for (const set of TOOLSET_NAMES) {
    const members = specs.filter((spec) => spec.toolset === set);
    if (members.length === 0) continue;
    lines.push(`## Toolset \`${set}\``, '');
    for (const spec of members) lines.push(...toolSection(spec));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function toolSection(spec: ToolSpec): string[] {
  const input = z.toJSONSchema(spec.input, { target: 'draft-7', io: 'input' }) as JsonSchema;
  const output = z.toJSONSchema(answerSchema(spec), { target: 'draft-7', io: 'output' }) as JsonSchema;
  const required = new Set(input.required ?? []);
  const traits = [spec.paged ? 'paged' : undefined, spec.jobKind ? `runs a \`${spec.jobKind}\` job` : 'answered at once', spec.annotations.openWorldHint ? 'reaches URLs' : undefined].filter(Boolean);
  return [
    `### ${spec.name}`,
    '',
    `**${spec.title}** — ${traits.join(', ')}.`,
    '',
    `> ${modelDescription(spec)}`,
    '',
    '| argument | type | |',
    '|---|---|---|',
    ...Object.entries(input.properties ?? {}).map(([name, property]) => `| \`${name}\`${required.has(name) ? ' (required)' : ''} | ${typeName(property)} | ${cell(describe(property))} |`),
    '',
    `Answer (\`structuredContent\`): ${Object.entries(output.properties ?? {})
      .map(([name, property]) => `\`${name}\`${(output.required ?? []).includes(name) ? '' : '?'} (${typeName(property)})`)
      .join(', ')}.`,
    '',
  ];
}

function typeName(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeName))].join(' \\| ');
  if (schema.type === 'array') return `${schema.items ? typeName(schema.items) : 'any'}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ');
  return schema.type ?? 'any';
}

function describe(schema: JsonSchema): string {
  const bounds = [
    schema.minimum !== undefined && Math.abs(schema.minimum) < Number.MAX_SAFE_INTEGER ? `≥ ${schema.minimum}` : undefined,
    schema.maximum !== undefined && Math.abs(schema.maximum) < Number.MAX_SAFE_INTEGER ? `≤ ${schema.maximum}` : undefined,
  ].filter(Boolean);
  return [schema.description ?? '', bounds.length ? `(${bounds.join(', ')})` : ''].filter(Boolean).join(' ');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
