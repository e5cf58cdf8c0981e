import type { WorkingTreeState } from '@quarry/snapshot';
import { IndexStates, searchIndexStateOf } from './index-states';

const tree: WorkingTreeState = { root: '/repo', commit: 'c1', kind: 'git', changes: [{ path: 'a.ts', status: 'modified', blob: 'b' }], version: 'v', watching: true, files: new Map(), head: new Map() };

describe('IndexStates', () => {
  it('names the commit, the files changed since, the coverage and whether a build runs', async () => {
    const states = new IndexStates({ workingTree: async () => tree, coverage: async () => ({ coverage: 0.12345, building: true }) });
    expect(await states.state({ root: '/repo' }, { read: 'files' })).toEqual({ commit: 'c1', dirty: 1, coverage: 0.123, building: true, read: 'files' });
    expect(await states.state({ source: { git: 'https://h/r.git' } }, { commit: 'c2', read: 'index' })).toEqual({ commit: 'c2', dirty: 0, coverage: 0.123, building: true, read: 'index' });
    expect(await states.state({ source: { git: 'https://h/r.git' } }, { read: 'index' })).toBeUndefined();
  });

  it('does not hold an answer for the first walk of a large tree: it names HEAD and says the state is building', async () => {
    const states = new IndexStates(
      { workingTree: () => new Promise(() => undefined), headOf: async () => 'head', coverage: async () => ({ coverage: 1, building: false }) },
      undefined,
      50,
    );
    expect(await states.state({ root: '/huge' }, { read: 'files' })).toEqual({ commit: 'head', dirty: 0, coverage: 0, building: true, read: 'files' });
  });

  it('says a checkout\'s search index builds (building: true, its progress) and when it is ready', async () => {
    let status: Parameters<typeof searchIndexStateOf>[0] = { commit: 'c1', state: 'building', progress: { blobs: 200, blobsDone: 50 } };
    const states = new IndexStates({ workingTree: async () => tree, coverage: async () => ({ coverage: 1, building: false }), searchIndex: (_root, commit) => searchIndexStateOf(status, commit) });
    expect(await states.state({ root: '/repo' }, { read: 'files' })).toEqual({ commit: 'c1', dirty: 1, coverage: 1, building: true, read: 'files', searchIndex: { state: 'building', progress: 0.25 } });
    status = { commit: 'c1', state: 'ready' };
    expect(await states.state({ root: '/repo' }, { read: 'index' })).toEqual({ commit: 'c1', dirty: 1, coverage: 1, building: false, read: 'index', searchIndex: { state: 'ready' } });
    // An index of another commit (HEAD moved since) says nothing of this one; one that cannot be had is `none`.
    status = { commit: 'old', state: 'ready' };
    expect((await states.state({ root: '/repo' }, { read: 'files' }))?.searchIndex).toBeUndefined();
    expect(searchIndexStateOf({ commit: 'c1', state: 'unsupported' }, 'c1')).toEqual({ state: 'none' });
    expect(searchIndexStateOf({ commit: 'c1', state: 'failed' }, 'c1')).toEqual({ state: 'none' });
  });

  it('leaves the state out rather than fail the answer', async () => {
    const errors: unknown[] = [];
    const states = new IndexStates({ workingTree: async () => Promise.reject(new Error('gone')), coverage: async () => ({ coverage: 1, building: false }) }, (error) => errors.push(error));
    expect(await states.state({ root: '/repo' }, { read: 'files' })).toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});
