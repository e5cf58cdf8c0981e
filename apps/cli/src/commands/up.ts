import { ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { QuarryConfig, loadConfig } from '@quarry/config/settings';
import { applyMigrations, ensureDatabase } from '@quarry/db';
import { startGateway } from '../../../gateway/src/main';
import { StartedService, postgresAnswers, redisAnswers, startEmbeddedPostgres, startPrivateRedis } from '../local-services';

export interface UpOptions {
  workers: number;
  concurrency?: number;
}

/**
 * `quarry up`: make sure Postgres and Redis answer (starting private ones under .quarry/ when
 * none is configured or running), apply migrations, start the gateway here and N worker
 * processes beside it, and keep them up until Ctrl-C.
 */
export async function up(options: UpOptions): Promise<void> {
  let config = loadConfig();
  const stateDir = path.resolve('.quarry');
  const started: StartedService[] = [];
  const stopAll = async () => {
    for (const service of started.reverse()) await service.stop().catch(() => undefined);
  };
  try {
    config = await ensureBackingServices(config, stateDir, started);
    await ensureDatabase(config.databaseUrl);
    const applied = await applyMigrations(config.databaseUrl);
    if (applied.length) console.log(`applied migrations: ${applied.join(', ')}`);
  } catch (error) {
    await stopAll();
    throw error;
  }

  const gateway = await startGateway(config, { shutdownHooks: false });
  const workers = new WorkerSupervisor(options);
  workers.start();
  console.log(`quarry is up: ${gateway.url}  (API ${gateway.url}/v1/jobs, docs ${gateway.url}/docs, queues ${gateway.url}/queues)`);
  console.log(`${options.workers} worker process(es); add more anywhere with \`quarry worker\`. Ctrl-C stops.`);

  await new Promise<void>((resolve) => {
    const shutdown = () => resolve();
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });
  console.log('stopping…');
  await workers.stop();
  await gateway.close();
  await stopAll();
}

async function ensureBackingServices(config: QuarryConfig, stateDir: string, started: StartedService[]): Promise<QuarryConfig> {
  let { databaseUrl, redisUrl } = config;
  if (!(await postgresAnswers(databaseUrl))) {
    if (config.databaseConfigured) {
      throw new Error(`Postgres does not answer at ${redact(databaseUrl)}: start it, or fix QUARRY_DATABASE_URL.`);
    }
    const pg = await startEmbeddedPostgres(stateDir);
    started.push(pg);
    databaseUrl = pg.url;
    console.log(`started ${pg.name} under ${stateDir} (${redact(pg.url)})`);
  }
  if (!(await redisAnswers(redisUrl))) {
    const host = new URL(redisUrl).hostname;
    const redis = host === '127.0.0.1' || host === 'localhost' ? await startPrivateRedis(redisUrl, stateDir) : undefined;
    if (!redis || !(await redisAnswers(redisUrl))) {
      await redis?.stop();
      throw new Error(`Redis does not answer at ${redisUrl}: install redis-server (apt-get install redis-server) or set QUARRY_REDIS_URL.`);
    }
    started.push(redis);
    console.log(`started ${redis.name} on ${redisUrl} (data under ${stateDir})`);
  }
  // Child processes (workers) inherit the addresses actually in use.
  process.env.QUARRY_DATABASE_URL = databaseUrl;
  process.env.QUARRY_REDIS_URL = redisUrl;
  return { ...config, databaseUrl, redisUrl, databaseConfigured: true };
}

/** Keeps N worker processes running; a crashed one is restarted after a short pause. */
class WorkerSupervisor {
  private readonly children = new Set<ChildProcess>();
  private stopping = false;

  constructor(private readonly options: UpOptions) {}

  start(): void {
    for (let i = 0; i < this.options.workers; i++) this.spawnOne();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.children].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  }

  private spawnOne(): void {
    const args = ['worker'];
    if (this.options.concurrency) args.push('--concurrency', String(this.options.concurrency));
    const child = fork(path.join(__dirname, '..', 'main.js'), args, { stdio: 'inherit', env: { ...WORKER_MALLOC, ...process.env }, execArgv: [...process.execArgv, ...workerNodeFlags()] });
    this.children.add(child);
    child.once('exit', (code, signal) => {
      this.children.delete(child);
      if (this.stopping) return;
      console.error(`worker ${child.pid} exited (${signal ?? code}); restarting in 1s`);
      setTimeout(() => !this.stopping && this.spawnOne(), 1_000).unref();
    });
  }
}

/**
 * glibc settings for worker processes (README, "Worker memory"), unless the environment sets its
 * own: freed blob buffers go back to the system instead of staying in per-thread arenas.
 */
const WORKER_MALLOC = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' };

/**
 * A 4 MB young generation (README, "Worker memory"), unless NODE_OPTIONS or this process's own
 * flags choose one: dead blob buffers are freed at the next scavenge instead of piling up to
 * ~60 MB before V8 collects. No heap cap here: `quarry up` is for one machine, where a cap would
 * only risk a large job.
 */
function workerNodeFlags(): string[] {
  const chosen = [process.env.NODE_OPTIONS ?? '', ...process.execArgv].some((flags) => flags.includes('--max-semi-space-size'));
  return chosen ? [] : ['--max-semi-space-size=4'];
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
