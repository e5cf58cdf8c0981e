import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

describe('bad requests get typed 4xx errors and never a 500', () => {
  let stack: TestStack;
  let root: string;
  beforeAll(async () => {
    root = makeTree({ 'a.ts': 'x\n' });
    stack = await TestStack.start({ workspaceRoots: [root], maxBodyBytes: 10_000 }, { worker: false });
  });
  afterAll(() => stack.close());

  const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
    ['missing root', () => stack.submit('scan', {}), 400, 'input_invalid'],
    ['root of the wrong type', () => stack.submit('scan', { root: 42 }), 400, 'input_invalid'],
    ['relative root', () => stack.submit('scan', { root: 'some/repo' }), 400, 'path_not_absolute'],
    ['root outside the allowed roots', () => stack.submit('scan', { root: os.tmpdir() }), 403, 'path_outside_root'],
    ['root that does not exist', () => stack.submit('scan', { root: path.join(root, 'nope') }), 404, 'root_not_found'],
    ['root that is a file', () => stack.submit('scan', { root: path.join(root, 'a.ts') }), 422, 'root_not_directory'],
    ['unknown kind', () => stack.submit('scna', { root }), 400, 'kind_unknown'],
    ['detect with an unknown mode', () => stack.submit('detect', { root, mode: 'guess' }), 400, 'input_invalid'],
    ['detect of a root outside the allowed roots', () => stack.submit('detect', { root: os.tmpdir() }), 403, 'path_outside_root'],
    ['missing kind', () => stack.request('POST', '/v1/jobs', { input: { root } }), 400, 'input_invalid'],
    ['body that is not JSON', () => stack.request('POST', '/v1/jobs', '{"kind": "scan",', { 'content-type': 'application/json' }), 400, 'input_invalid'],
    ['huge body', () => stack.submit('scan', { root, padding: 'x'.repeat(20_000) }), 413, 'body_too_large'],
    ['unknown job id', () => stack.request('GET', '/v1/jobs/00000000-0000-4000-8000-000000000000'), 404, 'job_not_found'],
    ['malformed job id', () => stack.request('GET', '/v1/jobs/not-a-uuid'), 404, 'job_not_found'],
    ['cancel of an unknown job', () => stack.request('POST', '/v1/jobs/00000000-0000-4000-8000-000000000000/cancel'), 404, 'job_not_found'],
    ['bad list filter', () => stack.request('GET', '/v1/jobs?status=exploded'), 400, 'input_invalid'],
    ['bad list limit', () => stack.request('GET', '/v1/jobs?limit=100000'), 400, 'input_invalid'],
    ['forged cursor', () => stack.request('GET', '/v1/jobs?cursor=bm9wZQ'), 400, 'cursor_invalid'],
    ['unknown route', () => stack.request('GET', '/v2/nothing'), 404, 'not_found'],
  ];

  it.each(cases)('%s', async (_name, send, status, kind) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ kind });
    expect(typeof response.body.message).toBe('string');
  });

  it('suggests the closest kind for a typo', async () => {
    const response = await stack.submit('scna', { root });
    expect(response.body.suggestion).toContain('"scan"');
  });

  it('says which roots are allowed', async () => {
    const response = await stack.submit('scan', { root: os.tmpdir() });
    expect(response.body.message).toContain(root);
    expect(response.body.suggestion).toContain('QUARRY_WORKSPACE_ROOTS');
  });

  it('refuses a symlink inside an allowed root that points outside it', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-outside-'));
    fs.symlinkSync(outside, path.join(root, 'escape'));
    const response = await stack.submit('scan', { root: path.join(root, 'escape') });
    expect(response.status).toBe(403);
    expect(response.body.kind).toBe('path_outside_root');
  });

  it('stores no row for a refused request', async () => {
    const before = await stack.prisma.job.count();
    await stack.submit('scan', { root: 'relative' });
    await stack.submit('scna', { root });
    expect(await stack.prisma.job.count()).toBe(before);
  });

  it('pages through jobs newest first with a stable cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await stack.submit('scan', { root })).body.id);
    const first = await stack.request('GET', '/v1/jobs?limit=2&kind=scan');
    expect(first.status).toBe(200);
    expect(first.body.items.map((job: { id: string }) => job.id)).toEqual([ids[4], ids[3]]);
    const second = await stack.request('GET', `/v1/jobs?limit=2&kind=scan&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((job: { id: string }) => job.id)).toEqual([ids[2], ids[1]]);
    const byStatus = await stack.request('GET', '/v1/jobs?status=succeeded&limit=200');
    expect(byStatus.body.items.every((job: { status: string }) => job.status === 'succeeded')).toBe(true);
  });
});

describe('when Postgres is unreachable', () => {
  let stack: TestStack;
  beforeAll(async () => {
    const root = makeTree({ 'a.ts': 'x\n' });
    stack = await TestStack.start({ workspaceRoots: [root], databaseUrl: 'postgresql://postgres@127.0.0.1:9/quarry_test' }, { worker: false });
  });
  afterAll(() => stack.close());

  it('answers 503 unavailable, not 500, and /ready says which engine is down', async () => {
    const submitted = await stack.submit('scan', { root: stack.config.workspaceRoots[0] });
    expect(submitted.status).toBe(503);
    expect(submitted.body).toMatchObject({ kind: 'unavailable' });
    const ready = await stack.request('GET', '/ready');
    expect(ready).toEqual({ status: 503, body: { status: 'unavailable', redis: 'up', postgres: 'down' } });
  });
});
