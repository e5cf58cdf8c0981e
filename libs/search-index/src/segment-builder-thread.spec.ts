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

describe('segment sinks', () => {
  it('from source (jest) a SegmentThread builds on the caller\'s thread, and an index build saves its segments', async () => {
    const thread = new SegmentThread();
    expect(thread.sink()).toBeInstanceOf(SegmentSeries);
    const store = new MemorySearchIndexStore();
    const snapshot = { readFile: async () => undefined } as unknown as Snapshot;
    const build = new IndexBuild(snapshot, [], store, { segments: thread.sink, segmentTextBytes: 2_000 });
    documents.forEach(({ blob, content }, index) => build.add(`f${index}`, content, blob));
    const stats = await build.finish();
    expect(stats.blobs).toBe(documents.length);
    expect(stats.segments).toBeGreaterThan(1);
    expect((await store.segmentsOf(documents.map((document) => document.blob))).size).toBe(documents.length);
    await thread.close();
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
