import { io } from 'socket.io-client';
import type { JobView, SubscribeAck } from '../../libs/contracts/src';
import type { EventsSocket } from '../support/events-socket';
import { TestStack, waitFor } from '../support/stack';
import { makeTree } from '../support/trees';
import { FailsFirstRunScanProcessor } from '../support/test-processors';

/*
 * A subscriber sees exactly one outcome per job: the snapshot of a finished job, or one
 * job.completed / job.failed / job.cancelled after a snapshot of an unfinished one — never both,
 * never two. The race that doubled it: a client subscribes right after its POST while workers
 * run, so the job finishes between the snapshot read, the room join and the catch-up read, and
 * the completion reaches the gateway through QueueEvents at any point of that.
 */

const CLIENTS = 2_000;
/** Clients in flight at once: enough that the worker stays busy while others subscribe. */
const WAVE = 250;
const TERMINAL = new Set(['job.completed', 'job.failed', 'job.cancelled']);

interface Client {
  jobId: string;
  /** Outcomes seen over the client's whole life, across its reconnects: terminal snapshots and terminal events. */
  outcomes: string[];
  /** Everything received, for the failure message. */
  seen: string[];
  socket: EventsSocket;
}

type Behaviour = 'plain' | 'cancels' | 'reconnects';

/**
 * One client as the CLI behaves: POST, connect, subscribe on every (re)connect until it has an
 * outcome; `cancels` cancels its job right after subscribing, `reconnects` drops its connection
 * right after subscribing and lets socket.io reconnect it.
 */
