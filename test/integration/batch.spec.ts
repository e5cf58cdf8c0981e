import { Queue } from 'bullmq';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

/** POST /v1/jobs/batch on real Redis and Postgres: per-item validation, one multi-row insert, addBulk. */
describe('POST /v1/jobs/batch', () => {
  let stack: TestStack;
  let root: string;
  let queue: Queue;
  beforeAll(async () => {
    root = makeTree({ 'a.ts': 'one\n', 'b.md': 'two\n' });
    stack = await TestStack.start({ workspaceRoots: [root], batchMaxJobs: 5 });
    queue = new Queue('scan', { connection: { url: stack.config.redisUrl }, prefix: stack.config.queuePrefix });
  });
  afterAll(async () => {
    await queue.close();
    await stack.close();
  });

  const batch = (jobs: unknown) => stack.request('POST', '/v1/jobs/batch', { jobs });

  it('accepts the valid items, refuses each invalid one with its index and typed error, and runs the accepted ones', async () => {
    const response = await batch([
      { kind: 'scan', input: { root } },
      { kind: 'scna', input: { root } },
      { kind: 'scan', input: { root: '/etc' } },
      { kind: 'scan', input: { root: 42 } },
      { kind: 'scan', input: { root } },
    ]);
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ accepted: 2, rejected: 3 });
    const items = response.body.items;
    expect(items.map((item: { index: number; ok: boolean }) => [item.index, item.ok])).toEqual([
      [0, true],
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect(items[1].error).toMatchObject({ kind: 'kind_unknown', suggestion: expect.stringContaining('"scan"') });
    expect(items[2].error).toMatchObject({ kind: 'path_outside_root', message: expect.any(String), suggestion: expect.any(String) });
    expect(items[3].error).toMatchObject({ kind: 'input_invalid', message: expect.stringContaining('jobs[3]') });
    const ids = [items[0].job.id, items[4].job.id];
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) {
      const job = await stack.waitForStatus(id, ['succeeded', 'failed']);
      expect(job.status).toBe('succeeded');
      expect(job.result).toMatchObject({ files: 2 });
      // A scan long enough (the code index loads its grammars on a worker's first scan) reports progress too.
      expect((await stack.jobs.history(id)).map((event) => event.type).filter((type) => type !== 'progress')).toEqual(['queued', 'started', 'completed']);
    }
    // Queued under their row ids: adding them again (what the reconciler does) is harmless.
    expect((await queue.getJob(ids[0]))?.id).toBe(ids[0]);
  });

  it('stores concurrent single submissions together (group commit) and each is still its own job', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => stack.submit('scan', { root })));
    expect(answers.every((answer) => answer.status === 202)).toBe(true);
    const ids = answers.map((answer) => answer.body.id as string);
    expect(new Set(ids).size).toBe(40);
    for (const id of ids) {
      const job = await stack.waitForStatus(id, ['succeeded', 'failed']);
      expect(job).toMatchObject({ status: 'succeeded', result: { files: 2 } });
      expect((await stack.jobs.history(id)).map((event) => event.type).filter((type) => type !== 'progress')).toEqual(['queued', 'started', 'completed']);
    }
  });

  it('refuses a batch over the configured limit with a typed 413, storing nothing', async () => {
    const before = await stack.prisma.job.count();
    const response = await batch(Array.from({ length: 6 }, () => ({ kind: 'scan', input: { root } })));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ kind: 'batch_too_large', suggestion: expect.stringContaining('QUARRY_BATCH_MAX_JOBS') });
    expect(await stack.prisma.job.count()).toBe(before);
  });

  it('answers 400 batch_rejected, with every item, when no item is valid', async () => {
    const response = await batch([{ kind: 'scan' }, 'not an object']);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ kind: 'batch_rejected', accepted: 0, rejected: 2, suggestion: expect.any(String) });
    expect(response.body.items.map((item: { error: { kind: string } }) => item.error.kind)).toEqual(['input_invalid', 'input_invalid']);
  });

  it.each([
    ['no jobs field', {}],
    ['jobs not an array', { jobs: { kind: 'scan' } }],
    ['an empty batch', { jobs: [] }],
  ])('refuses a malformed batch (%s) with a typed 400', async (_name, body) => {
    const response = await stack.request('POST', '/v1/jobs/batch', body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ kind: 'input_invalid', message: expect.any(String) });
  });

  it('refuses a body that is not JSON with a typed 400', async () => {
    const response = await stack.request('POST', '/v1/jobs/batch', '{"jobs": [', { 'content-type': 'application/json' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ kind: 'input_invalid' });
  });
});
