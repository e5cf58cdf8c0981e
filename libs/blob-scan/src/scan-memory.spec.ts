import { RepositoryMemory } from './scan-memory';

describe('RepositoryMemory', () => {
  it('gives a state once, for its commit and when it fits, and keeps the last few repositories', () => {
    const memory = new RepositoryMemory<{ commit: string; settings: string }>(2);
    memory.keep('a', { commit: 'c1', settings: 'x' });
    expect(memory.take('a', 'c0')).toBeUndefined();
    expect(memory.take('a', 'c1', (state) => state.settings === 'y')).toBeUndefined();
    expect(memory.take('a', 'c1')).toEqual({ commit: 'c1', settings: 'x' });
    // Taken: a second job on the same commit starts afresh rather than updating the same state.
    expect(memory.take('a', 'c1')).toBeUndefined();
    memory.keep('a', { commit: 'c2', settings: 'x' });
    memory.keep('b', { commit: 'b1', settings: 'x' });
    memory.keep('a', { commit: 'c3', settings: 'x' });
    memory.keep('c', { commit: 'd1', settings: 'x' });
    // 'b' was the least recently kept of three.
    expect(memory.take('b', 'b1')).toBeUndefined();
    expect(memory.take('a', 'c3')).toBeDefined();
    expect(memory.take('c', 'd1')).toBeDefined();
    const none = new RepositoryMemory<{ commit: string }>(0);
    none.keep('a', { commit: 'c1' });
    expect(none.take('a', 'c1')).toBeUndefined();
  });
});
