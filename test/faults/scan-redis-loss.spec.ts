import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { JobView, ScanResult } from '../../libs/contracts/src';
import { applyMigrations, ensureDatabase } from '../../libs/db/src/migrator';
import { GitHttpServer } from '../../libs/snapshot/src/testing/git-http-server';
import { ProcessGroup, QUARRY_BIN, assertBuilt, childEnv, pollUntil, repoRoot, withChildLogs, type ChildHandle } from '../support/processes';
import { PrivatePostgres, PrivateRedis } from '../support/private-services';

/*
 * A sharded scan whose Redis loses everything mid-scan (a restart with no persistence): the parent
 * job and every shard job vanish from the queue. Postgres still holds the job row and the facts
 * of the blobs the shards wrote before the loss; the gateway's reconciler puts the job back, the
 * scan runs again and reads only the blobs that were not written yet. Own Redis and Postgres (the
 * faults project's private services), a git smart-HTTP server on 127.0.0.1, compiled processes.
 */

jest.setTimeout(240_000);

const FILES = 1_200;
/** Short timings so recovery happens within the test: lock 2 s, stalled check 1 s, reconcile every 1 s (grace 2 s). */
const RECOVERY_ENV = {
  QUARRY_JOB_LOCK_MS: '2000',
  QUARRY_STALLED_INTERVAL_MS: '1000',
  QUARRY_RECONCILE_INTERVAL_MS: '1000',
  QUARRY_RECONCILE_GRACE_MS: '2000',
  QUARRY_SHUTDOWN_TIMEOUT_MS: '3000',
};

