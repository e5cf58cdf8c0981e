import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { SegmentSeries, type BuiltSegment } from './segment';

// The body of the segment thread (segment-builder-thread.ts starts it): the segment series of the
// index builds in progress, one per build id, fed document by document. Relative imports only.

/** Main → thread. */
export type SegmentThreadRequest =
  | { type: 'add'; build: number; blob: string; content: Uint8Array }
  | { type: 'finish'; build: number; request: number };

/**
 * Thread → main: bytes of documents indexed since the last such message (so the other side knows
 * how far behind the thread is), or the segments a `finish` asked for, or why they failed.
 */
export type SegmentThreadReply = { indexed: number } | { request: number; segments: BuiltSegment[] } | { request: number; error: string };

/** Indexed bytes are reported in steps of this size. */
const REPORT_BYTES = 1 << 20;

const series = new Map<number, SegmentSeries>();
let unreported = 0;

/**
 * A collection after each finished build and after every COLLECT_BYTES of documents. This
 * thread's heap is a few MB, so it is rarely collected, while what it drops is large and outside
 * the heap: the documents it was handed and a finished segment's pair arrays. V8 lets such
 * external garbage grow by 64 MB before it collects on its own: a kernel scan's worker peaked at
 * 329–332 MB without these collections, 286–305 MB with them. Collecting a heap this small takes a
 * millisecond or two.
 */
const COLLECT_BYTES = 16 * 1024 * 1024;
let uncollected = 0;
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

parentPort?.on('message', (message: SegmentThreadRequest) => {
  if (message.type === 'add') {
    let builder = series.get(message.build);
    if (!builder) series.set(message.build, (builder = new SegmentSeries()));
    const content = Buffer.from(message.content.buffer, message.content.byteOffset, message.content.byteLength);
    try {
      builder.add(message.blob, content);
    } finally {
      unreported += content.byteLength;
      uncollected += content.byteLength;
      if (unreported >= REPORT_BYTES) report();
    }
    if (uncollected >= COLLECT_BYTES) {
      uncollected = 0;
      collect();
    }
    return;
  }
  const builder = series.get(message.build);
  series.delete(message.build);
  report();
  try {
    const segments = builder?.finish() ?? [];
    const reply: SegmentThreadReply = { request: message.request, segments };
    parentPort?.postMessage(reply, segments.map((segment) => segment.data.buffer as ArrayBuffer));
    uncollected = 0;
    collect();
  } catch (error) {
    parentPort?.postMessage({ request: message.request, error: error instanceof Error ? error.message : String(error) } satisfies SegmentThreadReply);
  }
});

function report(): void {
  if (unreported === 0) return;
  parentPort?.postMessage({ indexed: unreported } satisfies SegmentThreadReply);
  unreported = 0;
}
