import type { Definition } from '../symbols/symbol-types';
import { MAX_SYMBOL_LENGTH, SymbolTable, parseSymbolQuery } from './symbol-table';

const def = (kind: Definition['kind'], name: string, line: number, container?: string): Definition => ({
  kind,
  name,
  line,
  startLine: line,
  endLine: line + 2,
  signature: `${kind} ${name}`,
  ...(container === undefined ? {} : { container }),
});

const table = SymbolTable.from([
  { path: 'src/server.ts', definitions: [def('class', 'Server', 1), def('method', 'start', 3, 'Server'), def('method', 'stop', 9, 'Server')], references: [['Client', 2]] },
  { path: 'src/client.ts', definitions: [def('class', 'Client', 1), def('method', 'start', 4, 'Client')], references: [['Server', 5], ['start', 2]] },
  { path: 'src/util.ts', definitions: [def('function', 'parseConfig', 1), def('function', 'server', 10)], references: [['start', 7], ['parseConfig', 1]] },
  { path: 'lib/legacy.ts', definitions: [def('function', 'parseconfig', 3)], references: [] },
]);

describe('SymbolTable', () => {
  it('finds Name with exact case first, then by references', () => {
    expect(table.lookup('Server').map((m) => `${m.path}:${m.definition.line} ${m.exactCase} ${m.references}`)).toEqual([
      'src/server.ts:1 true 5',
      'src/util.ts:10 false 0',
    ]);
    expect(table.lookup('parseConfig').map((m) => m.path)).toEqual(['src/util.ts', 'lib/legacy.ts']);
    expect(table.lookup('parseconfig').map((m) => m.path)).toEqual(['lib/legacy.ts', 'src/util.ts']);
  });

  it('ranks several exact matches by how often the name is used, then by path', () => {
    expect(table.lookup('start').map((m) => `${m.definition.container}.${m.definition.name} ${m.references}`)).toEqual(['Client.start 9', 'Server.start 9']);
  });

  it('finds Class.method, Ns::Class::method and other separators', () => {
    for (const query of ['Server.start', 'Server::start', 'app::Server::start', 'Server#start']) {
      expect(table.lookup(query).map((m) => `${m.path}:${m.definition.line}`)).toEqual(['src/server.ts:3']);
    }
    expect(table.lookup('server.START').map((m) => m.exactCase)).toEqual([false]);
  });

  it('says where a name is when the container is wrong', () => {
    expect(() => table.lookup('Server.stat')).toThrow(
      expect.objectContaining({ kind: 'symbol_not_found', suggestion: 'Did you mean @symbol:Server.start, @symbol:Server.stop?' }),
    );
    expect(() => table.lookup('Missing.start')).toThrow(
      expect.objectContaining({ kind: 'symbol_not_found', suggestion: expect.stringMatching(/"Server".*"Client"|"Client".*"Server"/) }),
    );
  });

  it('suggests the closest defined names for a miss', () => {
    expect(() => table.lookup('Sever')).toThrow(expect.objectContaining({ kind: 'symbol_not_found', suggestion: 'Did you mean @symbol:Server, @symbol:server?' }));
    expect(() => table.lookup('parsConfig')).toThrow(expect.objectContaining({ suggestion: expect.stringContaining('@symbol:parseConfig') }));
    expect(() => table.lookup('zzzzzzzz')).toThrow(expect.objectContaining({ kind: 'symbol_not_found', suggestion: expect.stringContaining('@search:') }));
  });

  it('refuses input that cannot be a name with a typed error', () => {
    for (const bad of ['', '   ', 'x'.repeat(MAX_SYMBOL_LENGTH + 1), '(a+)+$', 'a b', 'foo()', '...', 'x\u0000y']) {
      expect(() => table.lookup(bad)).toThrow(expect.objectContaining({ kind: 'symbol_invalid', suggestion: expect.any(String) }));
    }
  });

  it('limits the number of matches', () => {
    const many = SymbolTable.from([{ path: 'a.c', definitions: Array.from({ length: 50 }, (_, i) => def('function', 'f', i + 1)), references: [] }]);
    expect(many.lookup('f')).toHaveLength(20);
    expect(many.lookup('f', { limit: 3 }).map((m) => m.definition.line)).toEqual([1, 2, 3]);
  });

  it('parses queries', () => {
    expect(parseSymbolQuery(' Foo.bar ')).toEqual({ name: 'bar', container: 'Foo' });
    expect(parseSymbolQuery('App\\Models\\User')).toEqual({ name: 'User', container: 'Models' });
    expect(parseSymbolQuery('~Shape')).toEqual({ name: '~Shape' });
  });
});
