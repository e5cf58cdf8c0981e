import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, JobView, ServerToClientEvents, SubscribeAck } from './contracts.js';
import { storedKey } from './api.js';
import { appendHistory, changed, isTerminal, patchJob, putJob, setAuthProblem, setHistory, state } from './store.js';

type EventsSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * One socket on /events. It holds the set of jobs the page wants to watch; on every (re)connect it
 * subscribes to all of them again, and each subscribe answers with a fresh snapshot, so a gateway
 * restart loses nothing.
 */
class Live {
  private socket: EventsSocket | undefined;
  private readonly wanted = new Set<string>();
  private readonly subscribed = new Set<string>();

  connect(): void {
    this.socket?.removeAllListeners();
    this.socket?.disconnect();
    this.subscribed.clear();
    state.connection = 'connecting';
    const key = storedKey();
    const socket: EventsSocket = io('/events', {
      transports: ['websocket'],
      auth: key ? { token: key } : {},
      reconnectionDelay: 500,
      reconnectionDelayMax: 3000,
    });
    this.socket = socket;

    socket.on('connect', () => {
      state.connection = 'live';
      this.subscribed.clear();
      for (const id of this.wanted) this.subscribe(id);
      changed();
    });
    socket.on('disconnect', () => {
      this.subscribed.clear();
      state.connection = 'reconnecting';
      changed();
    });
    socket.on('connect_error', (error: Error & { data?: { kind?: string; message?: string; suggestion?: string } }) => {
      if (error.data?.kind === 'unauthorized') {
        state.connection = 'refused';
        setAuthProblem(401, { kind: 'unauthorized', message: error.data.message ?? error.message, suggestion: error.data.suggestion }, !!key);
      } else {
        state.connection = 'reconnecting';
      }
      changed();
    });
    // A refused handshake is final for this socket; retry slowly in case the key was only just created.
    socket.io.on('reconnect_attempt', () => {
      state.connection = 'reconnecting';
      changed();
    });

    socket.on('job.snapshot', ({ job, history }) => {
      putJob(job, true);
      setHistory(job.id, history);
    });
    socket.on('job.progress', ({ jobId, progress }) => {
      const job = state.jobs.get(jobId);
      if (job && isTerminal(job.status)) return;
      patchJob(jobId, { progress, ...(job && job.status === 'queued' ? { status: 'running' as const } : {}) });
      appendHistory(jobId, 'progress', progress);
    });
    socket.on('job.status', ({ jobId, status, attempts, error }) => {
      patchJob(jobId, {
        status,
        ...(attempts !== undefined ? { attempts } : {}),
        ...(error ? { error } : {}),
        ...(status === 'running' && !state.jobs.get(jobId)?.startedAt ? { startedAt: new Date().toISOString() } : {}),
      });
      appendHistory(jobId, status === 'queued' ? 'retrying' : status === 'running' ? 'started' : status, error ?? (attempts !== undefined ? { attempt: attempts } : null));
    });
    socket.on('job.completed', ({ jobId, result }) => {
      patchJob(jobId, { status: 'succeeded', result, finishedAt: new Date().toISOString() });
      appendHistory(jobId, 'completed', null);
      void this.refresh(jobId);
    });
    socket.on('job.failed', ({ jobId, error }) => {
      patchJob(jobId, { status: 'failed', error, finishedAt: new Date().toISOString() });
      appendHistory(jobId, 'failed', error);
      void this.refresh(jobId);
    });
    socket.on('job.cancelled', ({ jobId }) => {
      patchJob(jobId, { status: 'cancelled', finishedAt: new Date().toISOString() });
      appendHistory(jobId, 'cancelled', null);
      void this.refresh(jobId);
    });
  }

  /** After a terminal event, take the stored row (exact timestamps, final progress). */
  private refresh: (id: string) => Promise<void> = async () => undefined;
  setRefresher(refresh: (id: string) => Promise<void>): void {
    this.refresh = refresh;
  }

  /** Makes the watched set exactly `ids`: subscribes to new ones, unsubscribes from the rest. */
  watch(ids: Iterable<string>): void {
    const next = new Set(ids);
    for (const id of this.wanted) {
      if (!next.has(id)) {
        this.wanted.delete(id);
        if (this.subscribed.delete(id) && this.socket?.connected) this.socket.emit('unsubscribe', { jobId: id });
      }
    }
    for (const id of next) {
      if (!this.wanted.has(id)) {
        this.wanted.add(id);
        this.subscribe(id);
      }
    }
  }

  private subscribe(id: string): void {
    if (!this.socket?.connected || this.subscribed.has(id)) return;
    this.subscribed.add(id);
    this.socket.emit('subscribe', { jobId: id }, (ack: SubscribeAck) => {
      if (ack.ok) return;
      this.subscribed.delete(id);
      if (!setAuthProblem(0, ack.error, !!storedKey()) && ack.error.kind === 'job_not_found') this.wanted.delete(id);
    });
  }

  get watching(): ReadonlySet<string> {
    return this.wanted;
  }
}

export const live = new Live();
export type { JobView };
