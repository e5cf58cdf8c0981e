import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import IORedis from 'ioredis';
import { freePort } from './processes';

/*
 * A Redis and a Postgres that belong to one test file, on free 127.0.0.1 ports, so the file may
 * kill and restart them (the faults suite). Nothing else on the machine is touched: the shared
 * Redis and Postgres of the other tests keep running.
 *
 * Kept free of path-aliased imports (like processes.ts).
 */

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms`);
}

/** redis-server with no persistence at all: a restart loses every key, as a crash would. */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort(), fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-faults-redis-')));
    await redis.up();
    return redis;
  }

  async up(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir], {
      stdio: 'ignore',
    });
    await until(() => answers(this.url), 15_000, `redis-server on ${this.port}`);
  }

  /** kill -9, then a fresh empty redis-server on the same port. */
  async restart(): Promise<void> {
    await this.kill();
    await this.up();
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await this.kill();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

async function answers(url: string): Promise<boolean> {
  const redis = new IORedis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } finally {
    redis.disconnect();
  }
}

/**
 * A Postgres cluster of its own (initdb under a temp dir, the system's binaries, pg_ctl). As root,
 * Postgres runs as the `postgres` system user. `fsync=off` keeps it fast on a busy machine and
 * changes nothing here: a crash of the server process (not of the OS) keeps the kernel's page
 * cache, and commits are still acknowledged only once written (synchronous_commit stays on).
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
  ) {}

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/quarry_faults`;
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  static async start(): Promise<PrivatePostgres> {
    const bin = findPgBin();
    if (!bin) throw new Error('initdb/pg_ctl not found (install PostgreSQL server binaries)');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-faults-pg-'));
    const pg = new PrivatePostgres(await freePort(), dir, bin);
    if (isRoot()) {
      fs.chmodSync(dir, 0o755);
      spawnSync('chown', ['postgres:postgres', dir]);
    }
    pg.run('initdb', ['-D', pg.data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    await pg.up();
    const admin = new Client({ connectionString: pg.url.replace(/\/quarry_faults$/, '/postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE quarry_faults');
    await admin.end();
    return pg;
  }

  async up(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
    this.run('pg_ctl', ['-D', this.data, '-o', options, '-l', path.join(this.dir, 'postgres.log'), '-w', '-t', '60', 'start']);
    await until(() => this.answers(), 30_000, `postgres on ${this.port}`);
  }

  /** An immediate shutdown (every backend killed, no checkpoint: recovery at the next start), then start again. */
  async restart(): Promise<void> {
    this.run('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop']);
    await this.up();
  }

  async stop(): Promise<void> {
    if (fs.existsSync(path.join(this.data, 'postmaster.pid'))) this.run('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop'], false);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private async answers(): Promise<boolean> {
    const client = new Client({ connectionString: this.url.replace(/\/quarry_faults$/, '/postgres'), connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private run(tool: string, args: string[], check = true): void {
    const command = path.join(this.bin, tool);
    const result = isRoot()
      ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' })
      : spawnSync(command, args, { encoding: 'utf8' });
    if (check && result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function findPgBin(): string | undefined {
  const candidates = [process.env.QUARRY_PG_BIN, ...safeList('/usr/lib/postgresql').sort().reverse().map((version) => `/usr/lib/postgresql/${version}/bin`), '/usr/local/bin', '/usr/bin'];
  return candidates.find((dir): dir is string => dir !== undefined && fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl')));
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
