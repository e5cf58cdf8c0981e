import { Injectable } from '@nestjs/common';
import type { Namespace } from 'socket.io';
import {
  ClientToServerEvents,
  JobProgress,
  JobStatus,
  QuarryErrorBody,
  ServerToClientEvents,
  jobRoom,
} from '@quarry/contracts';

export type EventsNamespace = Namespace<ClientToServerEvents, ServerToClientEvents>;

/** A job event as an in-process watcher (an MCP tool call waiting on its job) receives it. */
export type JobEvent =
  | { type: 'progress'; progress: JobProgress }
  | { type: 'status'; status: JobStatus; attempts?: number; error?: QuarryErrorBody }
  | { type: 'completed'; result: unknown }
  | { type: 'failed'; error: QuarryErrorBody }
  | { type: 'cancelled' };

type RoomEvent = {
  [E in keyof ServerToClientEvents]: { name: E; payload: Parameters<ServerToClientEvents[E]>[0] };
}[keyof ServerToClientEvents];

/**
 * The one place that sends job events to browsers and CLIs, typed by the shared event map, and
 * to watchers inside this process (MCP tool calls waiting on their job). Each gateway process
 * emits to its own sockets and watchers; every gateway reads the same QueueEvents stream.
 *
 * Socket fan-out is batched per room per tick: events of a turn of the event loop are queued per
 * job room and sent together on the next one, a room's superseded progress dropped (only the
 * latest progress of a tick goes out), and nothing is encoded for a room nobody is in. In-process
 * watchers are told at once.
 */
@Injectable()
export class JobEventsEmitter {
  private namespace: EventsNamespace | undefined;
  private readonly watchers = new Map<string, Set<(event: JobEvent) => void>>();
  private pending = new Map<string, RoomEvent[]>();
  private flushScheduled = false;

  attach(namespace: EventsNamespace): void {
    this.namespace = namespace;
  }

  /** Calls `listener` with every event of the job from now on; returns the function that stops it. */
  watch(jobId: string, listener: (event: JobEvent) => void): () => void {
    let listeners = this.watchers.get(jobId);
    if (!listeners) this.watchers.set(jobId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.watchers.get(jobId) === listeners) this.watchers.delete(jobId);
    };
  }

  /** Whether any socket or watcher of this process follows the job (saves a database read when none does). */
  isWatched(jobId: string): boolean {
    return this.watchers.has(jobId) || this.hasSubscribers(jobId);
  }

  progress(jobId: string, progress: JobProgress): void {
    this.toRoom(jobId, { name: 'job.progress', payload: { jobId, progress } });
    this.tell(jobId, { type: 'progress', progress });
  }

  status(jobId: string, status: JobStatus, attempts?: number, error?: QuarryErrorBody): void {
    this.toRoom(jobId, { name: 'job.status', payload: { jobId, status, attempts, error } });
    this.tell(jobId, { type: 'status', status, attempts, error });
  }

  completed(jobId: string, result: unknown): void {
    this.toRoom(jobId, { name: 'job.completed', payload: { jobId, result } });
    this.tell(jobId, { type: 'completed', result });
  }

  failed(jobId: string, error: QuarryErrorBody): void {
    this.toRoom(jobId, { name: 'job.failed', payload: { jobId, error } });
    this.tell(jobId, { type: 'failed', error });
  }

  cancelled(jobId: string): void {
    this.toRoom(jobId, { name: 'job.cancelled', payload: { jobId } });
    this.tell(jobId, { type: 'cancelled' });
  }

  private hasSubscribers(jobId: string): boolean {
    return (this.namespace?.adapter.rooms.get(jobRoom(jobId))?.size ?? 0) > 0;
  }

  private toRoom(jobId: string, event: RoomEvent): void {
    if (!this.namespace || !this.hasSubscribers(jobId)) return;
    const room = jobRoom(jobId);
    let events = this.pending.get(room);
    if (!events) this.pending.set(room, (events = []));
    const last = events[events.length - 1];
    // A newer progress supersedes one not sent yet; any other event keeps its place in the order.
    if (event.name === 'job.progress' && last?.name === 'job.progress') events[events.length - 1] = event;
    else events.push(event);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const pending = this.pending;
    this.pending = new Map();
    const namespace = this.namespace;
    if (!namespace) return;
    for (const [room, events] of pending) {
      const to = namespace.to(room);
      for (const event of events) (to.emit as (name: string, payload: unknown) => boolean)(event.name, event.payload);
    }
  }

  private tell(jobId: string, event: JobEvent): void {
    const listeners = this.watchers.get(jobId);
    if (listeners) for (const listener of [...listeners]) listener(event);
  }
}
