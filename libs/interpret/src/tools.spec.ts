import { z } from 'zod';
import { defaultToolRegistry, READ_ONLY_TOOLS, requiredArgs, ToolRegistry } from './tools';

describe('tool registry', () => {
  it('holds the read-only tools: the seven of issue 6 and find_relevant_code of issue 30', () => {
    const registry = defaultToolRegistry();
    expect(registry.names()).toEqual(['list_files', 'find_files', 'read_file', 'search', 'grep', 'detect_stack', 'find_relevant_code', 'fetch_url']);
    expect(registry.list().every((tool) => tool.mutates === false)).toBe(true);
  });

  it('knows which arguments are required', () => {
    const required = Object.fromEntries(READ_ONLY_TOOLS.map((tool) => [tool.name, requiredArgs(tool)]));
    expect(required).toEqual({
      list_files: ['directory'],
      find_files: ['pattern'],
      read_file: ['path'],
      search: ['query'],
      grep: ['pattern'],
      detect_stack: ['directory'],
      find_relevant_code: ['task'],
      fetch_url: ['url'],
    });
  });

  it('accepts extra tools, but not a duplicate name or a clashing argument type', () => {
    const registry = defaultToolRegistry();
    registry.register({ name: 'write_file', description: 'test', args: z.object({ path: z.string().min(1).max(4096), text: z.string() }), roles: { path: 'file', text: 'text' }, mutates: true });
    expect(registry.get('write_file')?.mutates).toBe(true);
    expect(registry.argumentTypes().has('text')).toBe(true);
    expect(() => registry.register({ ...READ_ONLY_TOOLS[0] })).toThrow(/already registered/);
    expect(() =>
      registry.register({ name: 'odd', description: 'test', args: z.object({ path: z.number() }), roles: { path: 'number' }, mutates: false }),
    ).toThrow(/different type/);
    expect(() => new ToolRegistry([]).register({ name: 'Bad Name', description: '', args: z.object({}), roles: {}, mutates: false })).toThrow(/must match/);
  });
});
