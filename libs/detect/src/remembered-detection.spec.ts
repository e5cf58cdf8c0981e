import { StateMemory } from '../../blob-scan/src/scan-memory';
import { detectRemembering, readsTouched, recordReads } from './remembered-detection';
import type { RepoReader } from './scan';

const reader: RepoReader = {
  root: '/repo',
  readDirectory: async () => [],
  readText: async (relative) => `text of ${relative}`,
};

describe('recordReads', () => {
  it('records the directories and files read, named as the snapshot names them', async () => {
    const recording = recordReads(reader);
    await recording.reader.readDirectory('.');
    await recording.reader.readDirectory('./src/');
    expect(await recording.reader.readText('./package.json', 100)).toBe('text of ./package.json');
    expect(recording.reads()).toEqual({ directories: ['', 'src'], files: ['package.json'] });
  });

  it('is touched by a change to a directory listed or a file read, and by nothing else', () => {
    const reads = { directories: ['', 'src'], files: ['package.json'] };
    expect(readsTouched(reads, { files: ['src/a.ts'], directories: [] })).toBe(false); // an edit in a listed directory
    expect(readsTouched(reads, { files: ['lib/x.ts'], directories: ['lib'] })).toBe(false);
    expect(readsTouched(reads, { files: ['src/new.ts'], directories: ['src'] })).toBe(true);
    expect(readsTouched(reads, { files: ['package.json'], directories: [] })).toBe(true);
  });
});

describe('detectRemembering', () => {
  it('reuses the previous commit\'s stack when the changes touch nothing its detection read, and detects again when they do', async () => {
    const states = new StateMemory();
    let detections = 0;
    const detect = async (recording: RepoReader) => {
      detections++;
      await recording.readDirectory('.');
      return { services: [{ path: '.', manifest: await recording.readText('package.json', 100) }] };
    };
    const options = { states, repository: 'https://example.test/r.git', kind: 'full', reader, detect };
    const first = await detectRemembering({ ...options, commit: 'c1', changes: undefined });
    expect([first.reused, detections]).toEqual([false, 1]);
    // An edit to a source file: the same stack, no detection.
    const second = await detectRemembering({ ...options, commit: 'c2', changes: { base: 'c1', files: ['src/a.ts'], directories: [] } });
    expect([second.reused, second.result, detections]).toEqual([true, first.result, 1]);
    // The manifest it read changed: detected again.
    const third = await detectRemembering({ ...options, commit: 'c3', changes: { base: 'c2', files: ['package.json'], directories: [] } });
    expect([third.reused, detections]).toEqual([false, 2]);
    // A file added at the root, which it listed: detected again.
    const fourth = await detectRemembering({ ...options, commit: 'c4', changes: { base: 'c3', files: ['Cargo.toml'], directories: [''] } });
    expect([fourth.reused, detections]).toEqual([false, 3]);
    // Another mode's detection, or a base never detected: detected.
    expect((await detectRemembering({ ...options, kind: 'static', commit: 'c5', changes: { base: 'c4', files: [], directories: [] } })).reused).toBe(false);
    expect((await detectRemembering({ ...options, commit: 'c6', changes: { base: 'c0', files: [], directories: [] } })).reused).toBe(false);
  });
});
