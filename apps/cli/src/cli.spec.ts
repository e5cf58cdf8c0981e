import type { ScanResult } from '@quarry/contracts';
import { ProgressDisplay } from './progress-display';
import { formatScanSummary } from '@quarry/render';

const result: ScanResult = {
  root: '/repo',
  files: 3,
  bytes: 2_560,
  lines: 120,
  languages: [
    { language: 'TypeScript', files: 2, bytes: 2_048, lines: 100 },
    { language: 'Markdown', files: 1, bytes: 512, lines: 20 },
  ],
  largestFiles: [{ path: 'src/a.ts', bytes: 2_000, language: 'TypeScript' }],
  directories: [{ path: 'src', files: 2, bytes: 2_048 }, { path: '.', files: 1, bytes: 512 }],
  skipped: { binary: 1, ignored: 4, symlinks: 0, unreadable: 0 },
  durationMs: 1_234,
};

describe('scan summary', () => {
  it('prints totals, languages with shares, directories and largest files', () => {
    const text = formatScanSummary(result);
    expect(text).toContain('3 files, 2.5 KiB, 120 lines in 1.23s');
    expect(text).toContain('skipped: 1 binary, 4 ignored');
    expect(text).toMatch(/TypeScript\s+2\s+100\s+2 KiB\s+80\.0%/);
    expect(text).toMatch(/src\s+2 files/);
    expect(text).toContain('src/a.ts');
    expect(text).not.toContain('blobs read');
  });

  it('says how a sharded scan ran: blobs read and known, shards, workers', () => {
    const text = formatScanSummary({ ...result, shards: 12, workers: 2, workerIds: ['a', 'b'], blobs: { total: 3_000, processed: 1, reused: 2_999 } });
    expect(text).toContain('1 of 3,000 blobs read (2,999 known) in 12 shards on 2 workers');
    expect(text).not.toContain('updated the scan of');
    const updated = formatScanSummary({ ...result, blobs: { total: 3_000, processed: 1, reused: 2_999 }, updatedFrom: 'a'.repeat(40) });
    expect(updated).toContain(`updated the scan of ${'a'.repeat(12)}: only the files changed since were looked at`);
  });

});

describe('ProgressDisplay', () => {
  function stream(isTTY: boolean) {
    const writes: string[] = [];
    return { writes, stream: { isTTY, write: (text: string) => writes.push(text) } as unknown as NodeJS.WriteStream };
  }

  it('redraws one bar in place on a terminal', () => {
    const { writes, stream: out } = stream(true);
    const display = new ProgressDisplay('scan', out);
    display.update({ stage: 'reading', done: 50, total: 100 });
    expect(writes[0]).toMatch(/^\r\x1b\[2Kscan █{15}░{15}  50% reading 50\/100/);
  });

  it('prints plain lines when piped: stage changes and at most one a second', () => {
    const { writes, stream: out } = stream(false);
    const display = new ProgressDisplay('scan', out);
    display.update({ stage: 'listing', done: 0, message: '10 files found' });
    for (let i = 0; i < 100; i++) display.update({ stage: 'reading', done: i, total: 100 });
    expect(writes).toHaveLength(2);
    expect(writes[0]).toMatch(/^scan: listing 10 files found/);
    expect(writes[1]).toMatch(/^scan: reading 0\/100/);
  });
});
