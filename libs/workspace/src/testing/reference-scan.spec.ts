import { readdirSync, rmSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { scanResultSchema, type JobProgress } from '@quarry/contracts';
import { referenceScan } from './reference-scan';
import { addFiles, makeTempTree, removeTempTree, type TreeSpec } from './temp-tree';

const binaryWithNul = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0, 1, 2, 0])]);
const nulAfterIsBinaryFileLooks = Buffer.concat([Buffer.from('a'.repeat(1000)), Buffer.from([0]), Buffer.from('tail')]);

/** Sizes chosen by hand; the expectations below are exact. */
const KNOWN_TREE: TreeSpec = {
  '.gitignore': 'ignored/\n*.tmp\n', // 15 bytes, 2 lines
  'README.md': '# T\n\nhello\n', // 11 bytes, 3 lines
  'empty.txt': '', // 0 bytes, 0 lines
  LICENSE: 'MIT', // 3 bytes, 1 line (no trailing newline)
  'src/index.ts': 'a\nb\nc\n', // 6 bytes, 3 lines
  'src/util.ts': 'x\ny', // 3 bytes, 2 lines
  'src/deep/x.js': 'console.log(1)\n', // 15 bytes, 1 line
  'docs/guide.md': '\n\n\n\n', // 4 bytes, 4 lines
  'big/large.sql': `${'abcdefghi\n'.repeat(20_000)}end`, // 200,003 bytes (several chunks), 20,001 lines
  'assets/logo.gif': binaryWithNul, // binary
  'assets/data.bin': nulAfterIsBinaryFileLooks, // binary: a NUL within the first 8000 bytes
  'ignored/a.ts': 'ignored directory',
  'x.tmp': 'ignored file',
};