describe('faults: Redis loses its data in the middle of a sharded scan', () => {
  const group = new ProcessGroup();
  const base = mkdtempSync(path.join(os.tmpdir(), 'quarry-scan-redis-loss-'));
  const served = path.join(base, 'served');
  let pg: PrivatePostgres;
  let redis: PrivateRedis;
  let sql: Client;
  let server: GitHttpServer;
  let gatewayUrl: string;
  let gateway: ChildHandle;
  let env: Record<string, string>;
  const workers: ChildHandle[] = [];
  let work: string;

  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]).toString();

  beforeAll(async () => {
    assertBuilt();
    mkdirSync(served);
    [pg, redis] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start()]);
    await ensureDatabase(pg.url);
    await applyMigrations(pg.url);
    sql = new Client({ connectionString: pg.url });
    await sql.connect();

    // FILES small files, each unique, and a binary: a few hundred shards of 20 files.
    work = path.join(base, 'work');
    for (let index = 0; index < FILES; index++) {
      const dir = path.join(work, `dir${index % 9}`, `sub${index % 4}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `f${index}.${['ts', 'py', 'c', 'md'][index % 4]}`), `// lost ${index}\n`.repeat(1 + (index % 30)));
    }
    writeFileSync(path.join(work, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]));
    git(work, 'init', '-q', '-b', 'main');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'first');
    execFileSync('git', ['clone', '-q', '--bare', work, path.join(served, 'lost.git')]);
    server = await GitHttpServer.start(served);

    env = {
      QUARRY_DATABASE_URL: pg.url,
      QUARRY_REDIS_URL: redis.url,
      QUARRY_QUEUE_PREFIX: 'quarry-faults-scan',
      QUARRY_WORKSPACE_ROOTS: base,
      QUARRY_FETCH_ALLOW: '127.0.0.1/32',
      QUARRY_LOG_LEVEL: 'info',
      // Shards of 20 files: the scan builds the code index, whose shards are a quarter of the setting.
      QUARRY_SHARD_MAX_FILES: '80',
      ...RECOVERY_ENV,
    };
    await withChildLogs(group, async () => {
      const started = await group.startGateway({ ...env, QUARRY_DATA_DIR: mkdtempSync(path.join(base, 'gateway-')) }, { timeoutMs: 60_000 });
      gatewayUrl = started.url;
      gateway = started.handle;
      for (const index of [1, 2]) {
        workers.push(
          await group.startWorker(`worker-${index}`, { ...env, QUARRY_DATA_DIR: mkdtempSync(path.join(base, `worker-${index}-`)), QUARRY_WORKER_ID: `w${index}`, QUARRY_WORKER_CONCURRENCY: '2' }, { waitForReady: true, timeoutMs: 60_000 }),
        );
      }
    });
  }, 180_000);

  afterAll(async () => {
    await group.stopAll(3_000);
    await sql?.end().catch(() => undefined);
    await server?.close();
    await redis?.stop();
    await pg?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  async function api<T = any>(method: string, route: string, body?: unknown): Promise<T> {
    const response = await fetch(gatewayUrl + route, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return (await response.json()) as T;
  }

  const blobRows = async () => Number((await sql.query('SELECT count(*) FROM blob_facts')).rows[0].count);

  it('the reconciler puts the scan back from Postgres; the re-run reads only the blobs not yet written, and the result is whole', async () => {
    const { id } = await api<JobView>('POST', '/v1/jobs', { kind: 'scan', input: { source: { git: server.url('lost.git'), ref: 'main' } } });
    // Mid-scan: some shards written, most still to run.
    await pollUntil(
      async () => {
        const job = await api<JobView>('GET', `/v1/jobs/${id}`);
        return job.progress?.stage === 'reading' && job.progress.done >= 200 ? job : undefined;
      },
      90_000,
      'the scan at 200 files',
      50,
    );
    await redis.restart();
    const writtenBeforeLoss = await blobRows();
    expect(writtenBeforeLoss).toBeGreaterThan(0);
    expect(writtenBeforeLoss).toBeLessThan(FILES);

    const job = await withChildLogs(group, () =>
      pollUntil(
        async () => {
          const view = await api<JobView>('GET', `/v1/jobs/${id}`);
          return ['succeeded', 'failed', 'cancelled'].includes(view.status) ? view : undefined;
        },
        150_000,
        `scan ${id} to finish after the Redis loss`,
        200,
      ),
    );
    expect(job.error).toBeNull();
    expect(job.status).toBe('succeeded');
    const result = job.result as ScanResult;

    // Whole and equal to an in-process scan of the same commit.
    expect(result.files).toBe(FILES); // the binary is skipped, not counted
    expect(result.skipped.binary).toBe(1);
    const local = await localScan(server.url('lost.git'));
    const comparable = ({ root: _r, durationMs: _d, shards: _s, workers: _w, workerIds: _i, blobs: _b, stack: _st, updatedFrom: _u, ...rest }: ScanResult) => rest;
    expect(comparable(result)).toEqual(comparable(local));

    // Recovered from Postgres: the blobs written before the loss were reused, not read again, and
    // every blob has exactly one row.
    expect(result.blobs?.total).toBe(FILES + 1);
    expect(result.blobs?.reused).toBeGreaterThanOrEqual(writtenBeforeLoss);
    expect((result.blobs?.processed ?? 0) + (result.blobs?.reused ?? 0)).toBe(FILES + 1);
    expect(await blobRows()).toBe(FILES + 1);

    // It ran twice (once before the loss, once after the reconciler re-queued it), and completed once.
    const events = (await sql.query<{ type: string }>('SELECT type FROM job_events WHERE job_id = $1::uuid ORDER BY id', [id])).rows.map((row) => row.type);
    expect(events.filter((type) => type === 'started').length).toBeGreaterThanOrEqual(2);
    expect(events.filter((type) => type === 'completed')).toHaveLength(1);
    expect(gateway.lines.some((line) => line.text.includes('reconciled jobs Redis had lost'))).toBe(true);
  });

  function localScan(target: string): Promise<ScanResult> {
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [QUARRY_BIN, 'scan', target, '--local', '--json'],
        { cwd: repoRoot(), env: childEnv({ ...env, QUARRY_DATA_DIR: mkdtempSync(path.join(base, 'cli-')) }), maxBuffer: 64 * 1024 * 1024 },
        (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as ScanResult)),
      );
    });
  }
});
