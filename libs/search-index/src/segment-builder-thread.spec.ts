import { IndexBuild } from './build';
import { SegmentBuilder, SegmentReader, SegmentSeries } from './segment';
import { SegmentThread } from './segment-builder-thread';
import { trigramsOf } from './trigrams';
import { MemorySearchIndexStore } from './store';
import type { Snapshot } from '@quarry/snapshot';

const documents = Array.from({ length: 300 }, (_, index) => ({
  blob: index.toString(16).padStart(40, '0'),
  content: Buffer.from(
    index % 50 === 7
      ? `binary\0${'x'.repeat(index)}` // a NUL early: binary
      : `line ${index} spin_lock_irqsave(&lock${index % 13});\n${'static int value_'.repeat(index % 9)}${index}\n`,
  ),
}));

describe('SegmentThread', () => {
  const thread = new SegmentThread();
  afterAll(() => thread.close());

  it('builds the same segments as a series on this thread, from copies the caller may reuse', async () => {
    const here = new SegmentSeries();
    const there = thread.sink();
    const scratch = Buffer.alloc(4096);
    for (const { blob, content } of documents) {
      here.add(blob, content);
      // The caller's buffer is overwritten right after: the thread must have had its own copy.
      content.copy(scratch);
      there.add(blob, scratch.subarray(0, content.length));
      scratch.fill(0x41);
    }
    expect(there.size).toBe(here.size);
    expect(there.textBytes).toBe(here.textBytes);
    const expected = here.finish();
    const actual = await there.finish();
    expect(actual.map((segment) => segment.id)).toEqual(expected.map((segment) => segment.id));
    actual.forEach((segment, index) => {
      expect(segment.blobs).toEqual(expected[index].blobs);
      expect(segment.textBytes).toBe(expected[index].textBytes);
      expect(Buffer.compare(segment.data, expected[index].data)).toBe(0);
    });
  });

  it('indexes on the caller\'s thread what the thread is too far behind to take: every document once, in some segment', async () => {
    const slow = new SegmentThread(1_000);
    try {
      const sink = slow.sink();
      for (const { blob, content } of documents) sink.add(blob, content);
      expect(sink.size).toBe(documents.length);
      const segments = await sink.finish();
      expect(segments.length).toBeGreaterThan(1);
      expect(segments.flatMap((segment) => segment.blobs).sort()).toEqual(documents.map((document) => document.blob).sort());
      expect(segments.reduce((sum, segment) => sum + segment.textBytes, 0)).toBe(sink.textBytes);
    } finally {
      await slow.close();
    }
  });

  it('serves several builds at once, and an index build saves the segments it built there', async () => {
    const store = new MemorySearchIndexStore();
    const snapshot = { readFile: async () => undefined } as unknown as Snapshot;
    const builds = [0, 1].map((part) => new IndexBuild(snapshot, [], store, { segments: thread.sink, segmentTextBytes: 2_000 }));
    documents.forEach(({ blob, content }, index) => builds[index % 2].add(`f${index}`, content, blob));
    const stats = await Promise.all(builds.map((build) => build.finish()));
    expect(stats.reduce((sum, stat) => sum + stat.blobs, 0)).toBe(documents.length);
    expect(stats.every((stat) => stat.segments > 1)).toBe(true);
    const saved = await store.segmentsOf(documents.map((document) => document.blob));
    expect(saved.size).toBe(documents.length);
    const inThread = new IndexBuild(snapshot, [], new MemorySearchIndexStore(), { segmentTextBytes: 2_000 });
    documents.filter((_, index) => index % 2 === 0).forEach(({ blob, content }, index) => inThread.add(`f${index}`, content, blob));
    await inThread.finish();
    expect([...inThread.saved.values()].sort()).toEqual([...builds[0].saved.values()].sort());
  });
});

describe('SegmentSeries', () => {
  it('seals a segment when its pairs pass the cap, and the segments together hold every document once', () => {
    const series = new SegmentSeries(2_000);
    const single = new SegmentBuilder();
    for (const { blob, content } of documents) {
      series.add(blob, content);
      single.add(blob, content);
    }
    expect(series.size).toBe(documents.length);
    expect(series.textBytes).toBe(single.textBytes);
    const segments = series.finish();
    expect(segments.length).toBeGreaterThan(3);
    expect(segments.flatMap((segment) => segment.blobs).sort()).toEqual(documents.map((document) => document.blob).sort());
    // Each document's postings are in its own segment, as in one big segment.
    const one = SegmentReader.fromBuffer(single.finish().data);
    const readers = segments.map((segment) => SegmentReader.fromBuffer(segment.data));
    for (const trigram of [...trigramsOf('spin_lock'), ...trigramsOf('value_'), ...trigramsOf('line 1')]) {
      const expected = [...one.postings(trigram)].map((doc) => one.blobs[doc]).sort();
      const actual = readers.flatMap((reader) => [...reader.postings(trigram)].map((doc) => reader.blobs[doc])).sort();
      expect(actual).toEqual(expected);
      expect(actual.length).toBeGreaterThan(0);
    }
  });
});
