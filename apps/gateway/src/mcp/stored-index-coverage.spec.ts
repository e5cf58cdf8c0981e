import { blobIndexKey, type BlobIndexKey, type BlobIndexStore } from '@quarry/code-index';
import type { JobView } from '@quarry/contracts';
import type { WorkingTreeState } from '@quarry/snapshot';
import { StoredIndexCoverage } from './stored-index-coverage';

/** A store that has rows for some blobs, and counts the keys it was asked about. */
function store(withRows: Set<string>) {
  const asked: string[] = [];
  const fake: BlobIndexStore = {
    briefs: async (keys: readonly BlobIndexKey[]) => {
      asked.push(...keys.map((key) => key.blob));
      return new Map(keys.filter((key) => withRows.has(key.blob)).map((key) => [blobIndexKey(key.blob, key.variant), {} as never]));
    },
    load: async () => new Map(),
    loadChunks: async () => new Map(),
    record: async () => 0,
    recordEncoded: async () => 0,
  };
  return { fake, asked };
}

function tree(files: Record<string, string>, changes: WorkingTreeState['changes'] = [], version = 'v1'): WorkingTreeState {
  return { root: '/repo', commit: 'c1', kind: 'git', changes, version, watching: true, files: new Map(Object.entries(files)), head: new Map() };
}

const scanOf = (input: Record<string, unknown>, progress = { stage: 'reading', done: 25, total: 100 }): JobView =>
  ({ id: 'j', kind: 'scan', status: 'running', input, progress }) as unknown as JobView;

describe('StoredIndexCoverage', () => {
  it('covers a commit of a URL once its search manifest exists; while its scan runs, by the scan\'s progress', async () => {
    const { fake } = store(new Set());
    let scans: JobView[] = [];
    const manifests = new Map<string, unknown>([['done', {}]]);
    const coverage = new StoredIndexCoverage(fake, { manifest: async (commit) => manifests.get(commit) }, async () => scans);
    expect(await coverage.coverage({ git: 'https://h/r.git', commit: 'done' })).toEqual({ coverage: 1, building: false });
    expect(await coverage.coverage({ git: 'https://h/r.git', commit: 'other' })).toEqual({ coverage: 0, building: false });
    scans = [scanOf({ source: { git: 'https://h/r.git' } })];
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the running scans' reuse
    expect(await coverage.coverage({ git: 'https://h/r.git', commit: 'other' })).toEqual({ coverage: 0.25, building: true });
  });

  it('covers a directory by the share of its blobs with rows, looking up the commit\'s blobs once and an edit\'s alone', async () => {
    const { fake, asked } = store(new Set(['b1', 'b2', 'b4']));
    const coverage = new StoredIndexCoverage(fake, { manifest: async () => undefined }, async () => []);
    const clean = tree({ 'a.ts': 'b1', 'b.ts': 'b2', 'c.ts': 'b3', 'd.ts': 'b4' });
    expect(await coverage.coverage({ root: '/repo', tree: clean })).toEqual({ coverage: 0.75, building: false });
    expect(asked.sort()).toEqual(['b1', 'b2', 'b3', 'b4']);
    // c.ts edited: its new blob has no row yet; only it is looked up.
    asked.length = 0;
    const edited = tree({ 'a.ts': 'b1', 'b.ts': 'b2', 'c.ts': 'b5', 'd.ts': 'b4' }, [{ path: 'c.ts', status: 'modified', blob: 'b5' }], 'v2');
    expect(await coverage.coverage({ root: '/repo', tree: edited })).toEqual({ coverage: 0.75, building: false });
    expect(asked).toEqual(['b5']);
    // The same state again: nothing looked up.
    asked.length = 0;
    await coverage.coverage({ root: '/repo', tree: edited });
    expect(asked).toEqual([]);
  });

  it('says building while a scan of the directory runs', async () => {
    const { fake } = store(new Set());
    const coverage = new StoredIndexCoverage(fake, { manifest: async () => undefined }, async () => [scanOf({ root: '/repo' })]);
    expect(await coverage.coverage({ root: '/repo', tree: tree({ 'a.ts': 'b1' }) })).toEqual({ coverage: 0, building: true });
  });
});
