import { readdirSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { measureFile, measureFileConcurrently, measureFileSteps, type FileMeasure } from './file-measure';
import { makeTempTree, removeTempTree } from './testing/temp-tree';

const CHUNK = 64 * 1024;

const READERS: Array<[string, (file: string) => FileMeasure | Promise<FileMeasure>]> = [
  ['blocking', (file) => measureFile(file)],
  ['concurrent', (file) => measureFileConcurrently(file, Buffer.alloc(CHUNK))],
];

describe.each(READERS)('the %s reader', (_, measureWith) => {
  let root: string | undefined;
  afterEach(async () => {
    await removeTempTree(root);
    root = undefined;
  });

  const measure = async (content: string | Buffer) => {
    root = await makeTempTree({ file: content });
    return measureWith(path.join(root, 'file'));
  };

  it.each([
    ['', 0, 0],
    ['a', 1, 1],
    ['a\n', 2, 1],
    ['\n', 1, 1],
    ['a\nb', 3, 2],
    ['a\r\nb\r\n', 6, 2],
    ['\n\n\n', 3, 3],
  ])('%j has %i bytes and %i lines', async (content, bytes, lines) => {
    expect(await measure(content)).toEqual({ kind: 'text', bytes, lines });
  });

  it('counts lines across chunks, a newline right on a chunk boundary and a last line without one', async () => {
    const content = `${'x'.repeat(CHUNK - 1)}\n${'y\n'.repeat(50_000)}tail`;
    expect(await measure(content)).toEqual({ kind: 'text', bytes: CHUNK + 100_000 + 4, lines: 1 + 50_000 + 1 });
  });

  it('reads a file of exactly one chunk', async () => {
    expect(await measure(`${'z'.repeat(CHUNK - 1)}\n`)).toEqual({ kind: 'text', bytes: CHUNK, lines: 1 });
  });

  it('calls a file with a NUL in its first 8000 bytes binary', async () => {
    expect(await measure(Buffer.concat([Buffer.from('a'.repeat(7000)), Buffer.from([0]), Buffer.from('b')]))).toEqual({ kind: 'binary' });
  });

  it('calls a PNG binary', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.alloc(100, 7)]);
    expect(await measure(png)).toEqual({ kind: 'binary' });
  });

  it('treats a Latin-1 file (no NUL) as text, as git does', async () => {
    expect(await measure(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))).toMatchObject({ kind: 'text', lines: 1, bytes: 5 });
  });

  it('treats UTF-8 text as text', async () => {
    expect(await measure('héllo wörld ✓\n日本語\n')).toMatchObject({ kind: 'text', lines: 2 });
  });

  it('reports a missing file as unreadable', async () => {
    expect(await measureWith('/nonexistent/quarry/file.txt')).toEqual({ kind: 'unreadable' });
  });

  it('reports a directory as unreadable', async () => {
    root = await makeTempTree({ 'dir/a': 'x' });
    expect(await measureWith(path.join(root, 'dir'))).toEqual({ kind: 'unreadable' });
  });

  it('refuses a symlink swapped in after listing (O_NOFOLLOW)', async () => {
    root = await makeTempTree({ 'target.txt': 'x\n' });
    await symlink(path.join(root, 'target.txt'), path.join(root, 'link'));
    expect(await measureWith(path.join(root, 'link'))).toEqual({ kind: 'unreadable' });
  });
});

describe('measureFileSteps', () => {
  let root: string | undefined;
  afterEach(async () => {
    await removeTempTree(root);
    root = undefined;
  });

  it('yields between chunks, and return() mid-file closes the file', async () => {
    root = await makeTempTree({ big: 'line\n'.repeat(100_000) });
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    const steps = measureFileSteps(path.join(root, 'big'), Buffer.alloc(CHUNK));
    expect(steps.next().done).toBe(false);
    expect(openFiles()).toBe(before + 1);
    steps.return({ kind: 'unreadable' });
    expect(openFiles()).toBe(before);
  });
});

describe('measureFileConcurrently', () => {
  let root: string | undefined;
  afterEach(async () => {
    await removeTempTree(root);
    root = undefined;
  });

  it('rejects with the abort reason between chunks and closes the file', async () => {
    root = await makeTempTree({ big: 'line\n'.repeat(100_000) });
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    const controller = new AbortController();
    const measuring = measureFileConcurrently(path.join(root, 'big'), Buffer.alloc(CHUNK), controller.signal);
    controller.abort();
    await expect(measuring).rejects.toMatchObject({ name: 'AbortError' });
    expect(openFiles()).toBe(before);
  });
});
