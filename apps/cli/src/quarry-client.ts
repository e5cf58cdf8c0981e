import type { Socket } from 'socket.io-client';
import {
  BatchAnswer,
  ClientToServerEvents,
  EVENTS_NAMESPACE,
  JobPage,
  JobProgress,
  JobView,
  QuarryErrorBody,
  SearchAnswer,
  SearchInput,
  ServerToClientEvents,
  type NavigationInput,
  type NavigationQuery,
  type NavigationResult,
} from '@quarry/contracts';
import { ClientError } from './client-error';

export { ClientError };

export type JobOutcome =
  | { status: 'succeeded'; result: unknown }
  | { status: 'failed'; error: QuarryErrorBody }
  | { status: 'cancelled' };

export interface WatchCallbacks {
  onProgress?(progress: JobProgress): void;
  onStatus?(status: string, attempts?: number, error?: QuarryErrorBody): void;
}

/** REST + socket.io client of a Quarry gateway, used by the CLI (and by tests and benchmarks). */
export class QuarryClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey?: string,
  ) {}

  submit(kind: string, input: unknown): Promise<JobView> {
    return this.request('POST', '/v1/jobs', { kind, input });
  }
  /**
   * Several jobs in one request (POST /v1/jobs/batch, split into requests of `chunk`). Items the
   * server refused come back with their index and typed error; the others were accepted.
   */
  async submitMany(jobs: Array<{ kind: string; input: unknown }>, chunk = 500): Promise<BatchAnswer> {
    const answer: BatchAnswer = { accepted: 0, rejected: 0, items: [] };
    for (let start = 0; start < jobs.length; start += chunk) {
      const part = await this.request<BatchAnswer>('POST', '/v1/jobs/batch', { jobs: jobs.slice(start, start + chunk) }, ['batch_rejected']);
      answer.accepted += part.accepted;
      answer.rejected += part.rejected;
      answer.items.push(...part.items.map((item) => ({ ...item, index: item.index + start })));
    }
    return answer;
  }
  get(id: string): Promise<JobView> {
    return this.request('GET', `/v1/jobs/${encodeURIComponent(id)}`);
  }
  list(query: Record<string, string | number | undefined>): Promise<JobPage> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    return this.request('GET', `/v1/jobs?${params}`);
  }
  cancel(id: string): Promise<JobView> {
    return this.request('POST', `/v1/jobs/${encodeURIComponent(id)}/cancel`);
  }
  /** `POST /v1/search`: answered at once, not a job. */
  search(input: SearchInput): Promise<SearchAnswer> {
    return this.request('POST', '/v1/search', input);
  }
  navigate<Q extends NavigationQuery>(input: NavigationInput & { query: Q }): Promise<NavigationResult<Q>> {
    return this.request('POST', '/v1/navigation', input);
  }
  retry(id: string): Promise<JobView> {
    return this.request('POST', `/v1/jobs/${encodeURIComponent(id)}/retry`);
  }

  /** Streams a job's artifact (a pack's document) into `destination`; resolves with the bytes written. */
  async download(id: string, destination: NodeJS.WritableStream): Promise<number> {
    const response = await fetch(`${this.baseUrl}/v1/jobs/${encodeURIComponent(id)}/artifact`, {
      headers: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
    });
    if (!response.ok || !response.body) {
      const payload = (await response.json().catch(() => ({}))) as Partial<QuarryErrorBody>;
      throw new ClientError({ kind: payload.kind ?? 'http_error', message: payload.message ?? `HTTP ${response.status}`, suggestion: payload.suggestion }, response.status);
    }
    const { Readable } = await import('node:stream');
    const { pipeline } = await import('node:stream/promises');
    let bytes = 0;
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => (bytes += chunk.length));
    await pipeline(body, destination);
    return bytes;
  }

  /** Subscribes to a job and resolves with its outcome (from the snapshot if already finished). */
  async watch(jobId: string, callbacks: WatchCallbacks = {}): Promise<JobOutcome> {
    // Loaded here, not with the module: `quarry scan --local` and `jobs list` never open a socket.
    const { io } = await import('socket.io-client');
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io(this.baseUrl + EVENTS_NAMESPACE, {
      transports: ['websocket'],
      auth: this.apiKey ? { token: this.apiKey } : {},
      reconnection: true,
    });
    return new Promise<JobOutcome>((resolve, reject) => {
      const finish = (outcome: JobOutcome) => {
        socket.disconnect();
        resolve(outcome);
      };
      socket.on('connect', () => {
        // Re-subscribing after a reconnect brings a fresh snapshot, so nothing is missed.
        socket.emit('subscribe', { jobId }, (ack) => {
          if (!ack.ok) {
            socket.disconnect();
            reject(new ClientError(ack.error));
          }
        });
      });
      socket.on('connect_error', (error: Error & { data?: QuarryErrorBody }) => {
        if (error.data?.kind) {
          socket.disconnect();
          reject(new ClientError(error.data));
        }
      });
      socket.on('job.snapshot', ({ job }) => {
        if (job.id !== jobId) return;
        if (job.progress) callbacks.onProgress?.(job.progress);
        if (job.status === 'succeeded') finish({ status: 'succeeded', result: job.result });
        else if (job.status === 'failed' && job.error) finish({ status: 'failed', error: job.error });
        else if (job.status === 'cancelled') finish({ status: 'cancelled' });
      });
      socket.on('job.progress', (event) => event.jobId === jobId && callbacks.onProgress?.(event.progress));
      socket.on('job.status', (event) => event.jobId === jobId && callbacks.onStatus?.(event.status, event.attempts, event.error));
      socket.on('job.completed', (event) => event.jobId === jobId && finish({ status: 'succeeded', result: event.result }));
      socket.on('job.failed', (event) => event.jobId === jobId && finish({ status: 'failed', error: event.error }));
      socket.on('job.cancelled', (event) => event.jobId === jobId && finish({ status: 'cancelled' }));
    });
  }

  /** `answerKinds`: error kinds whose body is an answer to return (a batch none of whose items was accepted). */
  private async request<T>(method: string, path: string, body?: unknown, answerKinds: string[] = []): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new ClientError({
        kind: 'unreachable',
        message: `No Quarry answers at ${this.baseUrl} (${(error as Error).cause ?? (error as Error).message}).`,
        suggestion: 'Start one with `npm start` (or `quarry up`), or point --server / QUARRY_URL at a running gateway.',
      });
    }
    const payload = (await response.json().catch(() => ({}))) as T & Partial<QuarryErrorBody>;
    if (!response.ok && !(payload.kind && answerKinds.includes(payload.kind))) {
      throw new ClientError(
        { kind: payload.kind ?? 'http_error', message: payload.message ?? `HTTP ${response.status}`, suggestion: payload.suggestion },
        response.status,
      );
    }
    return payload;
  }
}
