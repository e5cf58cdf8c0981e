import { z } from 'zod';
import { countTokens } from '@quarry/code-index/tokens';
import { BUILT_KINDS, JOB_CONTRACTS, WORKSPACE_TOOL_CONTRACTS } from '@quarry/contracts';
import { NAVIGATION_TOOLS } from './navigation-tools';
import { describeFields, toolInputFrom } from './repository-argument';
import { QUARRY_TOOLS, ToolTable } from './tool-table';
import { defineTool } from './tool-spec';
import { DEFAULT_TOOLSETS, TOOLSET_NAMES, parseToolsets } from './toolsets';

const CONTRACT_OF: Record<string, z.ZodObject> = {
  expand_mentions: JOB_CONTRACTS.mentions.input,
  detect_stack: JOB_CONTRACTS.detect.input,
  scan_repository: JOB_CONTRACTS.scan.input,
  fetch_url: JOB_CONTRACTS.fetch.input,
  ask: JOB_CONTRACTS.interpret.input,
  find_symbol: JOB_CONTRACTS.symbols.input,
  repo_map: JOB_CONTRACTS.map.input,
  pack_repository: JOB_CONTRACTS.pack.input,
  find_relevant_code: JOB_CONTRACTS.context.input,
  ...Object.fromEntries(Object.entries(WORKSPACE_TOOL_CONTRACTS).map(([name, contract]) => [name, contract.input])),
};

describe('the tool table', () => {
  const table = new ToolTable(QUARRY_TOOLS, TOOLSET_NAMES);

  it('derives every tool input from its contract: the same fields, `root` and `source` as an optional `repository` and `ref`', () => {
    // A navigation tool takes part of the navigation contract: navigation-tools.spec.ts checks its derivation.
    for (const spec of QUARRY_TOOLS.filter((tool) => !NAVIGATION_TOOLS.includes(tool))) {
      const contract = CONTRACT_OF[spec.name];
      expect(contract).toBeDefined();
      const contractFields = Object.keys(contract.shape);
      const repositoryFields = new Set(['root', 'source']);
      const own = contractFields.includes('root') ? ['repository', 'ref', ...contractFields.filter((field) => !repositoryFields.has(field))] : contractFields;
      // A paged tool also takes the answer's budget and the cursor of its next page.
      const expected = spec.paged ? [...own, 'maxTokens', 'cursor'] : own;
      expect({ tool: spec.name, fields: Object.keys(spec.input.shape).sort() }).toEqual({ tool: spec.name, fields: expected.sort() });
      for (const field of contractFields.filter((name) => !repositoryFields.has(name))) {
        // Same constraints: the JSON Schema differs only by the description.
        const { description: _description, ...derived } = z.toJSONSchema((spec.input.shape as Record<string, z.ZodType>)[field], { io: 'input' }) as Record<string, unknown>;
        const { description: _contractDescription, ...original } = z.toJSONSchema((contract.shape as Record<string, z.ZodType>)[field], { io: 'input' }) as Record<string, unknown>;
        expect({ tool: spec.name, field, schema: derived }).toEqual({ tool: spec.name, field, schema: original });
      }
    }
  });

  it('has a tool for every job kind the server runs', () => {
    for (const kind of BUILT_KINDS) expect({ kind, tools: QUARRY_TOOLS.filter((spec) => spec.jobKind === kind).length }).toEqual({ kind, tools: 1 });
  });

  it('lists JSON Schemas with a description for every argument and no unknown arguments allowed', () => {
    expect(table.list().length).toBe(QUARRY_TOOLS.length);
    for (const tool of table.list()) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect({ tool: tool.name, name, description: typeof (property as { description?: string }).description }).toEqual({ tool: tool.name, name, description: 'string' });
      }
    }
  });

  it('names the closest tool for an unknown name', () => {
    expect(() => table.get('serch_text')).toThrow(expect.objectContaining({ kind: 'tool_unknown', suggestion: expect.stringContaining('"search_text"') }));
  });

  it('lists the default toolsets for at most 3,000 o200k tokens, and every tool when all are named', () => {
    const defaults = new ToolTable();
    const listed = defaults.list();
    expect(listed.map((tool) => tool.name)).toEqual(QUARRY_TOOLS.filter((spec) => DEFAULT_TOOLSETS.includes(spec.toolset)).map((spec) => spec.name));
    expect(listed.map((tool) => tool.name)).toEqual(expect.arrayContaining(['read_file', 'search_text', 'find_relevant_code']));
    // What an agent pays on every request: the tools/list result as the client receives it.
    expect(countTokens(JSON.stringify({ tools: listed }))).toBeLessThanOrEqual(3_000);
    expect(table.list().map((tool) => tool.name).sort()).toEqual(QUARRY_TOOLS.map((spec) => spec.name).sort());
  });

  it('puts every tool in a toolset and reaches each one by naming its set', () => {
    for (const spec of QUARRY_TOOLS) {
      expect(TOOLSET_NAMES).toContain(spec.toolset);
      expect(new ToolTable(QUARRY_TOOLS, [spec.toolset]).list().map((tool) => tool.name)).toContain(spec.name);
    }
    const broken = defineTool({ ...QUARRY_TOOLS[0], name: 'orphan', toolset: 'nowhere' as never });
    expect(() => new ToolTable([broken])).toThrow('names no toolset');
  });

  it('answers a tool of a set the server does not offer with tool_not_enabled, naming the set to add', () => {
    const filesOnly = new ToolTable(QUARRY_TOOLS, parseToolsets('files'));
    expect(filesOnly.list().map((tool) => tool.name)).toEqual(['read_file', 'list_directory', 'find_files']);
    expect(() => filesOnly.get('search_text')).toThrow(expect.objectContaining({ kind: 'tool_not_enabled', suggestion: expect.stringContaining('--toolsets files,search') }));
    expect(() => filesOnly.get('read_fil')).toThrow(expect.objectContaining({ kind: 'tool_unknown', suggestion: expect.stringContaining('"read_file"') }));
  });

  it('describes every tool for a model: what for, when to use it, and an example call its input schema accepts', () => {
    for (const tool of table.list()) {
      const spec = QUARRY_TOOLS.find((candidate) => candidate.name === tool.name)!;
      expect(tool.description).toContain(spec.whenToUse);
      expect(tool.description).toContain(`Example: ${JSON.stringify(spec.example)}`);
      expect({ tool: tool.name, example: spec.input.safeParse(spec.example).success }).toEqual({ tool: tool.name, example: true });
    }
  });

  it('lists no bounds or keywords a model does not act on', () => {
    const listing = JSON.stringify(table.list());
    expect(listing).not.toContain('9007199254740991');
    expect(listing).not.toContain('$schema');
    expect(listing).not.toContain('"maxLength"');
  });

  it('refuses a field without a description, or a description of no field, when the table is built', () => {
    const contract = z.object({ root: z.string(), pattern: z.string() });
    expect(() => toolInputFrom(contract, {})).toThrow('field "pattern" has no description');
    expect(() => toolInputFrom(contract, { pattern: 'p', patern: 'typo' })).toThrow('description for "patern"');
    expect(() => describeFields(z.object({ a: z.string() }), { a: 'fine' })).not.toThrow();
  });
});
