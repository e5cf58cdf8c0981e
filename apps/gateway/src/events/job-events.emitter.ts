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

/**
 * The one place that sends job events to browsers and CLIs, typed by the shared event map. Each
 * gateway process emits to its own sockets; every gateway reads the same QueueEvents stream.
 */
@Injectable()
export class JobEventsEmitter {
  private namespace: EventsNamespace | undefined;

  attach(namespace: EventsNamespace): void {
    this.namespace = namespace;
  }

  /** Whether any socket of this process watches the job (saves a database read when none does). */
  isWatched(jobId: string): boolean {
    return (this.namespace?.adapter.rooms.get(jobRoom(jobId))?.size ?? 0) > 0;
  }

  progress(jobId: string, progress: JobProgress): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.progress', { jobId, progress });
  }

  status(jobId: string, status: JobStatus, attempts?: number, error?: QuarryErrorBody): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.status', { jobId, status, attempts, error });
  }

  completed(jobId: string, result: unknown): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.completed', { jobId, result });
  }

  failed(jobId: string, error: QuarryErrorBody): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.failed', { jobId, error });
  }

  cancelled(jobId: string): void {
    this.namespace?.to(jobRoom(jobId)).emit('job.cancelled', { jobId });
  }
}
