import { Inject, Injectable } from '@nestjs/common';
import type { Namespace, Socket } from 'socket.io';
import {
  ClientToServerEvents,
  JobProgress,
  JobStatus,
  JobView,
  QuarryErrorBody,
  ServerToClientEvents,
  isTerminal,
  jobRoom,
} from '@quarry/contracts';
import { JobRepository } from '@quarry/db';
import { GivenOutcome, SubscriberOutcomes } from './subscriber-outcomes';

export type EventsNamespace = Namespace<ClientToServerEvents, ServerToClientEvents>;
type EventsSocket = Socket<ClientToServerEvents, ServerToClientEvents>;

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

/** A terminal event with the outcome it gives. */
type Pending = { event: RoomEvent; outcome?: GivenOutcome };

/** The reads the emitter needs: a job's row, to tell a retried run from a late event of the last one. */
export type JobReader = Pick<JobRepository, 'find'>;

const FAILED_WITHOUT_ERROR: QuarryErrorBody = { kind: 'internal', message: 'The job failed.' };

/**
 * The one place that sends job events to browsers and CLIs, typed by the shared event map, and
 * to watchers inside this process (MCP tool calls waiting on their job). Each gateway process
 * emits to its own sockets and watchers; every gateway reads the same QueueEvents stream.
 *
 * Socket fan-out is batched per room per tick: events of a turn of the event loop are queued per
 * job and sent together on the next one, a room's superseded progress dropped (only the latest
 * progress of a tick goes out), and nothing is encoded for a room nobody is in. In-process
 * watchers are told at once.
 *
 * Exactly one outcome per subscriber: a socket that has been given a job's outcome (a snapshot of
 * the finished job, or a terminal event) leaves the job's room, so late and repeated terminal
 * events never reach it (SubscriberOutcomes). Only a new run — a failed or cancelled job retried —
 * brings it back, and that is checked against the row, never guessed from the event stream.
 */
@Injectable()
export class JobEventsEmitter {
  private namespace: EventsNamespace | undefined;
  private readonly watchers = new Map<string, Set<(event: JobEvent) => void>>();
  private readonly outcomes = new SubscriberOutcomes();
  private pending = new Map<string, Pending[]>();
  private flushScheduled = false;
  /** Jobs whose row is being read to see whether a retry began; `true` when another event asked meanwhile. */
  private readonly retryChecks = new Map<string, boolean>();

