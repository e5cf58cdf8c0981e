import { RecentMemory } from './recent-memory';

describe('RecentMemory', () => {
  it('keeps the most recently used entries up to its capacity', () => {
    const memory = new RecentMemory<string, number>(2);
    memory.set('a', 1);
    memory.set('b', 2);
    expect(memory.get('a')).toBe(1); // a is now the most recent: b goes first
    memory.set('c', 3);
    expect([memory.has('a'), memory.has('b'), memory.has('c')]).toEqual([true, false, true]);
    expect(memory.size).toBe(2);
  });

  it('remembers nothing with capacity 0', () => {
    const memory = new RecentMemory<string, number>(0);
    memory.set('a', 1);
    expect(memory.get('a')).toBeUndefined();
  });
});
