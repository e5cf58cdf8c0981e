import { StateMemory, type ScanStateStore } from './scan-memory';
import { jsonStore } from './testing/json-state-store';

const identity = (json: unknown) => json as { n: number };

describe('StateMemory', () => {
  it('gives a state held in memory once, for its commit, and keeps the last few', async () => {
    const memory = new StateMemory(undefined, { entries: 2 });
    await memory.keep({ repository: 'a', kind: 'k', commit: 'c1' }, { n: 1 }, (state) => state);
    expect(await memory.take({ repository: 'a', kind: 'k', commit: 'c0' }, identity)).toBeUndefined();
    expect(await memory.take({ repository: 'a', kind: 'other', commit: 'c1' }, identity)).toBeUndefined();
    expect(await memory.take({ repository: 'a', kind: 'k', commit: 'c1' }, identity)).toEqual({ n: 1 });
    // Taken: a second job on the same commit starts afresh rather than updating the same objects.
    expect(await memory.take({ repository: 'a', kind: 'k', commit: 'c1' }, identity)).toBeUndefined();
    await memory.keep({ repository: 'a', kind: 'k', commit: 'c2' }, { n: 2 }, (state) => state);
    await memory.keep({ repository: 'b', kind: 'k', commit: 'b1' }, { n: 3 }, (state) => state);
    await memory.keep({ repository: 'c', kind: 'k', commit: 'd1' }, { n: 4 }, (state) => state);
    expect(await memory.take({ repository: 'a', kind: 'k', commit: 'c2' }, identity)).toBeUndefined();
    expect(await memory.take({ repository: 'c', kind: 'k', commit: 'd1' }, identity)).toEqual({ n: 4 });
  });

  it('finds in the store what another worker kept, as a copy, and survives a store that fails', async () => {
    const store = jsonStore();
    const one = new StateMemory(store);
    const other = new StateMemory(store);
    const state = { n: 1 };
    await one.keep({ repository: 'a', kind: 'k', commit: 'c1' }, state, (kept) => ({ stored: kept.n }));
    const decoded = await other.take({ repository: 'a', kind: 'k', commit: 'c1' }, (json) => ({ n: (json as { stored: number }).stored }));
    expect(decoded).toEqual({ n: 1 });
    expect(decoded).not.toBe(state);
    // A state the decoder refuses (another version's) is a miss.
    expect(await other.take({ repository: 'a', kind: 'k', commit: 'c1' }, () => undefined)).toBeUndefined();
    // Another version's states are not read.
    await one.keep({ repository: 'a', kind: 'k', commit: 'c3' }, state, (kept) => kept);
    expect(await new StateMemory(store, { version: '2.0.0' }).take({ repository: 'a', kind: 'k', commit: 'c3' }, identity)).toBeUndefined();
    await new StateMemory(store, { version: '2.0.0' }).keep({ repository: 'a', kind: 'k', commit: 'c4' }, { n: 4 }, (kept) => kept);
    expect(await new StateMemory(store, { version: '2.0.0' }).take({ repository: 'a', kind: 'k', commit: 'c4' }, identity)).toEqual({ n: 4 });
    const failing: ScanStateStore = { load: async () => Promise.reject(new Error('down')), save: async () => Promise.reject(new Error('down')) };
    const unlucky = new StateMemory(failing);
    await expect(unlucky.keep({ repository: 'a', kind: 'k', commit: 'c2' }, state, (kept) => kept)).resolves.toBeUndefined();
    expect(await new StateMemory(failing).take({ repository: 'a', kind: 'k', commit: 'c2' }, identity)).toBeUndefined();
  });
});