  constructor(@Inject(JobRepository) private readonly jobs: JobReader) {}

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
    return this.watchers.has(jobId) || this.hasSubscribers(jobId) || this.outcomes.awaitingRetry(jobId).length > 0;
  }

  /**
   * A socket was sent this snapshot of the job: a finished job's snapshot is its outcome; an
   * unfinished one's room is joined for the live events. Call `catchUp` after reading the row again.
   */
  follow(socket: EventsSocket, job: JobView): void {
    const outcome = outcomeOf(job);
    if (outcome) this.give(socket, job.id, outcome);
    else {
      this.outcomes.forget(job.id, socket.id);
      void socket.join(jobRoom(job.id));
    }
  }

  /**
   * The row read again after the join: a job that finished between the snapshot and the join had
   * its final event sent to a room this socket was not in yet. Sent here unless the room (or an
   * earlier catch-up) already gave the socket its outcome.
   */
  catchUp(socket: EventsSocket, job: JobView): void {
    const outcome = outcomeOf(job);
    if (!outcome || this.outcomes.given(job.id, socket.id) || !socket.rooms.has(jobRoom(job.id))) return;
    const event = terminalEvent(job);
    (socket.emit as (name: string, payload: unknown) => boolean)(event.name, event.payload);
    this.give(socket, job.id, outcome);
  }

  /** The socket stops following the job (unsubscribe). */
  unfollow(socket: EventsSocket, jobId: string): void {
    this.outcomes.forget(jobId, socket.id);
    void socket.leave(jobRoom(jobId));
  }

  /** The socket is gone: its rooms went with it, its outcomes go here. */
  forgetSocket(socketId: string): void {
    this.outcomes.forgetSocket(socketId);
  }

  progress(jobId: string, progress: JobProgress): void {
    this.toRoom(jobId, { event: { name: 'job.progress', payload: { jobId, progress } } });
    this.tell(jobId, { type: 'progress', progress });
  }

  status(jobId: string, status: JobStatus, attempts?: number, error?: QuarryErrorBody): void {
    this.toRoom(jobId, { event: { name: 'job.status', payload: { jobId, status, attempts, error } } });
    this.tell(jobId, { type: 'status', status, attempts, error });
  }

  completed(jobId: string, result: unknown): void {
    this.toRoom(jobId, { event: { name: 'job.completed', payload: { jobId, result } }, outcome: { status: 'succeeded', finishedAt: null } });
    this.tell(jobId, { type: 'completed', result });
  }

  /** `finishedAt`: the row's, so a subscriber given this failure is not given it again by a late copy. */
  failed(jobId: string, error: QuarryErrorBody, finishedAt: string | null = null): void {
    this.toRoom(jobId, { event: { name: 'job.failed', payload: { jobId, error } }, outcome: { status: 'failed', finishedAt } });
    this.tell(jobId, { type: 'failed', error });
  }

  cancelled(jobId: string, finishedAt: string | null = null): void {
    this.toRoom(jobId, { event: { name: 'job.cancelled', payload: { jobId } }, outcome: { status: 'cancelled', finishedAt } });
    this.tell(jobId, { type: 'cancelled' });
  }

  private hasSubscribers(jobId: string): boolean {
    return (this.namespace?.adapter.rooms.get(jobRoom(jobId))?.size ?? 0) > 0;
  }

  private toRoom(jobId: string, item: Pending): void {
    if (!this.namespace || !(this.hasSubscribers(jobId) || this.outcomes.awaitingRetry(jobId).length > 0)) return;
    let items = this.pending.get(jobId);
    if (!items) this.pending.set(jobId, (items = []));
    const last = items[items.length - 1];
    // A newer progress supersedes one not sent yet; any other event keeps its place in the order.
    if (item.event.name === 'job.progress' && last?.event.name === 'job.progress') items[items.length - 1] = item;
    else items.push(item);
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
    for (const [jobId, items] of pending) {
      const room = jobRoom(jobId);
      for (const { event, outcome } of items) {
        // Before the room hears it: the sockets this gives an outcome to join the room's members below.
        const retried = outcome ? this.retriedSockets(jobId, outcome) : [];
        (namespace.to(room).emit as (name: string, payload: unknown) => boolean)(event.name, event.payload);
        if (!outcome) {
          if (this.outcomes.awaitingRetry(jobId).length > 0) this.checkForRetry(jobId);
          continue;
        }
        for (const socketId of [...(namespace.adapter.rooms.get(room) ?? [])]) {
          const socket = namespace.sockets.get(socketId);
          if (socket) this.give(socket, jobId, outcome);
        }
        for (const socket of retried) {
          (socket.emit as (name: string, payload: unknown) => boolean)(event.name, event.payload);
          this.give(socket, jobId, outcome);
        }
      }
    }
  }

  /**
   * Sockets already given a failure or a cancel of the job to whom this outcome is news: a success
   * (a job that succeeded never fails or is cancelled afterwards, so it came from a later run), or
   * another failure or cancel whose row finished at another time.
   */
  private retriedSockets(jobId: string, outcome: GivenOutcome): EventsSocket[] {
    const sockets: EventsSocket[] = [];
    for (const [socketId, given] of this.outcomes.awaitingRetry(jobId)) {
      const later = outcome.status === 'succeeded' || (outcome.finishedAt !== null && given.finishedAt !== null && outcome.finishedAt !== given.finishedAt);
      const socket = later ? this.namespace?.sockets.get(socketId) : undefined;
      if (socket) sockets.push(socket);
    }
    return sockets;
  }

  private give(socket: EventsSocket, jobId: string, outcome: GivenOutcome): void {
    this.outcomes.record(jobId, socket.id, outcome);
    void socket.leave(jobRoom(jobId));
  }

  /**
   * A live event of a job some sockets were told had failed or was cancelled: a late event of that
   * run, or the start of a retry. The row decides; sockets given the outcome a retry replaced are
   * put back in the room and told where the job is now.
   */
  private checkForRetry(jobId: string): void {
    if (this.retryChecks.has(jobId)) {
      this.retryChecks.set(jobId, true);
      return;
    }
    this.retryChecks.set(jobId, false);
    const before = new Map(this.outcomes.awaitingRetry(jobId));
    this.jobs
      .find(jobId)
      .then((job) => {
        if (job) this.resumeRetried(job, before);
      })
      .catch(() => undefined) // Postgres away: the next event of the job asks again.
      .finally(() => {
        const again = this.retryChecks.get(jobId);
        this.retryChecks.delete(jobId);
        if (again && this.outcomes.awaitingRetry(jobId).length > 0) this.checkForRetry(jobId);
      });
  }

  private resumeRetried(job: JobView, before: Map<string, GivenOutcome>): void {
    const now = outcomeOf(job);
    for (const [socketId, given] of before) {
      const socket = this.namespace?.sockets.get(socketId);
      // Given something else since the read began (a later event got there first): that stands.
      if (!socket || this.outcomes.given(job.id, socketId) !== given) continue;
      if (!now) {
        this.outcomes.forget(job.id, socketId);
        void socket.join(jobRoom(job.id));
        socket.emit('job.status', { jobId: job.id, status: job.status, attempts: job.attempts });
      } else if (now.status !== given.status || now.finishedAt !== given.finishedAt) {
        const event = terminalEvent(job);
        (socket.emit as (name: string, payload: unknown) => boolean)(event.name, event.payload);
        this.give(socket, job.id, now);
      }
    }
  }

  private tell(jobId: string, event: JobEvent): void {
    const listeners = this.watchers.get(jobId);
    if (listeners) for (const listener of [...listeners]) listener(event);
  }
}

function outcomeOf(job: JobView): GivenOutcome | undefined {
  if (!isTerminal(job.status)) return undefined;
  return { status: job.status as GivenOutcome['status'], finishedAt: job.finishedAt };
}

function terminalEvent(job: JobView): RoomEvent {
  if (job.status === 'succeeded') return { name: 'job.completed', payload: { jobId: job.id, result: job.result } };
  if (job.status === 'failed') return { name: 'job.failed', payload: { jobId: job.id, error: job.error ?? FAILED_WITHOUT_ERROR } };
  return { name: 'job.cancelled', payload: { jobId: job.id } };
}
