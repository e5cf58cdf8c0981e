import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DocKind, kindOf, MAX_SEGMENT_DOCS, SegmentSeries, type BuiltSegment } from './segment';
import type { SegmentThreadReply, SegmentThreadRequest } from './segment-thread';

/**
 * What an index build feeds documents into and closes into segments (one, or several when their
 * pairs pass the cap): a SegmentSeries in this thread, or the segment thread.
 */
export interface SegmentSink {
  /** Documents added. */
  readonly size: number;
  readonly full: boolean;
  /** Bytes of text added so far (the build closes its segments past a budget of text). */
  readonly textBytes: number;
  add(blob: string, content: Buffer): void;
  finish(): BuiltSegment[] | Promise<BuiltSegment[]>;
}

/** Makes the sink of each new set of segments. */
export type SegmentSinks = () => SegmentSink;

/** Segments built here, on the caller's thread. */
export const inThreadSegments: SegmentSinks = () => new SegmentSeries();

/**
 * How far the thread may fall behind, in bytes handed over and not yet indexed: past it, the
 * caller indexes documents itself (both cores at work, and memory bounded). A shard's size is only
 * estimated before its blobs arrive, and reading is faster than indexing.
 */
export const MAX_BYTES_BEHIND = 8 * 1024 * 1024;

/**
 * How long the thread may sit idle before it is ended. Longer than a scan's gaps between shards
 * (fetching the next shard's blobs): a thread started again compiles its extraction loop again,
 * and ending it after 1 s idle cost a kernel scan 4 s of CPU.
 */
export const IDLE_MS = 10_000;

/**
 * The compiled thread (after `npm run build`). Run from source (jest), there is none and segments
 * are built on the caller's thread: a thread started from source loads the TypeScript compiler, a
 * native addon, and such threads hung the test process when it shut its stacks down.
 */
function compiledThread(): string | undefined {
  const compiled = path.join(__dirname, 'segment-thread.js');
  return existsSync(compiled) ? compiled : undefined;
}

/**
 * One worker thread that builds the segments of every index build of this process: the scan's
 * shard hands it each blob's bytes as it measures them and goes on reading, so the trigram
 * extraction (most of an index build's CPU) runs on another core instead of in series with the
 * reading, and the worker's event loop stays free (lock renewals, progress). When the thread falls
 * MAX_BYTES_BEHIND behind, documents are indexed on the caller's thread into segments of their own.
 * Started on first use; idle, it keeps no process alive.
 */
export class SegmentThread {
  private worker: Worker | undefined;
  private nextBuild = 1;
  private nextRequest = 1;
  private readonly waiting = new Map<number, { resolve: (segments: BuiltSegment[]) => void; reject: (error: Error) => void }>();
  /** Bytes posted to the thread and not yet reported indexed. */
  private behind = 0;
  /** Builds with documents in the thread, not finished yet: the thread holds their state. */
  private readonly open = new Set<number>();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly maxBytesBehind = MAX_BYTES_BEHIND,
    private readonly entry = compiledThread(),
    private readonly idleMs = IDLE_MS,
  ) {}

  /** The sink of one new set of segments: in the thread, or here when there is no compiled thread to start. */
  sink = (): SegmentSink => (this.entry ? new ThreadSegments(this, this.nextBuild++) : new SegmentSeries());

  /** Hands a document to the thread, or returns false when the thread is too far behind to take it. */
  offer(build: number, blob: string, content: Buffer): boolean {
    if (this.behind > 0 && this.behind + content.length > this.maxBytesBehind) return false;
    // A copy the thread owns (the caller's buffer may be a slice of a larger one it reuses).
    const copy = new Uint8Array(content);
    this.behind += copy.byteLength;
    this.open.add(build);
    this.start().postMessage({ type: 'add', build, blob, content: copy } satisfies SegmentThreadRequest, [copy.buffer]);
    return true;
  }

  finish(build: number): Promise<BuiltSegment[]> {
    return new Promise((resolve, reject) => {
      const request = this.nextRequest++;
      this.waiting.set(request, { resolve, reject });
      this.open.delete(build);
      const worker = this.start();
      worker.ref();
      worker.postMessage({ type: 'finish', build, request } satisfies SegmentThreadRequest);
    });
  }

  /** Ends the thread; builds still waiting fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  /**
   * An idle thread is ended after `idleMs` (IDLE_MS): its isolate and what its builds left
   * (~20 MB) would otherwise stay resident in a worker between scans.
   */
  private scheduleIdleEnd(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.open.size === 0 && this.waiting.size === 0) void this.close();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private start(): Worker {
    // Called per document: the timer is cleared only when one is set.
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
    if (this.worker) return this.worker;
    // Its own heap holds little (the pairs are typed arrays): a small young generation keeps its garbage small too.
    const worker = new Worker(this.entry as string, { resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    worker.unref();
    worker.on('message', (reply: SegmentThreadReply) => {
      if ('indexed' in reply) {
        this.behind = Math.max(0, this.behind - reply.indexed);
        return;
      }
      const waiting = this.waiting.get(reply.request);
      this.waiting.delete(reply.request);
      if (this.waiting.size === 0) worker.unref();
      if (this.waiting.size === 0 && this.open.size === 0) this.scheduleIdleEnd();
      if (!waiting) return;
      if ('error' in reply) waiting.reject(new Error(`segment thread: ${reply.error}`));
      else waiting.resolve(reply.segments.map((segment) => ({ ...segment, data: Buffer.from(segment.data.buffer, segment.data.byteOffset, segment.data.byteLength) })));
    });
    // A thread that dies (out of memory, a bug) fails the builds waiting on it; the next one starts a new thread.
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.behind = 0;
      this.open.clear();
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`segment thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

/** One index build's segments: made in the thread, and here for what the thread could not take. */
class ThreadSegments implements SegmentSink {
  private readonly blobs = new Set<string>();
  private here: SegmentSeries | undefined;
  private sent = 0;
  textBytes = 0;

  constructor(
    private readonly thread: SegmentThread,
    private readonly build: number,
  ) {}

  get size(): number {
    return this.blobs.size;
  }

  get full(): boolean {
    return this.sent >= MAX_SEGMENT_DOCS || (this.here?.full ?? false);
  }

  add(blob: string, content: Buffer): void {
    if (this.blobs.has(blob)) return;
    if (this.full) throw new Error('segment full');
    this.blobs.add(blob);
    if (kindOf(content) === DocKind.Text) this.textBytes += content.length;
    if (this.thread.offer(this.build, blob, content)) this.sent++;
    else (this.here ??= new SegmentSeries()).add(blob, content);
  }

  async finish(): Promise<BuiltSegment[]> {
    const there = await this.thread.finish(this.build);
    return this.here ? [...there, ...this.here.finish()] : there;
  }
}
