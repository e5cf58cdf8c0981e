import { isWaitingOnDisk, measureFiles, shouldReadConcurrently, SLICE_MS } from './adaptive-reader';
import type { FileMeasure } from './file-measure';
import { makeTempTree, removeTempTree, type TreeSpec } from './testing/temp-tree';

describe('isWaitingOnDisk', () => {
  it('calls page-cache speed warm', () => {
    // Measured warm on the benchmark tree: ~900 small files per 10 ms slice.
    expect(isWaitingOnDisk({ files: 900, bytes: 3_000_000, elapsedMs: SLICE_MS })).toBe(false);
    // A busy machine running at half speed is still warm.
    expect(isWaitingOnDisk({ files: 450, bytes: 1_500_000, elapsedMs: SLICE_MS })).toBe(false);
    // One large file streamed at ~1 GB/s.
    expect(isWaitingOnDisk({ files: 1, bytes: 12_000_000, elapsedMs: 12 })).toBe(false);
  });

  it('calls ~100 µs per small file the disk', () => {
    expect(isWaitingOnDisk({ files: 100, bytes: 350_000, elapsedMs: SLICE_MS })).toBe(true);
  });

  it('says nothing from an empty or short slice', () => {
    expect(isWaitingOnDisk({ files: 0, bytes: 0, elapsedMs: 50 })).toBe(false);
    expect(isWaitingOnDisk({ files: 1, bytes: 10, elapsedMs: 1 })).toBe(false);
  });
});

describe('shouldReadConcurrently', () => {
  // A VM's warm slice: 25 µs per small file, over three times the model.
  const slowWarmSlice = { files: 400, bytes: 400_000, elapsedMs: SLICE_MS };

  it('goes concurrent when a slice looks like disk waits and nothing says concurrency is slower', () => {
    expect(shouldReadConcurrently(slowWarmSlice, undefined)).toBe(true);
    // The last concurrent batch ran at ~15 µs per file: faster, so concurrency again.
    expect(shouldReadConcurrently(slowWarmSlice, { files: 1024, bytes: 1_000_000, elapsedMs: 15 })).toBe(true);
  });

  it('stays blocking when the last concurrent batch was slower per file than the slow slice', () => {
    // ~40 µs per file through the thread pool, against 25 blocking: the machine, not the disk.
    expect(shouldReadConcurrently(slowWarmSlice, { files: 1024, bytes: 1_000_000, elapsedMs: 40 })).toBe(false);
  });

  it('goes concurrent again once blocking slices get slower than that batch (the cache went cold)', () => {
    const coldSlice = { files: 50, bytes: 100_000, elapsedMs: SLICE_MS };
    expect(shouldReadConcurrently(coldSlice, { files: 1024, bytes: 1_000_000, elapsedMs: 40 })).toBe(true);
  });

  it('stays blocking at page-cache speed whatever concurrency did', () => {
    expect(shouldReadConcurrently({ files: 900, bytes: 3_000_000, elapsedMs: SLICE_MS }, undefined)).toBe(false);
  });
});

describe('measureFiles', () => {
  let root: string | undefined;
  afterEach(async () => {
    await removeTempTree(root);
    root = undefined;
  });

  const files: TreeSpec = {};
  for (let index = 0; index < 2500; index++) files[`d${index % 13}/f${index}.txt`] = `${'x\n'.repeat(index % 7)}`;
  let tree: string | undefined;
  beforeAll(async () => {
    tree = await makeTempTree(files);
  });
  afterAll(async () => removeTempTree(tree));

  it.each(['auto', 'blocking', 'concurrent'] as const)('measures every file exactly once (%s)', async (strategy) => {
    const seen = new Map<string, FileMeasure>();
    await measureFiles(tree as string, [...Object.keys(files), 'missing.txt'], (relative, measure) => {
      expect(seen.has(relative)).toBe(false);
      seen.set(relative, measure);
    }, { strategy });
    expect(seen.size).toBe(2501);
    expect(seen.get('d0/f0.txt')).toEqual({ kind: 'text', bytes: 0, lines: 0 });
    expect(seen.get('d2/f2498.txt')).toEqual({ kind: 'text', bytes: 12, lines: 6 });
    expect(seen.get('missing.txt')).toEqual({ kind: 'unreadable' });
  });

  it.each(['blocking', 'concurrent'] as const)('measures a file no longer of the expected size or mtime as unreadable (%s)', async (strategy) => {
    root = await makeTempTree({ 'same.txt': 'a\n', 'grown.txt': 'a\nb\n', 'touched.txt': 'a\n', 'big.txt': 'x\n'.repeat(100_000), 'free.txt': 'a\n' });
    const { statSync } = await import('node:fs');
    const stat = (name: string) => ({ bytes: statSync(`${root}/${name}`).size, mtimeMs: Math.floor(statSync(`${root}/${name}`).mtimeMs) });
    const expected: Record<string, { bytes: number; mtimeMs: number }> = {
      'same.txt': stat('same.txt'),
      'grown.txt': { ...stat('grown.txt'), bytes: 2 },
      'touched.txt': { ...stat('touched.txt'), mtimeMs: stat('touched.txt').mtimeMs - 1_000 },
      'big.txt': stat('big.txt'),
    };
    const seen: Record<string, FileMeasure['kind']> = {};
    await measureFiles(root, Object.keys(expected).concat('free.txt'), (relative, measure) => (seen[relative] = measure.kind), { strategy, expect: (relative) => expected[relative] });
    expect(seen).toEqual({ 'same.txt': 'text', 'grown.txt': 'unreadable', 'touched.txt': 'unreadable', 'big.txt': 'text', 'free.txt': 'text' });
  });

  it.each(['blocking', 'concurrent'] as const)('measures a file larger than a chunk that grew or shrank since its expected size as unreadable (%s)', async (strategy) => {
    root = await makeTempTree({ 'grew.txt': 'x\n'.repeat(100_000), 'shrank.txt': 'x\n'.repeat(100_000) });
    const { statSync } = await import('node:fs');
    const mtimeMs = (name: string) => Math.floor(statSync(`${root}/${name}`).mtimeMs);
    const expected: Record<string, { bytes: number; mtimeMs: number }> = {
      'grew.txt': { bytes: 150_000, mtimeMs: mtimeMs('grew.txt') },
      'shrank.txt': { bytes: 250_000, mtimeMs: mtimeMs('shrank.txt') },
    };
    const seen: Record<string, FileMeasure['kind']> = {};
    await measureFiles(root, Object.keys(expected), (relative, measure) => (seen[relative] = measure.kind), { strategy, expect: (relative) => expected[relative] });
    expect(seen).toEqual({ 'grew.txt': 'unreadable', 'shrank.txt': 'unreadable' });
  });

  it('lets the event loop run while it reads in blocking slices', async () => {
    const large: TreeSpec = {};
    for (let index = 0; index < 200; index++) large[`f${index}.txt`] = 'line\n'.repeat(20_000); // 100 KB each
    root = await makeTempTree(large);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const started = performance.now();
    await measureFiles(root, Object.keys(large), () => undefined, { strategy: 'blocking' });
    clearInterval(timer);
    const elapsed = performance.now() - started;
    // At least one timer turn per two slices, however fast the machine.
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / (2 * SLICE_MS)));
  });
});
