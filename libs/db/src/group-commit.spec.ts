import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('writes a lone item at once, and items that arrive while a write is in flight together in the next one', async () => {
    const writes: number[][] = [];
    let release: () => void = () => undefined;
    const commit = new GroupCommit<number, string>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items.map((item) => `#${item}`);
    });
    const first = commit.submit(1);
    await Promise.resolve();
    const rest = [2, 3, 4].map((item) => commit.submit(item));
    release();
    expect(await first).toBe('#1');
    expect(await Promise.all(rest)).toEqual(['#2', '#3', '#4']);
    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it('caps a write at maxBatch items', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number, number>(async (items) => (sizes.push(items.length), items), 2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((item) => commit.submit(item)))).toEqual([1, 2, 3, 4, 5]);
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('fails only the item the store refuses: a failed batch is written again one item at a time', async () => {
    const commit = new GroupCommit<string, string>(async (items) => {
      if (items.includes('bad')) throw new Error('refused');
      return items.map((item) => item.toUpperCase());
    });
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((item) => commit.submit(item)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('refused') },
      { status: 'fulfilled', value: 'C' },
    ]);
  });
});
