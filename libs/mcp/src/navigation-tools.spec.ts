import { z } from 'zod';
import { QuarryError, navigationInputSchema, type NavigationInput, type ReferencesResult } from '@quarry/contracts';
import type { QuarryBackend } from './backend';
import { BackendEndpoint } from './backend-endpoint';
import { NAVIGATION_TOOLS, NAVIGATION_TOOL_LIMIT } from './navigation-tools';
import { ToolTable } from './tool-table';

/** What each query reads of the navigation contract (checkNavigationRequest's rules), written out independently of the tools. */
const EXPECTED: Record<string, { fields: string[]; required: string[]; direction?: string[] }> = {
  find_references: { fields: ['symbol', 'limit', 'guessed'], required: ['symbol'] },
  go_to_definition: { fields: ['symbol'], required: ['symbol'] },
  call_graph: { fields: ['symbol', 'depth', 'limit'], required: ['symbol', 'direction'], direction: ['callers', 'callees'] },
  file_outline: { fields: ['path'], required: ['path'] },
  file_imports: { fields: ['path'], required: ['path', 'direction'], direction: ['imports', 'importedBy'] },
  change_impact: { fields: ['diff', 'since', 'workingTree', 'depth', 'limit'], required: [] },
};

const fieldSchema = (type: z.ZodType) => {
  const { description: _description, $schema: _schema, ...rest } = z.toJSONSchema(type, { io: 'input' }) as Record<string, unknown>;
  return rest;
};

describe('the navigation tools', () => {
  it('take their fields from the navigation contract, with the same constraints, `root`/`source` as `repository`/`ref` and the query as `direction`', () => {
    expect(NAVIGATION_TOOLS.map((tool) => tool.name).sort()).toEqual(Object.keys(EXPECTED).sort());
    const contract = navigationInputSchema.shape as Record<string, z.ZodType>;
    for (const tool of NAVIGATION_TOOLS) {
      const expected = EXPECTED[tool.name];
      const shape = tool.input.shape as Record<string, z.ZodType>;
      // A paged tool (a long list: references, an outline) also takes the answer's budget and cursor.
      const fields = ['repository', 'ref', ...expected.fields, ...(expected.direction ? ['direction'] : []), ...(tool.paged ? ['maxTokens', 'cursor'] : [])];
      expect({ tool: tool.name, fields: Object.keys(shape).sort() }).toEqual({ tool: tool.name, fields: fields.sort() });
      for (const field of expected.fields) expect({ tool: tool.name, field, schema: fieldSchema(shape[field]) }).toEqual({ tool: tool.name, field, schema: fieldSchema(contract[field]) });
      if (expected.direction) expect(fieldSchema(shape.direction)).toEqual({ type: 'string', enum: expected.direction });
      const listed = z.toJSONSchema(tool.input, { io: 'input' }) as { required?: string[] };
      expect({ tool: tool.name, required: (listed.required ?? []).sort() }).toEqual({ tool: tool.name, required: [...expected.required].sort() });
    }
  });

  it('keeps each description short: the default tool list has a token budget', () => {
    for (const tool of new ToolTable(NAVIGATION_TOOLS, ['navigation']).list()) expect({ tool: tool.name, long: (tool.description ?? '').length > 450 }).toEqual({ tool: tool.name, long: false });
  });
});

