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

/**
 * The one place that sends job events to browsers and CLIs, typed by the shared event map, and
 * to watchers inside this process (MCP tool calls waiting on their job). Each gateway process
 * emits to its own sockets and watchers; every gateway reads the same QueueEvents stream.
 */
@Injectable()
export class JobEventsEmitter {
  private namespace: EventsNamespace | undefined;
  private readonly watchers = new Map<string, Set<(event: JobEvent) => void>>();

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
    return this.watchers.has(jobId) || (this.namespace?.adapter.rooms.get(jobRoom(jobId))?.size ?? 0) > 0;
  }

  progress(jobId: string, progress: JobProgress): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.progress', { jobId, progress });
    this.tell(jobId, { type: 'progress', progress });
  }

  status(jobId: string, status: JobStatus, attempts?: number, error?: QuarryErrorBody): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.status', { jobId, status, attempts, error });
    this.tell(jobId, { type: 'status', status, attempts, error });
  }

  completed(jobId: string, result: unknown): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.completed', { jobId, result });
    this.tell(jobId, { type: 'completed', result });
  }

  failed(jobId: string, error: QuarryErrorBody): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.failed', { jobId, error });
    this.tell(jobId, { type: 'failed', error });
  }

  cancelled(jobId: string): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.cancelled', { jobId });
    this.tell(jobId, { type: 'cancelled' });
  }

  private tell(jobId: string, event: JobEvent): void {
    const listeners = this.watchers.get(jobId);
    if (listeners) for (const listener of [...listeners]) listener(event);
  }
}
