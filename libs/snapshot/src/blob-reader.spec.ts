import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BlobReader } from './blob-reader';

/**
 * A real `git cat-file --batch` behind the reader: contents of every size arrive split across the
 * pipe's chunks (64 KiB), whole in one, ending exactly at a chunk's end, and empty.
 */
describe('BlobReader', () => {
  let root: string;
  let gitDir: string;
  let reader: BlobReader;
  const blobs = new Map<string, Buffer>();

  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'quarry-blob-reader-'));
    gitDir = path.join(root, 'repo.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    const sizes = [0, 1, 100, 4095, 4096, 65535, 65536, 65537, 131071, 200_000, 3 * 1024 * 1024 + 7];
    for (const [index, size] of sizes.entries()) {
      // Bytes that differ per blob and per position, newlines included: a shifted copy shows.
      const content = Buffer.alloc(size);
      for (let at = 0; at < size; at++) content[at] = (at * 31 + index * 7) % 251;
      const oid = execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: content }).toString().trim();
      blobs.set(oid, content);
    }
    reader = new BlobReader({ home: root }, gitDir);
  });
  afterAll(() => {
    reader.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('streams every blob whole and in order, whatever its size', async () => {
    const oids = [...blobs.keys(), ...blobs.keys()].reverse();
    const seen: Array<[string, Buffer | undefined]> = [];
    await reader.stream(oids, (oid, content) => seen.push([oid, content && Buffer.from(content)]));
    expect(seen.map(([oid]) => oid)).toEqual(oids);
    for (const [oid, content] of seen) expect(content?.equals(blobs.get(oid) as Buffer)).toBe(true);
  });

  it('answers undefined for a missing object and goes on', async () => {
    const [first] = blobs.keys();
    const missing = 'f'.repeat(40);
    const contents = await Promise.all([reader.read(missing), reader.read(first), reader.read(missing)]);
    expect(contents[0]).toBeUndefined();
    expect(contents[1]?.equals(blobs.get(first) as Buffer)).toBe(true);
    expect(contents[2]).toBeUndefined();
  });
});
