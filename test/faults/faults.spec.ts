import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { io } from 'socket.io-client';
import type { JobView, SubscribeAck } from '../../libs/contracts/src';
import { applyMigrations, ensureDatabase } from '../../libs/db/src/migrator';
import type { EventsSocket } from '../support/events-socket';
import { ChildHandle, ProcessGroup, QUARRY_BIN, assertBuilt, freePort } from '../support/processes';
import { PrivatePostgres, PrivateRedis } from '../support/private-services';
import { makeTree } from '../support/trees';

/*
 * The faults suite (`npm run test:faults`): the compiled gateway and workers as real processes, on
 * a Redis and a Postgres this file starts for itself (free 127.0.0.1 ports, temp dirs), so it can
 * kill them. Every check waits on an outcome (rows, events, acks), never on a fixed sleep, and
 * every wait is bounded.
 */

const JOBS = 1_000;
const TREE_FILES = 300;
const BATCH = 20;
/** Short timings so recovery happens within the test: lock 2 s, stalled check every 1 s, reconcile every 1 s (grace 2 s). */
const RECOVERY_ENV = {
  QUARRY_JOB_LOCK_MS: '2000',
  QUARRY_STALLED_INTERVAL_MS: '1000',
  // Three kill -9s may hit the same job twice; it must run again, not fail as job_stalled.
  QUARRY_MAX_STALLED_COUNT: '10',
  QUARRY_RECONCILE_INTERVAL_MS: '1000',
  QUARRY_RECONCILE_GRACE_MS: '2000',
  QUARRY_SHUTDOWN_TIMEOUT_MS: '3000',
};
const RECONCILE_BOUND_MS = 1_000 + 2_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
}

interface Answer {
  status: number;
  body: any;
}

