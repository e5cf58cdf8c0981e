// Run by test/integration/segment-thread.spec.ts in a child process, on the compiled build: the
// segment thread is started only from dist/ (see segment-builder-thread.ts), never inside jest.
// Prints one JSON line of findings for the spec to assert on.
'use strict';
const path = require('node:path');
const dist = path.join(__dirname, '..', '..', 'dist', 'libs', 'search-index', 'src');
const { SegmentThread, SegmentSeries, IndexBuild, MemorySearchIndexStore } = require(dist);

const documents = Array.from({ length: 300 }, (_, index) => ({
  blob: index.toString(16).padStart(40, '0'),
  content: Buffer.from(
    index % 50 === 7
      ? `binary\0${'x'.repeat(index)}`
      : `line ${index} spin_lock_irqsave(&lock${index % 13});\n${'static int value_'.repeat(index % 9)}${index}\n`,
  ),
}));
const same = (a, b) => a.length === b.length && a.every((segment, i) => segment.id === b[i].id && segment.textBytes === b[i].textBytes && JSON.stringify(segment.blobs) === JSON.stringify(b[i].blobs) && Buffer.compare(segment.data, b[i].data) === 0);

(async () => {
  const findings = {};
  // Ended after 1 s idle here (10 s in a worker), so the check below need not wait long.
  const thread = new SegmentThread(undefined, undefined, 1_000);
  // 1. The thread's segments equal a series built here, though the caller reuses its buffer at once.
  const here = new SegmentSeries();
  const there = thread.sink();
  const scratch = Buffer.alloc(4096);
  for (const { blob, content } of documents) {
    here.add(blob, content);
    content.copy(scratch);
    there.add(blob, scratch.subarray(0, content.length));
    scratch.fill(0x41);
  }
  const expected = here.finish();
  findings.threaded = !(there instanceof SegmentSeries);
  findings.sameSegments = same(await there.finish(), expected);
  findings.sizeAndText = there.size === documents.length && there.textBytes === expected.reduce((sum, segment) => sum + segment.textBytes, 0);

  // 2. Too far behind: the caller indexes the rest itself; every document once, in some segment.
  const slow = new SegmentThread(1_000);
  const sink = slow.sink();
  for (const { blob, content } of documents) sink.add(blob, content);
  const split = await sink.finish();
  findings.fallback = { segments: split.length, blobs: split.flatMap((segment) => segment.blobs).sort().join() === documents.map((d) => d.blob).sort().join(), textBytes: split.reduce((sum, s) => sum + s.textBytes, 0) === sink.textBytes };
  await slow.close();

  // 3. Two index builds at once through one thread, saved to the store.
  const store = new MemorySearchIndexStore();
  const snapshot = { readFile: async () => undefined };
  const builds = [0, 1].map(() => new IndexBuild(snapshot, [], store, { segments: thread.sink, segmentTextBytes: 2_000 }));
  documents.forEach(({ blob, content }, index) => builds[index % 2].add(`f${index}`, content, blob));
  const stats = await Promise.all(builds.map((build) => build.finish()));
  findings.builds = { blobs: stats.reduce((sum, s) => sum + s.blobs, 0), segments: stats.map((s) => s.segments), saved: (await store.segmentsOf(documents.map((d) => d.blob))).size };

  // 4. Idle, the thread ends on its own — never while a build has documents in it — and the next build starts another.
  const pause = () => new Promise((resolve) => setTimeout(resolve, 1_500));
  const open = thread.sink();
  for (const { blob, content } of documents) open.add(blob, content);
  await pause();
  findings.keptForOpenBuild = same(await open.finish(), expected);
  await pause();
  findings.endedWhenIdle = thread.worker === undefined;
  const again = thread.sink();
  for (const { blob, content } of documents) again.add(blob, content);
  findings.restarted = same(await again.finish(), expected) && thread.worker !== undefined;
  await thread.close();
  console.log(JSON.stringify(findings));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
