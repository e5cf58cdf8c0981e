import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { assertBuilt } from '../support/processes';

/**
 * The search index's segment thread, on the compiled build in a child process: it is started
 * only from dist/, never inside jest (a thread started from source loads the TypeScript compiler,
 * a native addon, and such threads hung the test process at shutdown).
 */
describe('the segment thread (compiled build)', () => {
  it('builds what a builder here builds, falls back when too far behind, serves two builds at once, and ends when idle', () => {
    assertBuilt();
    const output = execFileSync(process.execPath, [path.join(__dirname, '..', 'support', 'segment-thread-check.js')], { encoding: 'utf8', timeout: 60_000 });
    const findings = JSON.parse(output.trim().split('\n').pop() as string);
    expect(findings).toEqual({
      threaded: true,
      sameSegments: true,
      sizeAndText: true,
      fallback: { segments: expect.any(Number), blobs: true, textBytes: true },
      builds: { blobs: 300, segments: [expect.any(Number), expect.any(Number)], saved: 300 },
      keptForOpenBuild: true,
      endedWhenIdle: true,
      restarted: true,
    });
    expect(findings.fallback.segments).toBeGreaterThan(1);
    expect(findings.builds.segments.every((count: number) => count > 1)).toBe(true);
  });
});