async function request(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

describe('faults: processes, Redis and Postgres die; nothing accepted is lost or doubled', () => {
  let pg: PrivatePostgres;
  let redis: PrivateRedis;
  let sql: Client;
  let root: string;
  let gatewayPort: number;
  let gateway: ChildHandle;
  const group = new ProcessGroup();
  const workers: ChildHandle[] = [];
  /** Key A's secret, once the key test has created it (the load test after it needs a key). */
  let keyA: string | undefined;

  const env = (extra: Record<string, string> = {}) => ({
    QUARRY_DATABASE_URL: pg.url,
    QUARRY_REDIS_URL: redis.url,
    QUARRY_QUEUE_PREFIX: 'quarry-faults',
    QUARRY_WORKSPACE_ROOTS: root,
    QUARRY_LOG_LEVEL: 'info',
    QUARRY_HOST: '127.0.0.1',
    ...RECOVERY_ENV,
    ...extra,
  });
  const url = () => `http://127.0.0.1:${gatewayPort}`;

  async function startGateway(): Promise<ChildHandle> {
    const handle = group.spawn('gateway', process.execPath, [QUARRY_BIN, 'gateway'], env({ QUARRY_PORT: String(gatewayPort) }));
    await handle.waitForLine(/quarry gateway listening on/, 60_000, '"quarry gateway listening"');
    return handle;
  }

  async function startWorker(): Promise<ChildHandle> {
    const handle = group.spawn(`worker-${workers.length + 1}`, process.execPath, [QUARRY_BIN, 'worker'], env({ QUARRY_WORKER_CONCURRENCY: '20' }));
    workers.push(handle);
    await handle.waitForLine(/worker taking jobs/, 60_000, '"worker taking jobs"');
    return handle;
  }

  async function killWorker(worker: ChildHandle): Promise<void> {
    worker.kill('SIGKILL');
    await worker.waitForExit(10_000);
  }

  beforeAll(async () => {
    assertBuilt();
    [pg, redis] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start()]);
    await ensureDatabase(pg.url);
    await applyMigrations(pg.url);
    sql = new Client({ connectionString: pg.url });
    sql.on('error', () => undefined); // the Postgres restart below drops this connection too
    await sql.connect();
    // Big enough (a scan takes milliseconds) that the worker builds a backlog: every fault below
    // meets jobs running and jobs waiting, not an idle queue.
    root = makeTree(Object.fromEntries(Array.from({ length: TREE_FILES }, (_, i) => [`pkg${i % 10}/mod${i % 7}/file${i}.ts`, `export const v${i} = ${i};\n`])));
    gatewayPort = await freePort();
    gateway = await startGateway();
    await startWorker();
  }, 180_000);

  afterAll(async () => {
    await group.stopAll(5_000);
    await sql?.end().catch(() => undefined);
    await redis?.stop();
    await pg?.stop();
  });

  /** A fresh connection: the suite's own one dies with the Postgres restart. */
  async function query<R extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
    try {
      return (await sql.query<R>(text, values)).rows;
    } catch {
      await sql.end().catch(() => undefined);
      sql = new Client({ connectionString: pg.url });
      sql.on('error', () => undefined);
      await sql.connect();
      return (await sql.query<R>(text, values)).rows;
    }
  }

  /** Submits `total` scans in batches of BATCH, paced; a batch that was not answered 202 was not accepted and is sent again. */
  async function submitPaced(total: number, pauseMs: number, headers: Record<string, string> = {}): Promise<{ accepted: string[]; refusedAttempts: number }> {
    const accepted: string[] = [];
    let refusedAttempts = 0;
    while (accepted.length < total) {
      const size = Math.min(BATCH, total - accepted.length);
      try {
        const answer = await request(url(), 'POST', '/v1/jobs/batch', { jobs: Array.from({ length: size }, () => ({ kind: 'scan', input: { root } })) }, headers);
        if (answer.status === 202) {
          expect(answer.body.accepted).toBe(size);
          accepted.push(...answer.body.items.map((item: { job: JobView }) => item.job.id));
        } else {
          // Postgres away: a typed 503, never a 500.
          expect(answer.status).toBe(503);
          expect(answer.body).toMatchObject({ kind: 'unavailable' });
          refusedAttempts++;
        }
      } catch {
        refusedAttempts++; // the gateway itself is restarting
      }
      await sleep(pauseMs);
    }
    return { accepted, refusedAttempts };
  }

  async function waitAllSucceeded(ids: string[], timeoutMs: number): Promise<number> {
    const started = performance.now();
    await waitUntil(
      async () => {
        const [row] = await query<{ done: number }>(`SELECT count(*)::int AS done FROM jobs WHERE id = ANY($1::uuid[]) AND status = 'succeeded'`, [ids]);
        return row.done === ids.length ? true : undefined;
      },
      timeoutMs,
      `${ids.length} jobs to succeed`,
    );
    return performance.now() - started;
  }

  /** Exactly one result and a history that makes sense, for every job given. */
  async function expectExactlyOnce(ids: string[]): Promise<void> {
    const rows = await query<{ id: string; status: string; files: number | null; types: string[] }>(
      `SELECT j.id::text, j.status::text, (j.result->>'files')::int AS files,
              array(SELECT type FROM job_events e WHERE e.job_id = j.id ORDER BY e.id) AS types
         FROM jobs j WHERE j.id = ANY($1::uuid[])`,
      [ids],
    );
    expect(rows).toHaveLength(ids.length);
    const problems: string[] = [];
    for (const row of rows) {
      const count = (type: string) => row.types.filter((t) => t === type).length;
      const sane =
        row.status === 'succeeded' &&
        row.files === TREE_FILES &&
        row.types[0] === 'queued' &&
        row.types[row.types.length - 1] === 'completed' &&
        count('queued') === 1 &&
        count('completed') === 1 &&
        count('started') >= 1 &&
        count('failed') === 0 &&
        count('cancelled') === 0;
      if (!sane) problems.push(`${row.id}: ${row.status}, files ${row.files}, history ${row.types.join(' → ')}`);
    }
    expect(problems).toEqual([]);
  }

  it(
    `${JOBS} jobs in flight through 3 worker kill -9s, a Redis restart (all queue state gone) and a Postgres restart: each succeeds exactly once`,
    async () => {
      const faults: string[] = [];
      const submitting = submitPaced(JOBS, 150);
      const fault = async (name: string, action: () => Promise<void>, afterMs: number) => {
        await sleep(afterMs);
        await action();
        faults.push(name);
      };
      let worker = workers[workers.length - 1];
      const faulting = (async () => {
        await fault('kill -9 worker (1)', async () => {
          await killWorker(worker);
          worker = await startWorker();
        }, 1_000);
        await fault('kill -9 worker (2)', async () => {
          await killWorker(worker);
          worker = await startWorker();
        }, 1_500);
        await fault('restart Redis (no persistence)', () => redis.restart(), 1_000);
        await fault('restart Postgres (immediate shutdown)', () => pg.restart(), 1_000);
        await fault('kill -9 worker (3)', async () => {
          await killWorker(worker);
          worker = await startWorker();
        }, 1_000);
      })();
      const [{ accepted }] = await Promise.all([submitting, faulting]);
      expect(faults).toHaveLength(5);
      expect(new Set(accepted).size).toBe(JOBS);

      const drainMs = await waitAllSucceeded(accepted, 120_000);
      await expectExactlyOnce(accepted);
      // Nothing else in the database is stuck either (rows from refused attempts included).
      await waitUntil(
        async () => ((await query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running')`))[0].n === 0 ? true : undefined),
        30_000,
        'no queued or running rows',
      );
      const [{ n: notSucceeded }] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE status <> 'succeeded'`);
      expect(notSucceeded).toBe(0);
      // The faults did hit work in flight: some jobs lost their worker and ran again, and the
      // reconciler put back queue copies the Redis restart had lost.
      const [{ n: rerun }] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT job_id FROM job_events WHERE type = 'started' AND job_id = ANY($1::uuid[]) GROUP BY job_id HAVING count(*) > 1) t`,
        [accepted],
      );
      expect(rerun).toBeGreaterThan(0);
      expect(gateway.lines.some((line) => line.text.includes('reconciled jobs Redis had lost'))).toBe(true);
      console.log(`faults: ${accepted.length} accepted, all succeeded exactly once, ${rerun} ran more than once; drained ${Math.round(drainMs)} ms after the last submission (${faults.join(', ')})`);
    },
    300_000,
  );

  it('a job left queued with no queue copy is back in the queue within the reconciler bound', async () => {
    // Redis loses everything while no worker runs: the rows stay queued with no copy anywhere.
    for (const worker of workers) if (worker.alive) await killWorker(worker);
    const { accepted } = await submitPaced(40, 0);
    await redis.restart();
    const lostAt = performance.now();
    await startWorker();
    await waitAllSucceeded(accepted, 60_000);
    const recoveredMs = performance.now() - lostAt;
    await expectExactlyOnce(accepted);
    // Interval + grace + worker start-up and run; a generous multiple, as the machine may be busy.
    expect(recoveredMs).toBeLessThan(RECONCILE_BOUND_MS + 30_000);
  }, 120_000);

  it('a gateway restart under load loses no accepted job, and socket clients resubscribe and get a fresh snapshot', async () => {
    const clients = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const socket: EventsSocket = io(`${url()}/events`, { transports: ['websocket'], reconnection: true, reconnectionDelay: 100, reconnectionDelayMax: 500 });
        const snapshots: JobView[] = [];
        let jobId: string | undefined;
        socket.on('job.snapshot', ({ job }) => snapshots.push(job));
        // As QuarryClient does: (re)subscribe on every connect.
        socket.on('connect', () => jobId && socket.emit('subscribe', { jobId }, () => undefined));
        await waitUntil(async () => (socket.connected ? true : undefined), 10_000, 'socket connected');
        return {
          socket,
          snapshots,
          follow: async (id: string) => {
            jobId = id;
            const ack = await new Promise<SubscribeAck>((resolve) => socket.emit('subscribe', { jobId: id }, resolve));
            expect(ack.ok).toBe(true);
          },
        };
      }),
    );
    try {
      const submitting = submitPaced(300, 20);
      // Follow the first accepted jobs, then restart the gateway while the rest are being submitted.
      const first = await waitUntil(
        async () => (await query<{ id: string }>(`SELECT id::text FROM jobs ORDER BY created_at DESC LIMIT 5`)).map((row) => row.id),
        10_000,
        'first jobs',
      );
      await Promise.all(clients.map((client, i) => client.follow(first[i % first.length])));
      const before = clients.map((client) => client.snapshots.length);
      gateway.kill('SIGKILL');
      await gateway.waitForExit(10_000);
      gateway = await startGateway();
      const { accepted } = await submitting;
      await waitAllSucceeded(accepted, 90_000);
      await expectExactlyOnce(accepted);
      // Every client reconnected on its own, subscribed again and got a fresh snapshot.
      await waitUntil(async () => (clients.every((client, i) => client.snapshots.length > before[i]) ? true : undefined), 20_000, 'fresh snapshots');
    } finally {
      for (const client of clients) client.socket.disconnect();
    }
  }, 180_000);

  it('hostile input: typed 4xx on every route, never a 500; a bad socket payload gets a typed ack and other clients stay connected', async () => {
    const cases: Array<[string, string, unknown, Record<string, string>?]> = [
      ['POST', '/v1/jobs', '{"kind": "scan", "input": {'],
      ['POST', '/v1/jobs', { kind: 42, input: null }],
      ['POST', '/v1/jobs', { kind: 'nope', input: {} }],
      ['POST', '/v1/jobs', {}],
      ['POST', '/v1/jobs', { kind: 'scan', input: { root: 'x'.repeat(2_000_000) } }],
      ['POST', '/v1/jobs/batch', { jobs: 'all of them' }],
      ['POST', '/v1/jobs/batch', { jobs: Array.from({ length: 501 }, () => ({ kind: 'scan', input: { root } })) }],
      ['POST', '/v1/jobs/batch', '[]'],
      ['GET', '/v1/jobs/%00%ff', undefined],
      ['GET', '/v1/jobs/not-a-uuid/events', undefined],
      ['POST', '/v1/jobs/00000000-0000-4000-8000-000000000000/retry', undefined],
      ['GET', '/v1/jobs?limit=-1&status[]=x', undefined],
      ['DELETE', '/v1/jobs', undefined],
      ['PUT', '/v1/jobs/batch', { jobs: [] }],
      ['GET', '/v1/nothing/here', undefined],
      // Bodies that are not what their Content-Encoding says, cursors dated where Postgres has no dates, text jsonb refuses.
      ['POST', '/v1/jobs', { kind: 'scan', input: { root } }, { 'content-encoding': 'gzip' }],
      ['POST', '/v1/jobs', { kind: 'scan', input: { root } }, { 'content-encoding': 'br' }],
      ['POST', '/v1/jobs/batch', { jobs: [] }, { 'content-encoding': 'deflate' }],
      ['POST', '/mcp', { jsonrpc: '2.0' }, { 'content-encoding': 'gzip' }],
      ['GET', `/v1/jobs?cursor=${Buffer.from('0000-01-01T00:00:00.000Z|00000000-0000-4000-8000-000000000000').toString('base64url')}`, undefined],
      ['GET', `/v1/jobs?cursor=${Buffer.from('-271821-04-20T00:00:00.000Z|00000000-0000-4000-8000-000000000000').toString('base64url')}`, undefined],
      ['POST', '/v1/jobs', { kind: 'interpret', input: { root, query: 'where is \u0000 used' } }],
      ['POST', '/v1/jobs', `{"kind": "mentions", "input": {"root": ${JSON.stringify(root)}, "prompt": "see \\udc00"}}`],
    ];
    const watcher = io(`${url()}/events`, { transports: ['websocket'], reconnection: false });
    await waitUntil(async () => (watcher.connected ? true : undefined), 10_000, 'watcher connected');
    for (const [method, path, body, headers] of cases) {
      const answer = await request(url(), method, path, body, headers);
      expect([method, path, answer.status >= 400 && answer.status < 500]).toEqual([method, path, true]);
      expect(answer.body).toMatchObject({ kind: expect.any(String), message: expect.any(String) });
    }
    const bad = io(`${url()}/events`, { transports: ['websocket'], reconnection: false });
    await waitUntil(async () => (bad.connected ? true : undefined), 10_000, 'bad client connected');
    for (const payload of [null, 42, 'x', { jobId: 7 }, { jobId: 'x'.repeat(10_000) }, { jobId: 'not-a-uuid' }]) {
      const ack = await new Promise<SubscribeAck>((resolve) => bad.emit('subscribe', payload as never, resolve));
      expect(ack).toMatchObject({ ok: false, error: { kind: expect.stringMatching(/input_invalid|job_not_found/) } });
    }
    expect(bad.connected).toBe(true);
    expect(watcher.connected).toBe(true);
    bad.disconnect();
    watcher.disconnect();
  }, 60_000);

  it('with API keys, key B can never read, list, cancel, retry or subscribe to key A’s jobs', async () => {
    const keys = await Promise.all(
      ['faults-a', 'faults-b'].map(async (name) => {
        const { ApiKeyRepository } = await import('../../libs/db/src/api-key-repository');
        const { createDatabase } = await import('../../libs/db/src/prisma-client');
        const database = createDatabase(pg.url, 1);
        try {
          return (await new ApiKeyRepository(database.prisma).create(name)).secret;
        } finally {
          await database.close();
        }
      }),
    );
    keyA = keys[0];
    const [a, b] = keys.map((secret) => ({ authorization: `Bearer ${secret}` }));
    // The gateway caches "are keys configured?" for two seconds.
    const accepted = await waitUntil(
      async () => {
        const answer = await request(url(), 'POST', '/v1/jobs/batch', { jobs: [{ kind: 'scan', input: { root } }, { kind: 'scan', input: { root } }] }, a);
        if ((await request(url(), 'GET', '/v1/jobs')).status !== 401) return undefined;
        return answer.status === 202 ? answer.body.items.map((item: { job: JobView }) => item.job.id as string) : undefined;
      },
      15_000,
      'keys to be enforced',
    );
    const [done, other] = accepted as string[];
    await waitAllSucceeded([done], 30_000);
    expect((await request(url(), 'GET', `/v1/jobs/${done}`, undefined, b)).status).toBe(404);
    expect((await request(url(), 'GET', `/v1/jobs/${done}/events`, undefined, b)).status).toBe(404);
    expect((await request(url(), 'POST', `/v1/jobs/${other}/cancel`, undefined, b)).status).toBe(404);
    expect((await request(url(), 'POST', `/v1/jobs/${done}/retry`, undefined, b)).status).toBe(404);
    const listed = await request(url(), 'GET', '/v1/jobs?limit=200', undefined, b);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((job: JobView) => job.id)).not.toContain(done);
    const socket = io(`${url()}/events`, { transports: ['websocket'], reconnection: false, auth: { token: keys[1] } });
    await waitUntil(async () => (socket.connected ? true : undefined), 10_000, 'key B socket connected');
    const ack = await new Promise<SubscribeAck>((resolve) => socket.emit('subscribe', { jobId: done }, resolve));
    expect(ack).toMatchObject({ ok: false, error: { kind: 'job_not_found' } });
    socket.disconnect();
    expect((await request(url(), 'GET', `/v1/jobs/${done}`, undefined, a)).status).toBe(200);
  }, 60_000);

  it('500 socket clients subscribed while 10,000 jobs are queued: GET /v1/jobs/:id p99 < 200 ms, gateway memory bounded', async () => {
    expect(keyA).toBeDefined();
    const auth = { authorization: `Bearer ${keyA}` };
    for (const worker of workers) if (worker.alive) await killWorker(worker);
    const rssBefore = rssMiB(gateway.pid);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const answer = await request(url(), 'POST', '/v1/jobs/batch', { jobs: Array.from({ length: 500 }, () => ({ kind: 'scan', input: { root } })) }, auth);
      expect(answer.status).toBe(202);
      ids.push(...answer.body.items.map((item: { job: JobView }) => item.job.id));
    }
    expect(ids).toHaveLength(10_000);
    const sockets = await Promise.all(
      Array.from({ length: 500 }, async (_, i) => {
        const socket = io(`${url()}/events`, { transports: ['websocket'], reconnection: false, auth: { token: keyA }, forceNew: true });
        await waitUntil(async () => (socket.connected ? true : undefined), 30_000, `socket ${i} connected`);
        const ack = await new Promise<SubscribeAck>((resolve) => socket.emit('subscribe', { jobId: ids[i * 20] }, resolve));
        expect(ack.ok).toBe(true);
        return socket;
      }),
    );
    try {
      const samples: number[] = [];
      for (let i = 0; i < 300; i++) {
        const started = performance.now();
        const answer = await request(url(), 'GET', `/v1/jobs/${ids[(i * 37) % ids.length]}`, undefined, auth);
        samples.push(performance.now() - started);
        expect(answer.status).toBe(200);
      }
      samples.sort((x, y) => x - y);
      const p99 = samples[Math.floor(samples.length * 0.99) - 1];
      const rssAfter = rssMiB(gateway.pid);
      console.log(`load: GET /v1/jobs/:id p50 ${samples[150].toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; gateway RSS ${rssBefore} → ${rssAfter} MiB with 500 sockets, 10,000 queued`);
      expect(p99).toBeLessThan(200);
      expect(rssAfter - rssBefore).toBeLessThan(300);
      expect(sockets.every((socket) => socket.connected)).toBe(true);
    } finally {
      for (const socket of sockets) socket.disconnect();
    }
  }, 120_000);
});

/** Resident memory of a process, in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}
