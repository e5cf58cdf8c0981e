import type { JobEventView, JobProgress, JobView, ScanResult } from '../../libs/contracts/src';
import { deleteQueueKeys } from '../support/stack';
import { connectEvents, type EventsSocket } from '../support/events-socket';
import { testConfig, uniquePrefix } from '../support/test-env';
import { GeneratedTree, generatedTree } from '../support/trees';
import {
  ChildHandle,
  NO_RECONCILER_ENV,
  ProcessGroup,
  assertBuilt,
  describeExit,
  parseJsonLine,
  pollUntil,
  withChildLogs,
} from '../support/processes';

/*
 * The real deployment shape: a gateway and two worker processes (`node bin/quarry.js …`, the
 * compiled build) on one queue prefix, against real Redis and Postgres. Short job locks make a
 * killed worker's job come back within seconds through BullMQ's stalled-job check.
 */

const TREE_FILES = 20_000;
const JOB_LOCK_MS = 2_000;
const SHUTDOWN_TIMEOUT_MS = 20_000;

jest.setTimeout(120_000);

describe('scale: a gateway and two worker processes', () => {
  const group = new ProcessGroup();
  const config = testConfig({ queuePrefix: uniquePrefix('e2e-scale') });
  let tree: GeneratedTree;
  let url: string;
  let workerEnv: Record<string, string>;
  let workerCount = 0;
  const sockets: EventsSocket[] = [];

  const startWorker = () => group.startWorker(`worker-${++workerCount}`, workerEnv, { waitForReady: true, timeoutMs: 30_000 });

  beforeAll(async () => {
    assertBuilt();
    tree = generatedTree(TREE_FILES);
    const env = {
      QUARRY_DATABASE_URL: config.databaseUrl,
      QUARRY_REDIS_URL: config.redisUrl,
      QUARRY_QUEUE_PREFIX: config.queuePrefix,
      QUARRY_WORKSPACE_ROOTS: tree.root,
      // info: the worker's "job started" lines tell which process holds a job.
      QUARRY_LOG_LEVEL: 'info',
      QUARRY_JOB_LOCK_MS: String(JOB_LOCK_MS),
      QUARRY_STALLED_INTERVAL_MS: String(JOB_LOCK_MS),
      QUARRY_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      ...NO_RECONCILER_ENV,
    };
    workerEnv = { ...env, QUARRY_WORKER_CONCURRENCY: '2' };
    await withChildLogs(group, async () => {
      const gateway = await group.startGateway(env, { timeoutMs: 30_000 });
      url = gateway.url;
      await Promise.all([startWorker(), startWorker()]);
    });
  });

  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    await group.stopAll(3_000);
    await deleteQueueKeys(config);
  });

  // ---- helpers -------------------------------------------------------------------------------

  async function api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  async function submitScan(): Promise<string> {
    const submitted = await api<JobView>('POST', '/v1/jobs', { kind: 'scan', input: { root: tree.root, codeIndex: false } });
    expect(submitted.status).toBe(202);
    return submitted.body.id;
  }

  function waitForJob(id: string, timeoutMs: number): Promise<JobView> {
    return pollUntil(
      async () => {
        const { body } = await api<JobView>('GET', `/v1/jobs/${id}`);
        return body && ['succeeded', 'failed', 'cancelled'].includes(body.status) ? body : undefined;
      },
      timeoutMs,
      `job ${id} to finish`,
      100,
    );
  }

  async function history(id: string): Promise<JobEventView[]> {
    const { status, body } = await api<JobEventView[]>('GET', `/v1/jobs/${id}/events`);
    expect(status).toBe(200);
    return body;
  }

  const isStartedLine = (id: string) => (text: string) => {
    const line = parseJsonLine(text);
    return line?.msg === 'job started' && line.jobId === id;
  };

  /** Which live worker logged "job started" for the job (it is the one holding it now). */
  async function holderOf(id: string, timeoutMs = 15_000): Promise<ChildHandle> {
    const candidates = group.alive().filter((child) => child.name.startsWith('worker-'));
    const controller = new AbortController();
    try {
      return await Promise.any(
        candidates.map(async (worker) => {
          await worker.waitForLine(isStartedLine(id), timeoutMs, `"job started" for ${id}`, controller.signal);
          return worker;
        }),
      );
    } catch (error) {
      const reasons = error instanceof AggregateError ? error.errors.map((e: Error) => e.message.split('\n')[0]).join('; ') : String(error);
      throw new Error(`no worker started job ${id} within ${timeoutMs} ms: ${reasons}`);
    } finally {
      controller.abort();
    }
  }

  function expectCorrectCounts(result: unknown): void {
    const scan = result as ScanResult;
    expect({ files: scan.files, lines: scan.lines, bytes: scan.bytes }).toEqual({ files: tree.files, lines: tree.lines, bytes: tree.bytes });
  }

  async function connect(): Promise<EventsSocket> {
    const socket = await connectEvents(url);
    sockets.push(socket);
    return socket;
  }

  // ---- tests ---------------------------------------------------------------------------------

  it('streams a snapshot, paced monotonic progress and the completed result of a 20,000-file scan', () =>
    withChildLogs(group, async () => {
      const socket = await connect();
      const received: Array<{ name: string; at: number; payload: any }> = [];
      let completed: () => void = () => undefined;
      const completedSeen = new Promise<void>((resolve) => (completed = resolve));

      const id = await submitScan();
      const mine = (name: string, payload: any) => (name === 'job.snapshot' ? payload?.job?.id === id : payload?.jobId === id);
      socket.onAny((name: string, payload: any) => {
        if (!mine(name, payload)) return;
        received.push({ name, at: Date.now(), payload });
        if (name === 'job.completed' || name === 'job.failed' || name === 'job.cancelled') completed();
      });
      const subscribedAt = Date.now();
      const ack = await socket.timeout(10_000).emitWithAck('subscribe', { jobId: id });
      expect(ack).toMatchObject({ ok: true, job: { id } });

      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        completedSeen,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no job.completed within 45 s; got ${received.map((e) => e.name).join(', ')}`)), 45_000);
        }),
      ]).finally(() => clearTimeout(timer));

      const names = received.map((event) => event.name);
      expect(names[0]).toBe('job.snapshot');
      expect(received[0].payload.job.status).not.toBe('succeeded'); // otherwise nothing was live
      const last = received[received.length - 1];
      expect(last.name).toBe('job.completed');
      expect(names.filter((name) => name === 'job.completed')).toHaveLength(1);
      expectCorrectCounts(last.payload.result);

      const progress = received.filter((event) => event.name === 'job.progress');
      expect(progress.length).toBeGreaterThanOrEqual(1);
      // Progress never goes backwards, across stages (listing reports done 0, reading counts up).
      const dones = progress.map((event) => (event.payload.progress as JobProgress).done);
      for (let i = 1; i < dones.length; i++) expect(dones[i]).toBeGreaterThanOrEqual(dones[i - 1]);
      // No progress after the outcome.
      expect(names.lastIndexOf('job.progress')).toBeLessThan(names.indexOf('job.completed'));

      // Pacing: the reporter sends ~5/s; a flood (one per file) would be thousands. Be tolerant:
      // ≥ 50 ms between events on average, ≤ 12 events per second of run.
      const runSeconds = Math.max(1, (last.at - subscribedAt) / 1000);
      if (progress.length >= 2) {
        const averageGapMs = (progress[progress.length - 1].at - progress[0].at) / (progress.length - 1);
        expect(averageGapMs).toBeGreaterThanOrEqual(50);
      }
      expect(progress.length / runSeconds).toBeLessThanOrEqual(12);
    }));

  it('finishes a scan whose worker is killed with SIGKILL mid-way, on the other worker, exactly once', () =>
    withChildLogs(group, async () => {
      const id = await submitScan();
      const holder = await holderOf(id);
      holder.kill('SIGKILL');
      const exit = await holder.waitForExit(5_000);
      expect(exit.signal).toBe('SIGKILL');
      const survivors = group.alive().filter((child) => child.name.startsWith('worker-'));
      expect(survivors).toHaveLength(1);

      // Lock (2 s) expires, the survivor's stalled check (every 2 s) moves the job back, it runs again.
      const job = await waitForJob(id, 30_000);
      expect(job.status).toBe('succeeded');
      expectCorrectCounts(job.result);

      const types = (await history(id)).map((event) => event.type);
      expect(types.filter((type) => type === 'completed')).toHaveLength(1);
      expect(types.filter((type) => type === 'started').length).toBeGreaterThanOrEqual(2); // it really ran twice
      expect(types[types.length - 1]).toBe('completed');
      await survivors[0].waitForLine(isStartedLine(id), 1_000, `"job started" for ${id} on the survivor`);
    }));

  it('lets a worker finish its scan on SIGTERM, then exit 0', () =>
    withChildLogs(group, async () => {
      // Back to two workers, so the job could be picked up elsewhere if the drain failed.
      while (group.alive().filter((child) => child.name.startsWith('worker-')).length < 2) await startWorker();

      const id = await submitScan();
      const holder = await holderOf(id);
      holder.kill('SIGTERM');
      const exit = await holder.waitForExit(SHUTDOWN_TIMEOUT_MS + 10_000);

      const job = await waitForJob(id, 30_000);
      expect(job.status).toBe('succeeded');
      expectCorrectCounts(job.result);
      const types = (await history(id)).map((event) => event.type);
      expect(types.filter((type) => type === 'completed')).toHaveLength(1);
      // Drained, not abandoned: the worker that got SIGTERM finished the job itself.
      expect(types.filter((type) => type === 'started')).toHaveLength(1);
      expect(holder.lines.some((line) => /worker stopping/.test(line.text))).toBe(true);

      if (exit.code !== 0) {
        throw new Error(`the worker finished its job but exited ${describeExit(exit)}, not with code 0`);
      }
    }));
});
