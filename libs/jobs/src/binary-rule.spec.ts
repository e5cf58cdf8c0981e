import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BlobIndexer } from '@quarry/code-index';
import { closeSharedSearchPool, searchWorkspace } from '@quarry/search';
import { DocKind, kindOf } from '../../search-index/src/segment';
import { BINARY_SNIFF_BYTES, isBinaryContent, measureContent, readWorkspaceFile } from '@quarry/workspace';

/**
 * One binary rule (@quarry/workspace/binary) for every reader: a NUL in the first 8,000 bytes. A
 * file with a NUL just past it is text to the scan, the reads, the code index and the search index
 * alike; the search then drops it only when it has matches (ripgrep's rule for `rg -c`).
 */
describe('the binary rule', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'quarry-binary-rule-'));
  const withNulAt = (at: number) => Buffer.concat([Buffer.from('needle\n'), Buffer.alloc(at - 7, 'a'), Buffer.from([0]), Buffer.from('\nmore text\n')]);
  const justInside = withNulAt(BINARY_SNIFF_BYTES - 1);
  const justPast = withNulAt(BINARY_SNIFF_BYTES);
  // Between the 8,000 bytes git sniffs and the 8,192 the search once did: text to one, binary to the other.
  const between = withNulAt(8_100);
  let indexer: BlobIndexer;
  beforeAll(async () => {
    writeFileSync(path.join(root, 'inside.txt'), justInside);
    writeFileSync(path.join(root, 'past.txt'), justPast);
    writeFileSync(path.join(root, 'between.txt'), between);
    indexer = await BlobIndexer.create();
  });
  afterAll(async () => {
    rmSync(root, { recursive: true, force: true });
    await closeSharedSearchPool();
  });

  it('is a NUL in the first 8,000 bytes', () => {
    expect(BINARY_SNIFF_BYTES).toBe(8000);
    expect(isBinaryContent(justInside)).toBe(true);
    expect(isBinaryContent(justPast)).toBe(false);
    expect(isBinaryContent(justPast, 100)).toBe(false);
  });

  it.each([
    ['a NUL at byte 7,999', justInside, true],
    ['a NUL at byte 8,000', justPast, false],
    ['a NUL at byte 8,100', between, false],
  ])('with %s the scan, the code index and the search index agree', (_name, content, binary) => {
    expect(measureContent(content).kind).toBe(binary ? 'binary' : 'text');
    expect(indexer.index({ path: 'x.txt', content }).binary).toBe(binary);
    expect(kindOf(content) === DocKind.Binary).toBe(binary);
  });

  it('reads refuse the binary file and read the others', async () => {
    await expect(readWorkspaceFile(root, 'inside.txt')).rejects.toMatchObject({ kind: 'file_binary' });
    await expect(readWorkspaceFile(root, 'between.txt')).resolves.toMatchObject({ path: 'between.txt' });
  });

  it('the search skips the binary file, and the others only where they match (as rg -c does)', async () => {
    const matching = await searchWorkspace({ root, mode: 'literal', pattern: 'needle', countsPerFile: true });
    expect(matching.totalMatches).toBe(0);
    expect(matching.skipped.binary).toBe(3);
    const elsewhere = await searchWorkspace({ root, mode: 'literal', pattern: 'nowhere', countsPerFile: true });
    expect(elsewhere.skipped.binary).toBe(1);
    expect(elsewhere.filesSearched).toBe(2);
  });
});
