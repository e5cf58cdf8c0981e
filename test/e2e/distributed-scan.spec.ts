import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import type { JobView, ScanResult } from '../../libs/contracts/src';
import { GitHttpServer } from '../../libs/snapshot/src/testing/git-http-server';
import { SCAN_SHARD_QUEUE } from '../../libs/queue/src/scan-shards';
import { deleteQueueKeys } from '../support/stack';
import { testConfig, uniquePrefix } from '../support/test-env';
import { NO_RECONCILER_ENV, ProcessGroup, QUARRY_BIN, assertBuilt, childEnv, pollUntil, repoRoot, withChildLogs, type ChildHandle } from '../support/processes';

/*
 * One scan across two worker processes (each with its own QUARRY_DATA_DIR: two machines as far as
 * the git cache goes), a real git smart-HTTP server on 127.0.0.1, real Redis and Postgres. Shards are
 * tiny here (20 files) so a small repository makes many of them.
 */

jest.setTimeout(180_000);

describe('a scan sharded across workers', () => {
  const group = new ProcessGroup();
  const config = testConfig({ queuePrefix: uniquePrefix('e2e-shards') });
  const base = mkdtempSync(path.join(os.tmpdir(), 'quarry-shards-'));
  const served = path.join(base, 'served');
  let server: GitHttpServer;
  let url: string;
  let env: Record<string, string>;
  const workers: ChildHandle[] = [];
  let pg: Client;

  /** A repository of `files` small files (content unique to `salt`, so its blobs are new to the table) and two binaries. */
  function makeRepository(name: string, files: number, salt: string): string {
    const work = path.join(base, `${name}-work`);
    for (let index = 0; index < files; index++) {
      const dir = path.join(work, `dir${index % 7}`, `sub${index % 3}`);
      mkdirSync(dir, { recursive: true });
      const ext = ['ts', 'py', 'c', 'md'][index % 4];
      writeFileSync(path.join(dir, `f${index}.${ext}`), `// ${salt} ${index}\n`.repeat(1 + (index % 40)));
    }
    writeFileSync(path.join(work, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3, 0, salt.length]));
    writeFileSync(path.join(work, '.gitignore'), '*.log\n');
    git(work, 'init', '-q', '-b', 'main');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'first');
    execFileSync('git', ['clone', '-q', '--bare', work, path.join(served, `${name}.git`)]);
    return work;
  }
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]).toString();

  beforeAll(async () => {
    assertBuilt();
    mkdirSync(served);
    server = await GitHttpServer.start(served);
    pg = new Client({ connectionString: config.databaseUrl });
    await pg.connect();
    env = {
      QUARRY_DATABASE_URL: config.databaseUrl,
      QUARRY_REDIS_URL: config.redisUrl,
      QUARRY_QUEUE_PREFIX: config.queuePrefix,
      QUARRY_WORKSPACE_ROOTS: base,
      QUARRY_FETCH_ALLOW: '127.0.0.1/32',
      QUARRY_LOG_LEVEL: 'info',
      // Shards of 20 files for scans with the code index (a quarter of the setting), 80 without.
      QUARRY_SHARD_MAX_FILES: '80',
      QUARRY_JOB_LOCK_MS: '3000',
      QUARRY_STALLED_INTERVAL_MS: '1000',
      ...NO_RECONCILER_ENV,
    };
    await withChildLogs(group, async () => {
      url = (await group.startGateway({ ...env, QUARRY_DATA_DIR: mkdtempSync(path.join(base, 'gateway-')) }, { timeoutMs: 30_000 })).url;
      for (const index of [1, 2]) workers.push(await startWorker(index));
    });
  });

  const startWorker = (index: number) =>
    group.startWorker(`worker-${index}`, { ...env, QUARRY_DATA_DIR: mkdtempSync(path.join(base, `worker-${index}-`)), QUARRY_WORKER_ID: `w${index}`, QUARRY_WORKER_CONCURRENCY: '2' }, { waitForReady: true, timeoutMs: 30_000 });

  afterAll(async () => {
    await group.stopAll(3_000);
    await deleteQueueKeys(config);
    await pg?.end();
    await server?.close();
    rmSync(base, { recursive: true, force: true });
  });

  async function api<T = any>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
    // A turn of the timers first: makeRepository blocks this process for seconds, and a pooled
    // connection the gateway closed meanwhile (its 5 s keep-alive) must be dropped before reuse,
    // not written to ("other side closed").
    await new Promise((resolve) => setTimeout(resolve, 1));
    const response = await fetch(url + route, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
  const submitScan = async (repository: string, codeIndex = true) =>
    (await api<JobView>('POST', '/v1/jobs', { kind: 'scan', input: { source: { git: server.url(`${repository}.git`), ref: 'main' }, ...(codeIndex ? {} : { codeIndex: false }) } })).body.id;
  const waitForJob = (id: string) =>
    pollUntil(async () => {
      const { body } = await api<JobView>('GET', `/v1/jobs/${id}`);
      return body && ['succeeded', 'failed', 'cancelled'].includes(body.status) ? body : undefined;
    }, 120_000, `job ${id}`, 100);
  const waitForProgress = (id: string, done: number) =>
    pollUntil(async () => {
      const { body } = await api<JobView>('GET', `/v1/jobs/${id}`);
      return body?.progress?.stage === 'reading' && body.progress.done >= done ? body : undefined;
    }, 60_000, `job ${id} at ${done} files`, 50);

  function quarry(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [QUARRY_BIN, ...args], { cwd: repoRoot(), env: childEnv({ ...env, QUARRY_DATA_DIR: mkdtempSync(path.join(base, 'cli-')), ...extra }), maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });
  }
  /** What must not depend on how many workers ran it. */
  const comparable = (result: ScanResult) => {
    const { root: _root, durationMs: _duration, shards: _shards, workers: _workers, workerIds: _ids, blobs: _blobs, stack: _stack, updatedFrom: _updatedFrom, ...rest } = result;
    return rest;
  };
  const localScan = async (target: string, codeIndex = true) => {
    const run = await quarry(['scan', target, '--local', '--json', ...(codeIndex ? [] : ['--no-code-index'])]);
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout) as ScanResult;
  };
  const blobsOf = (work: string) => [...new Set(git(work, 'ls-tree', '-r', 'HEAD').trim().split('\n').map((line) => line.split(/\s+/)[2]))];
  const rowsOf = async (blobs: string[], since = new Date(0)) =>
    Number((await pg.query('SELECT count(*) FROM blob_facts WHERE blob = ANY($1) AND created_at >= $2', [blobs, since])).rows[0].count);

  it('two workers share one scan: equal to the in-process scan of the URL and to the checkout; a one-file commit then reads one blob', async () => {
    const work = makeRepository('shared', 600, 'shared');
    const id = await submitScan('shared');
    const job = await waitForJob(id);
    expect(job.error).toBeNull();
    const result = job.result as ScanResult;
    const [byUrl, byPath] = await Promise.all([localScan(server.url('shared.git')), localScan(work)]);
    expect(comparable(result)).toEqual(comparable(byUrl));
    expect(comparable({ ...result, source: undefined })).toEqual(comparable({ ...byPath, source: undefined }));
    expect(result.files).toBe(601);
    expect(result.skipped.binary).toBe(1);
    expect(result.shards).toBeGreaterThanOrEqual(30);
    expect(result.workerIds).toEqual(['w1', 'w2']);
    expect(result.workers).toBe(2);
    expect(result.blobs).toEqual({ total: 602, processed: 602, reused: 0 });
    expect(byUrl).toMatchObject({ workers: 1, blobs: { total: 602, processed: 602, reused: 0 } });
    expect(await rowsOf(blobsOf(work))).toBe(602);

    // One file changes: the next commit's scan reads one blob, writes one row.
    writeFileSync(path.join(work, 'dir1', 'sub1', 'f1.py'), '# changed\nprint(1)\nprint(2)\n');
    git(work, 'commit', '-q', '-am', 'one file');
    git(path.join(served, 'shared.git'), 'fetch', '-q', work, '+main:main');
    const before = new Date();
    const again = (await waitForJob(await submitScan('shared'))).result as ScanResult;
    expect(again.blobs).toEqual({ total: 602, processed: 1, reused: 601 });
    // Both workers listed the first commit for their shards: whichever took this scan updated the
    // first scan's sums (kept in Postgres) rather than going through the whole tree.
    expect(again.updatedFrom).toBe(result.source && 'commit' in result.source ? result.source.commit : undefined);
    expect(again.shards).toBe(1);
    expect(again.lines).toBe(result.lines + 1); // f1.py: 2 lines before, 3 after
    expect(await rowsOf(blobsOf(work), before)).toBe(1);
    expect(comparable(again)).toEqual(comparable(await localScan(server.url('shared.git'))));
  });

  it('the code index: rows written by the two workers\' shards, totals equal to the in-process scan, and symbols/map/pack on the URL read them', async () => {
    const work = makeRepository('indexed', 300, 'indexed'); // over INLINE_BELOW_FILES: shards go to both workers
    writeFileSync(path.join(work, 'lib.ts'), 'export class Registry {\n  lookup(name: string): string {\n    return name;\n  }\n}\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'a class');
    git(path.join(served, 'indexed.git'), 'fetch', '-q', work, '+main:main');
    const commit = git(work, 'rev-parse', 'HEAD').trim();
    const job = await waitForJob(await submitScan('indexed'));
    expect(job.error).toBeNull();
    const result = job.result as ScanResult;
    expect(result.workerIds).toEqual(['w1', 'w2']);
    const local = await localScan(server.url('indexed.git'));
    expect(result.tokens).toEqual(local.tokens);
    expect(result.symbols).toEqual(local.symbols);
    expect(result.tokens!.total).toBeGreaterThan(1000);
    expect(result.symbols!.definitions).toBe(2);
    const indexRows = async (since: Date) => Number((await pg.query('SELECT count(*) FROM blob_code_index WHERE blob = ANY($1) AND created_at >= $2', [blobsOf(work), since])).rows[0].count);
    expect(await indexRows(new Date(0))).toBe(blobsOf(work).length);

    // The kinds on the URL: every row known, none written; each result names the commit.
    const before = new Date();
    const source = { git: server.url('indexed.git'), ref: 'main' };
    const run = async (kind: string, input: Record<string, unknown>) => {
      const submitted = await api<JobView>('POST', '/v1/jobs', { kind, input: { source, ...input } });
      expect(submitted.status).toBe(202);
      const done = await waitForJob(submitted.body.id);
      expect(done.error).toBeNull();
      return done as JobView & { result: any };
    };
    const symbols = await run('symbols', { name: 'Registry.lookup' });
    expect(symbols.result).toMatchObject({ source: { commit }, definitions: [{ path: 'lib.ts', name: 'lookup', line: 2, container: 'Registry' }] });
    const map = await run('map', { tokens: 256 });
    expect(map.result.source.commit).toBe(commit);
    expect(map.result.repository.total).toBe(result.tokens!.total);
    const pack = await run('pack', { style: 'xml', include: ['dir1/**', 'lib.ts'] });
    expect(pack.result.source.commit).toBe(commit);
    const artifact = await fetch(`${url}/v1/jobs/${pack.id}/artifact`);
    expect(artifact.status).toBe(200);
    const document = await artifact.text();
    expect(document.match(/<file path=/g)?.length).toBe(pack.result.files);
    expect(document).toContain('<file path="lib.ts"');
    expect(await indexRows(before)).toBe(0);

    // The CLI by URL and ref, in its own process: the same definitions, the same commit.
    const cli = await quarry(['symbols', server.url('indexed.git'), '--ref', 'main', '--local', '--json', '--name', 'Registry']);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual([expect.objectContaining({ path: 'lib.ts', name: 'Registry', kind: 'class', line: 1 })]);
    const mapped = await quarry(['map', server.url('indexed.git'), '--ref', 'main', '--tokens', '128', '--local']);
    expect(mapped.code).toBe(0);
    expect(mapped.stdout).toContain('lib.ts');
  });

  it('the scan indexes the commit: quarry search and POST /v1/search by URL answer from the index, equal to rg -c; @search too', async () => {
    const work = makeRepository('searched', 300, 'indexed');
    const job = await waitForJob(await submitScan('searched'));
    expect(job.error).toBeNull();
    const commit = git(work, 'rev-parse', 'HEAD').trim();
    expect((await pg.query('SELECT segments FROM search_index_commits WHERE "commit" = $1', [commit])).rows[0].segments.length).toBeGreaterThan(5);
    /** The sum of `rg -c` over the checkout (what `total` must equal). */
    const rgTotal = (args: string[]) => {
      try {
        return execFileSync('rg', ['-c', '--no-messages', ...args, work], { encoding: 'utf8' }).trim().split('\n').reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1)), 0);
      } catch {
        return 0; // rg exits 1 on no match
      }
    };
    const cases: Array<{ args: string[]; rg: string[] }> = [
      { args: ['indexed 12'], rg: ['-F', 'indexed 12'] },
      { args: ['INDEXED 7', '--ignore-case'], rg: ['-F', '-i', 'INDEXED 7'] },
      { args: ['indexed 2\\d+$', '--regex'], rg: ['indexed 2\\d+$'] },
      { args: ['\\w+ 1', '--regex'], rg: ['\\w+ 1'] },
    ];
    for (const { args, rg } of cases) {
      const expected = rgTotal(rg);
      const viaServer = await quarry(['search', server.url('searched.git'), ...args, '--ref', 'main', '--server', url, '--json']);
      const here = await quarry(['search', server.url('searched.git'), ...args, '--ref', 'main', '--json']);
      for (const run of [viaServer, here]) {
        const answer = JSON.parse(run.stdout);
        expect({ args, total: answer.total, commit: answer.commit }).toEqual({ args, total: expected, commit });
        // `\w+ 1` has no literal of three characters: the cold search answers it.
        expect(answer.indexed).toBe(!args[0].startsWith('\\w+'));
      }
    }
    const rest = await api('POST', '/v1/search', { source: { git: server.url('searched.git'), ref: commit }, pattern: 'indexed 3', counts: true });
    expect(rest).toMatchObject({ status: 200, body: { indexed: true, total: rgTotal(['-F', 'indexed 3']), commit } });
    const bad = await api('POST', '/v1/search', { source: { git: server.url('searched.git') }, pattern: '(?=x)', regex: true });
    expect(bad).toMatchObject({ status: 400, body: { kind: 'regex_invalid' } });

    const mentions = await api<JobView>('POST', '/v1/jobs', { kind: 'mentions', input: { source: { git: server.url('searched.git'), ref: 'main' }, prompt: 'look at @search:"indexed 12" and @grep:"indexed 2\\d+$"' } });
    const done = await waitForJob(mentions.body.id);
    const result = done.result as { mentions: Array<{ matches?: number }>; coverage: { search?: { indexed?: number } } };
    expect(result.mentions.map((mention) => mention.matches)).toEqual([rgTotal(['-F', 'indexed 12']), rgTotal(['indexed 2\\d+$'])]);
    expect(result.coverage.search?.indexed).toBe(2);
  });

  it('cancelling the scan cancels its waiting and running shards', async () => {
    makeRepository('cancel', 3000, 'cancel');
    const id = await submitScan('cancel');
    await waitForProgress(id, 60);
    expect((await api('POST', `/v1/jobs/${id}/cancel`)).status).toBeLessThan(300);
    expect((await waitForJob(id)).status).toBe('cancelled');
    const queue = new Queue(SCAN_SHARD_QUEUE, { connection: { host: new URL(config.redisUrl).hostname, port: Number(new URL(config.redisUrl).port || 6379) }, prefix: config.queuePrefix });
    try {
      const ofScan = async (states: Array<'waiting' | 'delayed' | 'active' | 'prioritized'>) => (await queue.getJobs(states, 0, -1)).filter((job) => job?.data?.parentId === id).length;
      await pollUntil(async () => ((await ofScan(['waiting', 'delayed', 'active', 'prioritized'])) === 0 ? true : undefined), 10_000, 'no shard of the cancelled scan left', 100);
    } finally {
      await queue.close();
    }
  });

  it('a shard that keeps failing fails the scan with scan_shard_failed naming its paths, after retrying it alone', async () => {
    makeRepository('vanishing', 2000, 'vanishing');
    const id = await submitScan('vanishing');
    await waitForProgress(id, 20);
    // The repository disappears from the server: the shards not yet fetched cannot get their blobs.
    rmSync(path.join(served, 'vanishing.git'), { recursive: true, force: true });
    const job = await waitForJob(id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ kind: 'scan_shard_failed', message: expect.stringMatching(/^Shard \d+ of \d+ \(dir\d\/sub\d\/f\d+\.\w+, .* and \d+ more\) failed after 3 attempts/) });
    expect(job.attempts).toBe(1);
  });

  it('a worker killed with kill -9 mid-scan loses nothing: its shards run again and the result is whole', async () => {
    const work = makeRepository('killed', 3000, 'killed');
    // Lines only: what is tested is the shards' recovery, and 3,000 files indexed by one surviving worker outlast the wait on a loaded machine.
    const id = await submitScan('killed', false);
    await waitForProgress(id, 300);
    workers[1].kill('SIGKILL');
    const job = await withChildLogs(group, () => waitForJob(id));
    expect(job.error).toBeNull();
    const result = job.result as ScanResult;
    expect(comparable(result)).toEqual(comparable(await localScan(server.url('killed.git'), false)));
    expect(await rowsOf(blobsOf(work))).toBe(3002);
    expect(result.blobs?.total).toBe(3002);
  });
});
