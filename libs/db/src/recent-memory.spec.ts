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

  it('keeps what a repeat scan looks up again: a working set under the capacity stays whole', () => {
    const memory = new RecentMemory<number, number>(100);
    for (let key = 0; key < 80; key++) memory.set(key, key);
    for (let round = 0; round < 5; round++) {
      for (let key = 0; key < 80; key++) expect(memory.get(key)).toBe(key);
      // New blobs of each re-scan come and go: the ones every scan asks for are kept over them.
      for (let key = 1000 + round * 10; key < 1010 + round * 10; key++) memory.set(key, key);
    }
    // Evictions come in batches: between fifteen sixteenths of the capacity and all of it.
    expect(memory.size).toBeLessThanOrEqual(100);
    expect(memory.size).toBeGreaterThanOrEqual(94);
    for (let key = 0; key < 80; key++) expect(memory.has(key)).toBe(true);
  });

  it('remembers nothing with capacity 0', () => {
    const memory = new RecentMemory<string, number>(0);
    memory.set('a', 1);
    expect(memory.get('a')).toBeUndefined();
  });

  it('recalls what it remembers of a list into a map, and returns the rest', () => {
    const memory = new RecentMemory<string, number>(10);
    memory.set('a', 1);
    memory.set('c', 3);
    const found = new Map<string, number>();
    expect(memory.recall(['a', 'b', 'c', 'd'], found)).toEqual(['b', 'd']);
    expect(found).toEqual(new Map([['a', 1], ['c', 3]]));
  });
});