async function runClient(stack: TestStack, root: string, behaviour: Behaviour): Promise<Client> {
  // Connected first, so the subscribe follows the POST's answer as closely as a client can make it.
  const socket: EventsSocket = io(`${stack.url}/events`, { transports: ['websocket'], reconnectionDelay: 20, reconnectionDelayMax: 50 });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const submitted = await stack.submit('scan', { root, codeIndex: false });
  if (submitted.status !== 202) throw new Error(`POST /v1/jobs answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
  const jobId = (submitted.body as JobView).id;
  const client: Client = { jobId, outcomes: [], seen: [], socket };
  socket.onAny((event: string, payload: { jobId?: string; job?: JobView }) => {
    if (event === 'job.snapshot') {
      client.seen.push(`snapshot:${payload.job?.status}`);
      if (payload.job && ['succeeded', 'failed', 'cancelled'].includes(payload.job.status)) client.outcomes.push(`snapshot:${payload.job.status}`);
    } else {
      client.seen.push(event);
      if (TERMINAL.has(event) && payload.jobId === jobId) client.outcomes.push(event);
    }
  });
  let subscriptions = 0;
  await new Promise<void>((resolve, reject) => {
    const subscribe = () => {
      if (client.outcomes.length > 0) return;
      subscriptions++;
      socket.emit('subscribe', { jobId }, (ack: SubscribeAck) => {
        if (!ack.ok) return reject(new Error(`subscribe refused: ${ack.error.kind}`));
        if (subscriptions > 1) return;
        if (behaviour === 'cancels') void stack.request('POST', `/v1/jobs/${jobId}/cancel`);
        if (behaviour === 'reconnects') socket.io.engine.close();
        resolve();
      });
    };
    // After a reconnect, subscribe again unless the outcome already came (as the CLI does).
    socket.on('connect', subscribe);
    subscribe();
  });
  return client;
}

describe('exactly one outcome per job and subscriber', () => {
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    root = makeTree({ 'src/a.ts': 'export const a = 1;\n', 'src/b.py': 'b = 2\n', 'README.md': '# x\n' });
    stack = await TestStack.start({ workspaceRoots: [root], workerConcurrency: 16 });
  });
  afterAll(() => stack.close());

  it(`${CLIENTS} clients subscribing right after their POST while the worker runs: one outcome each, matching Postgres`, async () => {
    const problems: string[] = [];
    let reconnected = 0;
    let cancelled = 0;
    let raced = 0;
    for (let start = 0; start < CLIENTS; start += WAVE) {
      const behaviours: Behaviour[] = Array.from({ length: Math.min(WAVE, CLIENTS - start) }, (_, i) => (i % 10 === 3 ? 'cancels' : i % 10 === 7 ? 'reconnects' : 'plain'));
      const clients = await Promise.all(behaviours.map((behaviour) => runClient(stack, root, behaviour)));
      try {
        const ids = clients.map((client) => client.jobId);
        await waitFor(async () => (await stack.prisma.job.count({ where: { id: { in: ids }, status: { in: ['succeeded', 'failed', 'cancelled'] } } })) === ids.length, 60_000, 'the wave to finish');
        await waitFor(() => clients.every((client) => client.outcomes.length > 0), 10_000, 'every client to see an outcome');
        // Late duplicates come through the QueueEvents stream: give it time to deliver them.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const rows = new Map((await stack.prisma.job.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } })).map((row) => [row.id, row.status]));
        clients.forEach((client, i) => {
          if (behaviours[i] === 'reconnects' && client.seen.filter((event) => event.startsWith('snapshot')).length > 1) reconnected++;
          if (rows.get(client.jobId) === 'cancelled') cancelled++;
          if (!/snapshot:(succeeded|failed|cancelled)/.test(client.seen[0] ?? '')) raced++;
          const status = rows.get(client.jobId) as string;
          const event = { succeeded: 'job.completed', failed: 'job.failed', cancelled: 'job.cancelled' }[status];
          if (client.outcomes.length !== 1 || ![`snapshot:${status}`, event].includes(client.outcomes[0])) {
            problems.push(`${behaviours[i]} client of job ${client.jobId} (${rows.get(client.jobId)}): outcomes ${client.outcomes.join(', ')}; saw ${client.seen.join(' ')}`);
          }
        });
      } finally {
        for (const client of clients) client.socket.disconnect();
      }
    }
    console.log(`outcome race: ${CLIENTS} clients, ${raced} saw the job unfinished in their snapshot, ${reconnected} reconnected, ${cancelled} jobs cancelled; ${problems.length} with not exactly one outcome`);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(problems.length).toBe(0);
    // The race was really run: reconnects happened and cancels landed on unfinished jobs.
    expect(reconnected).toBeGreaterThan(0);
    expect(cancelled).toBeGreaterThan(0);
    expect(raced).toBeGreaterThan(CLIENTS / 10);
  }, 300_000);
});

describe('a retried job: one outcome per run', () => {
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    root = makeTree({ 'a.ts': '1\n' });
    stack = await TestStack.start({ workspaceRoots: [root], workerConcurrency: 16 }, { processors: [FailsFirstRunScanProcessor] });
  });
  afterAll(() => stack.close());

  it('a subscriber told of the failure is told of the retried run once; one subscribing right after the retry gets one outcome', async () => {
    const CLIENTS_RETRYING = 200;
    const problems: string[] = [];
    const failing = await Promise.all(Array.from({ length: CLIENTS_RETRYING }, () => runClient(stack, root, 'plain')));
    try {
      await waitFor(() => failing.every((client) => client.outcomes.length > 0), 30_000, 'every first run to fail');
      for (const client of failing) if (!/failed/.test(client.outcomes.join())) problems.push(`first run of ${client.jobId}: ${client.outcomes.join(', ')}`);
      const late: EventsSocket[] = [];
      const lateOutcomes = new Map<string, string[]>();
      await Promise.all(
        failing.map(async (client) => {
          const retried = await stack.request('POST', `/v1/jobs/${client.jobId}/retry`);
          if (retried.status !== 202) problems.push(`retry of ${client.jobId} answered ${retried.status}`);
          // A second subscriber, right after the retry's answer: the race again, on the second run.
          const socket = io(`${stack.url}/events`, { transports: ['websocket'], reconnection: false });
          late.push(socket);
          const outcomes: string[] = [];
          lateOutcomes.set(client.jobId, outcomes);
          socket.onAny((event: string, payload: { jobId?: string; job?: JobView }) => {
            if (event === 'job.snapshot' && payload.job && ['succeeded', 'failed', 'cancelled'].includes(payload.job.status)) outcomes.push(`snapshot:${payload.job.status}`);
            if (TERMINAL.has(event)) outcomes.push(event);
          });
          socket.emit('subscribe', { jobId: client.jobId }, () => undefined);
        }),
      );
      const ids = failing.map((client) => client.jobId);
      await waitFor(async () => (await stack.prisma.job.count({ where: { id: { in: ids }, status: 'succeeded' } })) === ids.length, 30_000, 'every retried run to succeed');
      await waitFor(() => failing.every((client) => client.outcomes.length >= 2) && [...lateOutcomes.values()].every((outcomes) => outcomes.length > 0), 10_000, 'the second outcomes');
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const client of failing) {
        if (client.outcomes.length !== 2 || !['job.completed', 'snapshot:succeeded'].includes(client.outcomes[1])) problems.push(`first subscriber of ${client.jobId}: ${client.outcomes.join(', ')}; saw ${client.seen.join(' ')}`);
        const second = lateOutcomes.get(client.jobId) ?? [];
        if (second.length !== 1 || !['job.completed', 'snapshot:succeeded'].includes(second[0])) problems.push(`second subscriber of ${client.jobId}: ${second.join(', ')}`);
      }
      for (const socket of late) socket.disconnect();
    } finally {
      for (const client of failing) client.socket.disconnect();
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(problems.length).toBe(0);
  }, 120_000);
});