describe('referenceScan', () => {
  let root: string | undefined;
  afterEach(async () => {
    await removeTempTree(root);
    root = undefined;
  });

  it.each(['auto', 'blocking', 'concurrent'] as const)('sums files, bytes and lines per language and per top-level directory (%s reads)', async (readStrategy) => {
    root = await makeTempTree(KNOWN_TREE);
    await symlink('src', path.join(root, 'link'));
    const result = await referenceScan(root, { readStrategy });

    expect(() => scanResultSchema.parse(result)).not.toThrow();
    expect(result.root).toBe(root);
    expect(result.files).toBe(9);
    expect(result.bytes).toBe(15 + 11 + 0 + 3 + 6 + 3 + 15 + 4 + 200_003);
    expect(result.lines).toBe(2 + 3 + 0 + 1 + 3 + 2 + 1 + 4 + 20_001);
    expect(result.languages).toEqual([
      { language: 'SQL', files: 1, bytes: 200_003, lines: 20_001 },
      // equal bytes: by name
      { language: 'Ignore List', files: 1, bytes: 15, lines: 2 },
      { language: 'JavaScript', files: 1, bytes: 15, lines: 1 },
      { language: 'Markdown', files: 2, bytes: 15, lines: 7 },
      { language: 'TypeScript', files: 2, bytes: 9, lines: 5 },
      { language: 'Other', files: 1, bytes: 3, lines: 1 },
      { language: 'Text', files: 1, bytes: 0, lines: 0 },
    ]);
    expect(result.directories).toEqual([
      { path: 'big', files: 1, bytes: 200_003 },
      { path: '.', files: 4, bytes: 29 },
      { path: 'src', files: 3, bytes: 24 },
      { path: 'docs', files: 1, bytes: 4 },
    ]);
    expect(result.skipped).toEqual({ binary: 2, ignored: 2, symlinks: 1, unreadable: 0 });
    expect(Number.isInteger(result.durationMs)).toBe(true);
  });

  it('lists the largest text files, largest first, equal sizes by path', async () => {
    root = await makeTempTree(KNOWN_TREE);
    const result = await referenceScan(root);
    expect(result.largestFiles.map((file) => [file.path, file.bytes, file.language])).toEqual([
      ['big/large.sql', 200_003, 'SQL'],
      ['.gitignore', 15, 'Ignore List'],
      ['src/deep/x.js', 15, 'JavaScript'],
      ['README.md', 11, 'Markdown'],
      ['src/index.ts', 6, 'TypeScript'],
      ['docs/guide.md', 4, 'Markdown'],
      ['LICENSE', 3, 'Other'],
      ['src/util.ts', 3, 'TypeScript'],
      ['empty.txt', 0, 'Text'],
    ]);
    expect((await referenceScan(root, { largestFiles: 2 })).largestFiles.map((file) => file.path)).toEqual(['big/large.sql', '.gitignore']);
  });

  it('keeps at most 20 largest files, the contract limit', async () => {
    const files: TreeSpec = {};
    for (let index = 0; index < 30; index++) files[`f${String(index).padStart(2, '0')}.txt`] = 'x'.repeat(index + 1);
    root = await makeTempTree(files);
    const result = await referenceScan(root, { largestFiles: 50 });
    expect(result.largestFiles).toHaveLength(20);
    expect(result.largestFiles[0]).toEqual({ path: 'f29.txt', bytes: 30, language: 'Text' });
    expect(result.largestFiles[19]).toEqual({ path: 'f10.txt', bytes: 11, language: 'Text' });
  });

  it('reports listing, then reading once per file', async () => {
    root = await makeTempTree(KNOWN_TREE);
    const progress: JobProgress[] = [];
    await referenceScan(root, { onProgress: (update) => progress.push({ ...update }) });
    const stages = progress.map((update) => update.stage);
    expect(stages.indexOf('reading')).toBeGreaterThan(stages.lastIndexOf('listing'));
    const listing = progress.filter((update) => update.stage === 'listing');
    expect(listing[listing.length - 1].done).toBe(11); // 9 text + 2 binary files listed
    const reading = progress.filter((update) => update.stage === 'reading');
    expect(reading.map((update) => update.done)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(reading.every((update) => update.total === 11)).toBe(true);
  });

  it('counts a file that vanishes between listing and reading as unreadable', async () => {
    root = await makeTempTree({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const tree = root;
    const result = await referenceScan(tree, {
      onProgress: (update) => {
        if (update.stage === 'reading' && update.done === 0) rmSync(path.join(tree, 'b.txt'));
      },
    });
    expect(result.files).toBe(1);
    expect(result.skipped.unreadable).toBe(1);
  });

  it('rejects at once with an already-aborted signal', async () => {
    root = await makeTempTree({ 'a.txt': 'x' });
    const controller = new AbortController();
    controller.abort();
    const onProgress = jest.fn();
    await expect(referenceScan(root, { signal: controller.signal, onProgress })).rejects.toMatchObject({ name: 'AbortError' });
    expect(onProgress).not.toHaveBeenCalled();
  });

  describe('on a few-thousand-file tree', () => {
    let tree: string | undefined;
    beforeAll(async () => {
      tree = await makeTempTree();
      const files: TreeSpec = {};
      for (let index = 0; index < 3000; index++) files[`d${index % 30}/e${index % 11}/f${index}.ts`] = `export const v${index} = ${index};\n`;
      for (let index = 0; index < 3; index++) files[`large/l${index}.txt`] = 'some text on a line\n'.repeat(1_000_000); // 20 MB each
      await addFiles(tree, files);
    }, 60_000);
    afterAll(async () => removeTempTree(tree));

    it('stops reading as soon as the signal aborts during the reading stage', async () => {
      const controller = new AbortController();
      let lastDone = 0;
      const scan = referenceScan(tree as string, {
        signal: controller.signal,
        onProgress: (update) => {
          if (update.stage !== 'reading') return;
          lastDone = update.done;
          if (update.done === 100) controller.abort();
        },
      });
      await expect(scan).rejects.toMatchObject({ name: 'AbortError' });
      expect(lastDone).toBe(100);
    });

    it.each(['blocking', 'concurrent'] as const)('rejects well under a second after an abort from outside (%s reads), leaving no file open', async (readStrategy) => {
      const openFiles = () => readdirSync('/proc/self/fd').length;
      const before = openFiles();
      const controller = new AbortController();
      let abortedAt = 0;
      let reading = false;
      const scan = referenceScan(tree as string, {
        readStrategy,
        signal: controller.signal,
        onProgress: (update) => {
          if (update.stage !== 'reading' || reading) return;
          reading = true;
          // Fires at the first point the scan lets the event loop run.
          setImmediate(() => {
            abortedAt = performance.now();
            controller.abort();
          });
        },
      });
      await expect(scan).rejects.toMatchObject({ name: 'AbortError' });
      expect(abortedAt).toBeGreaterThan(0);
      // The abort is seen at the next slice (10 ms) or chunk; the margin is for a loaded CI machine.
      expect(performance.now() - abortedAt).toBeLessThan(500);
      expect(openFiles()).toBe(before);
    });

    it('aborts during listing too', async () => {
      const controller = new AbortController();
      const scan = referenceScan(tree as string, {
        signal: controller.signal,
        onProgress: (update) => {
          if (update.stage === 'listing' && update.done > 0) controller.abort();
        },
      });
      await expect(scan).rejects.toMatchObject({ name: 'AbortError' });
    });

    it.each(['auto', 'blocking', 'concurrent'] as const)('scans it completely when left alone (%s reads)', async (readStrategy) => {
      const result = await referenceScan(tree as string, { readStrategy });
      expect(result.files).toBe(3003);
      expect(result.lines).toBe(3000 + 3_000_000);
      expect(result.largestFiles.slice(0, 3).map((file) => file.path)).toEqual(['large/l0.txt', 'large/l1.txt', 'large/l2.txt']);
    });
  });
});
