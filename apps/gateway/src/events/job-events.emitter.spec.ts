import { createServer, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, Socket } from 'socket.io';
import { io, Socket as ClientSocket } from 'socket.io-client';
import type { JobStatus, JobView } from '@quarry/contracts';
import { EventsNamespace, JobEventsEmitter, JobReader } from './job-events.emitter';

/** A real socket.io server on loopback whose namespace the emitter sends to, and the rows its reads answer. */
async function setup() {
  const http: HttpServer = createServer();
  const server = new Server(http, { transports: ['websocket'] });
  const namespace = server.of('/events') as unknown as EventsNamespace;
  const rows = new Map<string, JobView>();
  const reader: JobReader = { find: async (id: string) => rows.get(id) ?? null };
  const emitter = new JobEventsEmitter(reader);
  emitter.attach(namespace);
  const serverSockets: Socket[] = [];
  namespace.on('connection', (socket) => serverSockets.push(socket as unknown as Socket));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/events`;
  const clients: ClientSocket[] = [];

  /** A connected client and its server-side socket; `seen` lists every event it receives as `name` or `name:status`. */
  async function connect() {
    const client = io(url, { transports: ['websocket'], reconnection: false });
    clients.push(client);
    const seen: string[] = [];
    client.onAny((name: string, payload: { status?: string }) => seen.push(payload?.status ? `${name}:${payload.status}` : name));
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    const socket = serverSockets.find((candidate) => candidate.id === client.id) as unknown as Parameters<JobEventsEmitter['follow']>[0];
    return { client, socket, seen };
  }

  async function close() {
    for (const client of clients) client.disconnect();
    await new Promise((resolve) => server.close(() => resolve(undefined)));
  }
  return { emitter, rows, connect, close };
}

function job(id: string, status: JobStatus, finishedAt: string | null = null): JobView {
  return {
    id,
    kind: 'scan',
    status,
    input: {},
    result: status === 'succeeded' ? { files: 1 } : null,
    error: status === 'failed' ? { kind: 'root_not_found', message: 'gone' } : null,
    progress: null,
    attempts: 1,
    parentId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    startedAt: null,
    finishedAt,
  };
}

/** Lets the emitter's next-tick flush and the socket round trip happen. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

describe('JobEventsEmitter', () => {
  let env: Awaited<ReturnType<typeof setup>>;
  beforeEach(async () => {
    env = await setup();
  });
  afterEach(() => env.close());

  it('sends a room its events of a tick together on the next tick, superseded progress dropped, order kept', async () => {
    const { socket, seen } = await env.connect();
    env.emitter.follow(socket, job('a', 'queued'));
    env.emitter.status('a', 'running');
    env.emitter.progress('a', { stage: 'reading', done: 1 });
    env.emitter.progress('a', { stage: 'reading', done: 2 });
    env.emitter.completed('a', { files: 3 });
    await settle();
    expect(seen).toEqual(['job.status:running', 'job.progress', 'job.completed']);
  });

  it('tells in-process watchers at once, and says whether anyone watches', () => {
    const seen: string[] = [];
    const stop = env.emitter.watch('b', (event) => seen.push(event.type));
    env.emitter.progress('b', { stage: 'x', done: 1 });
    env.emitter.completed('b', null);
    expect(seen).toEqual(['progress', 'completed']);
    expect(env.emitter.isWatched('b')).toBe(true);
    stop();
    expect(env.emitter.isWatched('b')).toBe(false);
  });

  it('gives a socket one outcome when the completion is reported twice (the relay and a repeated run)', async () => {
    const { socket, seen } = await env.connect();
    env.emitter.follow(socket, job('c', 'running'));
    env.emitter.completed('c', { files: 1 });
    await settle();
    env.emitter.completed('c', { files: 1 });
    env.emitter.cancelled('c', '2026-01-01T00:00:01.000Z');
    await settle();
    expect(seen).toEqual(['job.completed']);
  });

  it('sends nothing after the snapshot of a finished job: a late event of its run is not news', async () => {
    const { socket, seen } = await env.connect();
    env.emitter.follow(socket, job('d', 'succeeded', '2026-01-01T00:00:01.000Z'));
    env.emitter.status('d', 'running');
    env.emitter.progress('d', { stage: 'reading', done: 1 });
    env.emitter.completed('d', { files: 1 });
    await settle();
    expect(seen).toEqual([]);
  });

  it('catches up a socket that joined too late for the final event, but never twice', async () => {
    const late = await env.connect();
    env.emitter.follow(late.socket, job('e', 'running'));
    env.emitter.catchUp(late.socket, job('e', 'succeeded', '2026-01-01T00:00:01.000Z'));
    const early = await env.connect();
    env.emitter.follow(early.socket, job('e2', 'running'));
    env.emitter.completed('e2', { files: 1 });
    await settle();
    env.emitter.catchUp(early.socket, job('e2', 'succeeded', '2026-01-01T00:00:01.000Z'));
    env.emitter.completed('e', { files: 1 });
    await settle();
    expect(late.seen).toEqual(['job.completed']);
    expect(early.seen).toEqual(['job.completed']);
  });

  it('gives a cancel once though the cancelling request and the stopped run both report it', async () => {
    const { socket, seen } = await env.connect();
    env.emitter.follow(socket, job('f', 'running'));
    env.emitter.cancelled('f', '2026-01-01T00:00:01.000Z');
    env.emitter.cancelled('f', '2026-01-01T00:00:01.000Z');
    await settle();
    env.emitter.cancelled('f', '2026-01-01T00:00:01.000Z');
    await settle();
    expect(seen).toEqual(['job.cancelled']);
  });

  it('brings a socket told of a failure back for the retry, as the row says, and gives the new outcome once', async () => {
    const failedAt = '2026-01-01T00:00:01.000Z';
    const { socket, seen } = await env.connect();
    env.emitter.follow(socket, job('g', 'failed', failedAt));
    // A late copy of the failure, and a late 'running' of the failed run: the row still says failed.
    env.rows.set('g', job('g', 'failed', failedAt));
    env.emitter.failed('g', { kind: 'root_not_found', message: 'gone' }, failedAt);
    env.emitter.status('g', 'running');
    await settle();
    expect(seen).toEqual([]);
    // Retried elsewhere: the row is running again.
    env.rows.set('g', job('g', 'running'));
    env.emitter.status('g', 'running');
    await settle();
    env.emitter.progress('g', { stage: 'reading', done: 1 });
    env.emitter.completed('g', { files: 1 });
    await settle();
    env.emitter.completed('g', { files: 1 });
    await settle();
    expect(seen).toEqual(['job.status:running', 'job.progress', 'job.completed']);
  });

  it('gives a retried run that failed again its own failure, told apart by the row’s finishedAt', async () => {
    const { socket, seen } = await env.connect();
    env.emitter.follow(socket, job('h', 'failed', '2026-01-01T00:00:01.000Z'));
    env.emitter.failed('h', { kind: 'root_not_found', message: 'gone' }, '2026-01-01T00:00:09.000Z');
    env.emitter.failed('h', { kind: 'root_not_found', message: 'gone' }, '2026-01-01T00:00:09.000Z');
    await settle();
    expect(seen).toEqual(['job.failed']);
  });

  it('forgets a socket’s outcomes when it unsubscribes or goes away', async () => {
    const { client, socket } = await env.connect();
    env.emitter.follow(socket, job('i', 'failed', '2026-01-01T00:00:01.000Z'));
    expect(env.emitter.isWatched('i')).toBe(true);
    env.emitter.unfollow(socket, 'i');
    expect(env.emitter.isWatched('i')).toBe(false);
    env.emitter.follow(socket, job('j', 'cancelled', '2026-01-01T00:00:01.000Z'));
    client.disconnect();
    env.emitter.forgetSocket(socket.id);
    expect(env.emitter.isWatched('j')).toBe(false);
  });
});
