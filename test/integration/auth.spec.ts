import { io } from 'socket.io-client';
import type { SubscribeAck } from '../../libs/contracts/src';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * Keys live in the shared test database and switch authentication on for every gateway using
 * it, so this file removes its keys when it ends.
 */
describe('API keys', () => {
  let stack: TestStack;
  let root: string;
  let alice: string;
  let bob: string;
  const created: string[] = [];

  beforeAll(async () => {
    root = makeTree({ 'a.rs': 'fn main() {}\n' });
    stack = await TestStack.start({ workspaceRoots: [root] });
    for (const name of ['alice', 'bob']) {
      const { key, secret } = await stack.keys.create(`test-${name}`);
      created.push(key.id);
      if (name === 'alice') alice = secret;
      else bob = secret;
    }
    // The gateway caches "are keys configured?" for two seconds.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  });
  afterAll(async () => {
    await stack.prisma.job.deleteMany({ where: { ownerId: { in: created } } });
    await stack.prisma.apiKey.deleteMany({ where: { id: { in: created } } });
    await stack.close();
  });

  const as = (key: string) => ({ authorization: `Bearer ${key}` });

  it('refuses REST calls without a key, or with a wrong or revoked one', async () => {
    const none = await stack.submit('scan', { root });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ kind: 'unauthorized' });
    expect(none.body.suggestion).toContain('quarry keys create');
    const wrong = await stack.submit('scan', { root }, as('qk_not-a-real-key'));
    expect(wrong.status).toBe(401);
    const list = await stack.request('GET', '/v1/jobs');
    expect(list.status).toBe(401);
  });

  it('reads every malformed Authorization header as no key: a typed 401 on REST, /queues and /mcp, never a 500', async () => {
    const headers = [
      'Basic %%%',
      `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x80]).toString('base64')}`,
      `Basic ${Buffer.from('no-colon-at-all').toString('base64')}`,
      'Bearer',
      'Bearer ',
      'Token qk_whatever',
      `Bearer ${'x'.repeat(8_000)}`,
      `Bearer ${alice}${alice}`,
    ];
    for (const authorization of headers) {
      for (const [method, path] of [
        ['GET', '/v1/jobs'],
        ['GET', '/queues/api/queues'],
        ['POST', '/mcp'],
      ]) {
        const answer = await stack.request(method, path, method === 'POST' ? '{}' : undefined, { authorization, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) });
        expect([authorization.slice(0, 20), path, answer.status, answer.body?.kind]).toEqual([authorization.slice(0, 20), path, 401, 'unauthorized']);
      }
    }
    for (const token of [42, { nested: 'x' }, ['a'], '']) {
      const socket = io(`${stack.url}/events`, { transports: ['websocket'], reconnection: false, auth: { token } as never });
      const refusal = await new Promise<{ data?: { kind?: string } }>((resolve) => socket.once('connect_error', resolve));
      socket.disconnect();
      expect(refusal.data?.kind).toBe('unauthorized');
    }
  });

  it("serves a pack job's artifact to its own key only", async () => {
    const submitted = await stack.submit('pack', { root }, as(alice));
    expect(submitted.status).toBe(202);
    const id = submitted.body.id;
    await stack.waitForStatus(id, ['succeeded']);
    const own = await stack.request('GET', `/v1/jobs/${id}/artifact`, undefined, as(alice));
    expect(own.status).toBe(200);
    expect(String(own.body)).toContain('fn main()');
    expect(await stack.request('GET', `/v1/jobs/${id}/artifact`, undefined, as(bob))).toMatchObject({ status: 404, body: { kind: 'job_not_found' } });
    expect((await stack.request('GET', `/v1/jobs/${id}/artifact`)).status).toBe(401);
  });

  it('lets a key see only its own jobs', async () => {
    const submitted = await stack.submit('scan', { root }, as(alice));
    expect(submitted.status).toBe(202);
    const id = submitted.body.id;
    await stack.waitForStatus(id, ['succeeded']);

    expect((await stack.request('GET', `/v1/jobs/${id}`, undefined, as(alice))).status).toBe(200);
    const peek = await stack.request('GET', `/v1/jobs/${id}`, undefined, as(bob));
    expect(peek.status).toBe(404);
    expect(peek.body.kind).toBe('job_not_found');
    expect((await stack.request('GET', `/v1/jobs/${id}/events`, undefined, as(bob))).status).toBe(404);
    expect((await stack.request('POST', `/v1/jobs/${id}/retry`, undefined, as(bob))).status).toBe(404);

    const bobsList = await stack.request('GET', '/v1/jobs', undefined, as(bob));
    expect(bobsList.body.items.map((job: { id: string }) => job.id)).not.toContain(id);
    const alicesList = await stack.request('GET', '/v1/jobs', undefined, as(alice));
    expect(alicesList.body.items.map((job: { id: string }) => job.id)).toContain(id);
  });

  it("refuses a socket without a key, and a key subscribing to another key's job", async () => {
    const id = (await stack.submit('scan', { root }, as(alice))).body.id;

    const anonymous = io(`${stack.url}/events`, { transports: ['websocket'], reconnection: false });
    const refusal = await new Promise<any>((resolve) => anonymous.once('connect_error', resolve));
    anonymous.disconnect();
    expect(refusal.data).toMatchObject({ kind: 'unauthorized' });

    const bobs = await stack.connect(bob);
    const ack = await new Promise<SubscribeAck>((resolve) => bobs.emit('subscribe', { jobId: id }, resolve));
    expect(ack).toMatchObject({ ok: false, error: { kind: 'job_not_found' } });

    const alices = await stack.connect(alice);
    const own = await new Promise<SubscribeAck>((resolve) => alices.emit('subscribe', { jobId: id }, resolve));
    expect(own.ok).toBe(true);
  });

  it("keeps a key's batch to itself: another key cannot see, list, cancel, retry or subscribe to its jobs", async () => {
    const none = await stack.request('POST', '/v1/jobs/batch', { jobs: [{ kind: 'scan', input: { root } }] });
    expect(none.status).toBe(401);
    const batch = await stack.request('POST', '/v1/jobs/batch', { jobs: [{ kind: 'scan', input: { root } }, { kind: 'scan', input: { root } }] }, as(alice));
    expect(batch.status).toBe(202);
    const ids: string[] = batch.body.items.map((item: { job: { id: string } }) => item.job.id);
    const [first, second] = ids;
    await stack.waitForStatus(first, ['succeeded']);
    for (const path of [`/v1/jobs/${first}`, `/v1/jobs/${first}/events`]) {
      expect((await stack.request('GET', path, undefined, as(bob))).body).toMatchObject({ kind: 'job_not_found' });
    }
    expect((await stack.request('POST', `/v1/jobs/${second}/cancel`, undefined, as(bob))).status).toBe(404);
    expect((await stack.request('POST', `/v1/jobs/${first}/retry`, undefined, as(bob))).status).toBe(404);
    const bobsList = await stack.request('GET', '/v1/jobs?limit=100', undefined, as(bob));
    expect(bobsList.body.items.map((job: { id: string }) => job.id)).not.toEqual(expect.arrayContaining([first]));
    expect(bobsList.body.items.map((job: { id: string }) => job.id)).not.toEqual(expect.arrayContaining([second]));
    const alicesList = await stack.request('GET', '/v1/jobs?limit=100', undefined, as(alice));
    expect(alicesList.body.items.map((job: { id: string }) => job.id)).toEqual(expect.arrayContaining(ids));
    const bobs = await stack.connect(bob);
    const ack = await new Promise<SubscribeAck>((resolve) => bobs.emit('subscribe', { jobId: second }, resolve));
    expect(ack).toMatchObject({ ok: false, error: { kind: 'job_not_found' } });
    expect((await stack.request('GET', `/v1/jobs/${second}`, undefined, as(alice))).status).toBe(200);
  });

  it('guards the queue dashboard too', async () => {
    expect((await stack.request('GET', '/queues')).status).toBe(401);
    const basic = Buffer.from(`x:${alice}`).toString('base64');
    expect((await stack.request('GET', '/queues', undefined, { authorization: `Basic ${basic}` })).status).toBe(200);
  });

  it('stops accepting a key once it is revoked', async () => {
    expect(await stack.keys.revoke('test-bob')).toBe(1);
    const response = await stack.request('GET', '/v1/jobs', undefined, as(bob));
    expect(response.status).toBe(401);
  });
});