describe('a navigation tool call', () => {
  const source = { path: '/repo', ref: null, commit: 'c0ffee' };
  const result: ReferencesResult & { source: typeof source } = {
    symbol: { path: 'src/server.ts', name: 'start', kind: 'method', line: 2, startLine: 2, endLine: 4, signature: 'start(port: number)', container: 'Server' },
    alternatives: [],
    references: [
      { path: 'src/main.ts', line: 3, column: 8, text: 'server.start(80);', call: true, resolution: 'import', ambiguous: false },
      { path: 'src/main.ts', line: 4, column: 1, text: 'server.start(81);', call: true, resolution: 'import', ambiguous: false, enclosing: { name: 'main', kind: 'function', line: 4 } },
      { path: 'test/server.spec.ts', line: 2, column: 33, text: 'it("starts", () => new Server().start(1));', call: true, resolution: 'member', ambiguous: true },
    ],
    total: 3,
    guessed: 1,
    truncated: false,
    files: 2,
    source,
  };

  function endpoint(answer: (input: NavigationInput) => unknown = () => result) {
    const asked: NavigationInput[] = [];
    const backend = {
      defaultRepository: '/repo',
      navigate: async (input: NavigationInput, options: { onProgress(progress: { stage: string; done: number }): void }) => {
        asked.push(input);
        options.onProgress({ stage: 'index', done: 1 });
        return answer(input);
      },
    } as unknown as QuarryBackend;
    return { endpoint: new BackendEndpoint(backend, { tools: new ToolTable().withToolsets(['navigation']) }), asked };
  }
  const call = { signal: new AbortController().signal };

  it('asks for the query with the default repository and the tool\'s default limit, and answers the uses grouped by file', async () => {
    const { endpoint: server, asked } = endpoint();
    const answer = await server.callTool('find_references', { symbol: 'Server.start' }, call);
    expect(asked).toEqual([{ root: '/repo', query: 'references', symbol: 'Server.start', limit: NAVIGATION_TOOL_LIMIT }]);
    expect(answer.isError ? answer.content : undefined).toBeUndefined();
    expect(answer.structuredContent).toMatchObject({ total: 3, files: 2, source });
    expect((answer.content[0] as { text: string }).text).toBe(
      [
        'Server.start (method) at src/server.ts:2: 3 uses in 2 files (1 guessed)',
        'src/main.ts',
        '  3:8  server.start(80);',
        '  4:1  server.start(81);  [in main]',
        'test/server.spec.ts',
        '  2:33  it("starts", () => new Server().start(1));  (ambiguous, guessed)',
      ].join('\n'),
    );
  });

  it('turns direction into the query, a git URL into a source, and names the commit read', async () => {
    const callGraph = { symbol: result.symbol, alternatives: [], direction: 'callees', depth: 2, entries: [], truncated: false, source: { git: 'https://example.org/r.git', ref: 'main', commit: 'c0ffee' } };
    const { endpoint: server, asked } = endpoint(() => callGraph);
    const answer = await server.callTool('call_graph', { repository: 'https://example.org/r.git', ref: 'main', symbol: 'Server.start', direction: 'callees', depth: 2 }, call);
    expect(asked).toEqual([{ source: { git: 'https://example.org/r.git', ref: 'main' }, query: 'callees', symbol: 'Server.start', depth: 2 }]);
    expect((answer.content[0] as { text: string }).text).toContain('calls nothing defined in the tree\n(at commit c0ffee)');
  });

  it.each([
    ['find_references', {}, 'input_invalid', 'arguments.symbol'],
    ['call_graph', { symbol: 'x' }, 'input_invalid', 'arguments.direction'],
    ['call_graph', { symbol: 'x', direction: 'upward' }, 'input_invalid', 'arguments.direction'],
    ['file_outline', { path: 'a.ts', depth: 2 }, 'input_invalid', 'no argument "depth"'],
  ])('refuses %s %j before asking: %s', async (tool, args, kind, message) => {
    const { endpoint: server, asked } = endpoint();
    const answer = await server.callTool(tool, args, call);
    expect(answer.isError).toBe(true);
    expect(JSON.parse((answer.content[0] as { text: string }).text)).toMatchObject({ kind, message: expect.stringContaining(message) });
    expect(asked).toEqual([]);
  });

  it('answers the backend\'s typed refusal as a tool error', async () => {
    const { endpoint: server } = endpoint(() => {
      throw new QuarryError('symbol_not_found', 'No definition of "Sever.start" in this repository.', { suggestion: 'Did you mean Server.start?' });
    });
    const answer = await server.callTool('find_references', { symbol: 'Sever.start' }, call);
    expect(answer.isError).toBe(true);
    expect(JSON.parse((answer.content[0] as { text: string }).text)).toEqual({ kind: 'symbol_not_found', message: 'No definition of "Sever.start" in this repository.', suggestion: 'Did you mean Server.start?' });
  });
});
