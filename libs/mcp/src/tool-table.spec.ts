import { z } from 'zod';
import { BUILT_KINDS, JOB_CONTRACTS, WORKSPACE_TOOL_CONTRACTS } from '@quarry/contracts';
import { describeFields, toolInputFrom } from './repository-argument';
import { QUARRY_TOOLS, ToolTable } from './tool-table';

const CONTRACT_OF: Record<string, z.ZodObject> = {
  expand_mentions: JOB_CONTRACTS.mentions.input,
  detect_stack: JOB_CONTRACTS.detect.input,
  scan_repository: JOB_CONTRACTS.scan.input,
  fetch_url: JOB_CONTRACTS.fetch.input,
  ask: JOB_CONTRACTS.interpret.input,
  find_symbol: JOB_CONTRACTS.symbols.input,
  repo_map: JOB_CONTRACTS.map.input,
  pack_repository: JOB_CONTRACTS.pack.input,
  ...Object.fromEntries(Object.entries(WORKSPACE_TOOL_CONTRACTS).map(([name, contract]) => [name, contract.input])),
};

describe('the tool table', () => {
  const table = new ToolTable();

  it('derives every tool input from its contract: the same fields, `root` and `source` as an optional `repository` and `ref`', () => {
    for (const spec of QUARRY_TOOLS) {
      const contract = CONTRACT_OF[spec.name];
      expect(contract).toBeDefined();
      const contractFields = Object.keys(contract.shape);
      const repositoryFields = new Set(['root', 'source']);
      const expected = contractFields.includes('root') ? ['repository', 'ref', ...contractFields.filter((field) => !repositoryFields.has(field))] : contractFields;
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

  it('refuses a field without a description, or a description of no field, when the table is built', () => {
    const contract = z.object({ root: z.string(), pattern: z.string() });
    expect(() => toolInputFrom(contract, {})).toThrow('field "pattern" has no description');
    expect(() => toolInputFrom(contract, { pattern: 'p', patern: 'typo' })).toThrow('description for "patern"');
    expect(() => describeFields(z.object({ a: z.string() }), { a: 'fine' })).not.toThrow();
  });
});
