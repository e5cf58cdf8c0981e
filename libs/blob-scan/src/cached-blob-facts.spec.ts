import { MemoryBlobFacts, type BlobFact, type BlobFactStore } from './blob-facts';
import { CachedBlobFacts } from './cached-blob-facts';

/** A store that counts which blobs it was asked about. */
function countingStore(): { store: BlobFactStore; asked: string[]; memory: MemoryBlobFacts } {
  const memory = new MemoryBlobFacts();
  const asked: string[] = [];
  return {
    memory,
    asked,
    store: {
      lookup: async (blobs) => {
        asked.push(...blobs);
        return memory.lookup(blobs);
      },
      record: (facts) => memory.record(facts),
    },
  };
}

const text = (blob: string, bytes: number, lines: number): BlobFact => ({ blob, kind: 'text', bytes, lines });

describe('CachedBlobFacts', () => {
  it('asks the store only about blobs it has not seen, and answers the same facts', async () => {
    const { store, asked, memory } = countingStore();
    await memory.record([text('a', 10, 2), { blob: 'b', kind: 'binary' }, text('big', 3 * 2 ** 31, 2 ** 22)]);
    const cached = new CachedBlobFacts(store);
    const first = await cached.lookup(['a', 'b', 'big', 'absent']);
    expect(first).toEqual(await memory.lookup(['a', 'b', 'big']));
    expect(asked).toEqual(['a', 'b', 'big', 'absent']);
    asked.length = 0;
    expect(await cached.lookup(['a', 'b', 'big', 'absent'])).toEqual(first);
    // Known facts come from memory; what is too big to pack and what was absent are asked again.
    expect(asked).toEqual(['big', 'absent']);
  });

  it('remembers what it wrote, still returning what the store says was new', async () => {
    const { store, asked } = countingStore();
    const cached = new CachedBlobFacts(store);
    expect(await cached.record([text('x', 5, 1), text('y', 0, 0)])).toBe(2);
    expect(await cached.record([text('x', 5, 1)])).toBe(0);
    expect(await cached.lookup(['x', 'y'])).toEqual(new Map([['x', { kind: 'text', bytes: 5, lines: 1 }], ['y', { kind: 'text', bytes: 0, lines: 0 }]]));
    expect(asked).toEqual([]);
  });

  it('is bounded (oldest out first) and one per store', async () => {
    const { store, asked } = countingStore();
    const cached = new CachedBlobFacts(store, 2);
    await cached.record([text('1', 1, 1), text('2', 2, 1), text('3', 3, 1)]);
    expect(cached.size).toBe(2);
    await cached.lookup(['1', '2', '3']);
    expect(asked).toEqual(['1']);
    expect(CachedBlobFacts.over(store)).toBe(CachedBlobFacts.over(store));
    expect(CachedBlobFacts.over(cached)).toBe(cached);
  });
});
