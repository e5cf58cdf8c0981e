import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JobView, ScanResult } from '../../libs/contracts/src';
import { GitHttpServer, makeFixtureRepositories, type FixtureRepositories } from '../../libs/snapshot/src/testing/git-http-server';
import { deleteQueueKeys } from '../support/stack';
import { testConfig, uniquePrefix } from '../support/test-env';
import { NO_RECONCILER_ENV, ProcessGroup, QUARRY_BIN, assertBuilt, childEnv, parseJsonLine, pollUntil, repoRoot, withChildLogs } from '../support/processes';

/*
 * Repositories by URL in the deployment shape: a gateway and two worker processes with different
 * QUARRY_DATA_DIRs (two machines, as far as the cache goes), a real git smart-HTTP server on
 * 127.0.0.1, and the CLI as the acceptance check runs it. Scans count lines only (`codeIndex:
 * false`): the fixture's 3 MB of base64 costs ~16 s of CPU to tokenize, and the code index by URL
 * has its own tests (test/integration/blob-code-index.spec.ts, test/e2e/distributed-scan.spec.ts).
 */

jest.setTimeout(120_000);

describe('scanning repositories by URL', () => {
  const group = new ProcessGroup();
  const config = testConfig({ queuePrefix: uniquePrefix('e2e-git') });
  let fixtures: FixtureRepositories;
  let server: GitHttpServer;
  let url: string;
  let dataDirs: string[];
  let env: Record<string, string>;

  beforeAll(async () => {
    assertBuilt();
    fixtures = makeFixtureRepositories();
    server = await GitHttpServer.start(fixtures.root);
    dataDirs = [1, 2].map((index) => mkdtempSync(path.join(os.tmpdir(), `quarry-worker-${index}-`)));
    env = {
      QUARRY_DATABASE_URL: config.databaseUrl,
      QUARRY_REDIS_URL: config.redisUrl,
      QUARRY_QUEUE_PREFIX: config.queuePrefix,
      QUARRY_WORKSPACE_ROOTS: path.dirname(fixtures.checkout),
      QUARRY_FETCH_ALLOW: '127.0.0.1/32',
      QUARRY_LOG_LEVEL: 'info',
      ...NO_RECONCILER_ENV,
    };
    await withChildLogs(group, async () => {
      url = (await group.startGateway({ ...env, QUARRY_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'quarry-gateway-')) }, { timeoutMs: 30_000 })).url;
      await Promise.all(dataDirs.map((dataDir, index) => group.startWorker(`worker-${index + 1}`, { ...env, QUARRY_DATA_DIR: dataDir, QUARRY_WORKER_CONCURRENCY: '1' }, { waitForReady: true, timeoutMs: 30_000 })));
    });
  });

  afterAll(async () => {
    await group.stopAll(3_000);
    await deleteQueueKeys(config);
    await server?.close();
    fixtures?.remove();
    for (const dir of dataDirs ?? []) rmSync(dir, { recursive: true, force: true });
  });

  async function api<T = any>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(url + route, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  const waitForJob = (id: string) =>
    pollUntil(async () => {
      const { body } = await api<JobView>('GET', `/v1/jobs/${id}`);
      return body && ['succeeded', 'failed', 'cancelled'].includes(body.status) ? body : undefined;
    }, 60_000, `job ${id}`, 100);

  function quarry(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [QUARRY_BIN, ...args], { cwd: repoRoot(), env: childEnv({ ...env, ...extra }), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  const counts = (result: Pick<ScanResult, 'files' | 'bytes' | 'lines' | 'languages'>) => ({ files: result.files, bytes: result.bytes, lines: result.lines, languages: result.languages });

  it('a scan job by URL pins the commit and counts what a checkout of it counts; both workers serve the same repository', async () => {
    const checkout = await quarry(['scan', '--no-code-index', fixtures.checkout, '--local', '--json']);
    expect(checkout.code).toBe(0);
    const expected = counts(JSON.parse(checkout.stdout));

    const fetchesBefore = server.fetches().length;
    const lookupsBefore = server.lookups().length;
    const ids: string[] = [];
    for (let index = 0; index < 6; index++) {
      const submitted = await api<JobView>('POST', '/v1/jobs', { kind: 'scan', input: { source: { git: server.url('demo.git'), ref: 'main' }, codeIndex: false } });
      expect(submitted.status).toBe(202);
      ids.push(submitted.body.id);
    }
    const jobs = await Promise.all(ids.map(waitForJob));
    for (const job of jobs) {
      expect(job.error).toBeNull();
      const result = job.result as ScanResult;
      expect(counts(result)).toEqual(expected);
      expect(result.source).toEqual({ git: server.url('demo.git'), ref: 'main', commit: fixtures.commits.main });
      expect(job.source).toEqual(result.source);
    }
    // Each worker fetched into its own data directory: nothing is shared between them but the queue.
    const servedBy = new Set(
      group.children.filter((child) => child.name.startsWith('worker-') && ids.some((id) => child.lines.some((line) => parseJsonLine(line.text)?.jobId === id && parseJsonLine(line.text)?.msg === 'job started'))).map((child) => child.name),
    );
    expect(servedBy).toEqual(new Set(['worker-1', 'worker-2']));
    for (const dataDir of dataDirs) expect(readdirSync(path.join(dataDir, 'git', 'repos'))).toHaveLength(1);
    // One ref look-up per job; fetches only for each worker's first job (its commit, then its blobs).
    // With the per-blob facts in Postgres, a worker whose first job follows the other worker's
    // scan reads no content to count, so its detection's manifests come in a round of their own.
    expect(server.lookups().length - lookupsBefore).toBe(6);
    expect(server.fetches().length - fetchesBefore).toBeLessThanOrEqual(2 * 4);
  });

  it('a ref that does not exist fails the job once with ref_not_found, not retried', async () => {
    const submitted = await api<JobView>('POST', '/v1/jobs', { kind: 'detect', input: { source: { git: server.url('demo.git'), ref: 'master' } } });
    const job = await waitForJob(submitted.body.id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error: { kind: 'ref_not_found', suggestion: expect.stringContaining('"main"') } });
  });

  it('a missing repository fails with repo_not_found', async () => {
    const submitted = await api<JobView>('POST', '/v1/jobs', { kind: 'scan', input: { source: { git: server.url('nope.git') } } });
    expect(await waitForJob(submitted.body.id)).toMatchObject({ status: 'failed', attempts: 1, error: { kind: 'repo_not_found' } });
  });

  it.each([
    [{ source: { git: 'file:///etc' } }, 400, 'url_blocked'],
    [{ source: { git: 'ssh://git@example.com/r.git' } }, 400, 'url_blocked'],
    [{ source: { git: '--upload-pack=touch /tmp/x' } }, 400, 'url_invalid'],
    [{ source: { git: 'https://127.0.0.2/r.git' } }, 400, 'url_blocked'], // outside the allow-list, and still loopback
    [{ source: { git: 'https://example.com/r.git', ref: '' } }, 400, 'input_invalid'],
    [{ source: { git: 'https://example.com/r.git' }, root: '/tmp' }, 400, 'input_invalid'],
    [{}, 400, 'input_invalid'],
  ])('the gateway refuses %j at submit with %i %s', async (input, status, kind) => {
    const submitted = await api('POST', '/v1/jobs', { kind: 'scan', input });
    expect(submitted.status).toBe(status);
    expect(submitted.body).toMatchObject({ kind, suggestion: expect.any(String) });
  });

  it('the CLI scans a URL in process and through the gateway, equal to a scan of the checkout', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-cli-'));
    try {
      const checkout = counts(JSON.parse((await quarry(['scan', '--no-code-index', fixtures.checkout, '--local', '--json'])).stdout));
      const local = await quarry(['scan', '--no-code-index', server.url('demo.git'), '--ref', 'main', '--local', '--json'], { QUARRY_DATA_DIR: dataDir });
      expect(local.code).toBe(0);
      const localJson = JSON.parse(local.stdout);
      expect(localJson.source.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(counts(localJson)).toEqual(checkout);
      expect(existsSync(path.join(dataDir, 'git', 'repos'))).toBe(true);

      const remote = await quarry(['scan', '--no-code-index', server.url('demo.git'), '--ref', 'dev', '--server', url, '--json']);
      expect(remote.code).toBe(0);
      const remoteJson = JSON.parse(remote.stdout);
      expect(remoteJson.source.commit).toBe(fixtures.commits.dev);
      expect(remoteJson.files).toBe(checkout.files + 1);

      const human = await quarry(['scan', '--no-code-index', server.url('demo.git'), '--local'], { QUARRY_DATA_DIR: dataDir });
      expect(human.stdout).toContain(fixtures.commits.main.slice(0, 12));

      for (const args of [['--local'], ['--server', url]]) {
        const missing = await quarry(['scan', '--no-code-index', server.url('demo.git'), '--ref', 'master', '--json', ...args], { QUARRY_DATA_DIR: dataDir });
        expect(missing.code).not.toBe(0);
        expect(JSON.parse(missing.stdout).error.kind).toBe('ref_not_found');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
