import fs from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { ReconcilerService } from '../../apps/gateway/src/queues/reconciler.service';
import { TestStack, waitFor } from '../support/stack';
import { makeTree } from '../support/trees';
import { AlwaysFailingScanProcessor, EndlessScanProcessor, FlakyScanProcessor } from '../support/test-processors';

const tree = () => makeTree({ 'a.ts': 'one\ntwo\n', 'docs/b.md': 'three\n' });

const openQueues: Queue[] = [];
function queueOf(stack: TestStack): Queue {
  const queue = new Queue('scan', { connection: { url: stack.config.redisUrl }, prefix: stack.config.queuePrefix });
  openQueues.push(queue);
  return queue;
}
afterAll(() => Promise.all(openQueues.map((queue) => queue.close())));

/** Lifecycle events, without the sampled progress entries. */
async function lifecycle(stack: TestStack, id: string): Promise<string[]> {
  return (await stack.jobs.history(id)).map((event) => event.type).filter((type) => type !== 'progress');
}

describe('job lifecycle', () => {
  describe('retries', () => {
    let stack: TestStack;
    let root: string;
    beforeAll(async () => {
      root = tree();
      stack = await TestStack.start({ workspaceRoots: [root] }, { processors: [FlakyScanProcessor] });
    });
    afterAll(() => stack.close());

    it('retries a transient failure with backoff, then succeeds', async () => {
      const { body } = await stack.submit('scan', { root });
      const job = await stack.waitForStatus(body.id, ['succeeded', 'failed'], 30_000);
      expect(job.status).toBe('succeeded');
      expect(job.attempts).toBe(2);
      expect(job.error).toBeNull();
      expect(job.result).toMatchObject({ files: 2, lines: 3 });

      const attempts = FlakyScanProcessor.attemptsSeen.filter((seen) => seen.jobId === body.id);
      expect(attempts.map((seen) => seen.attempt)).toEqual([1, 2]);
      // Exponential backoff of 2 s with 50% jitter: the second attempt waits at least ~1 s.
      expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(900);

      expect(await lifecycle(stack, body.id)).toEqual(['queued', 'started', 'retrying', 'started', 'completed']);
      const retrying = (await stack.jobs.history(body.id)).find((event) => event.type === 'retrying');
      expect(retrying?.data).toMatchObject({ kind: 'internal', message: 'transient: the disk hiccuped', attempt: 1 });
    });
  });

  describe('permanent failures, retry and transient exhaustion', () => {
    let stack: TestStack;
    let allowed: string;
    beforeAll(async () => {
      allowed = makeTree({});
      stack = await TestStack.start({ workspaceRoots: [allowed] });
    });
    afterAll(() => stack.close());

    it('fails a permanent error at once, without retrying, and can be retried once fixed', async () => {
      const root = path.join(allowed, 'repo');
      fs.mkdirSync(root);
      fs.writeFileSync(path.join(root, 'x.py'), 'print(1)\n');
      // Stop the worker so the root can vanish between submission and the run.
      await stack.stopWorker();
      const { body } = await stack.submit('scan', { root });
      fs.rmSync(root, { recursive: true });
      await stack.startWorker();

      const failed = await stack.waitForStatus(body.id, ['failed', 'succeeded']);
      expect(failed.status).toBe('failed');
      expect(failed.attempts).toBe(1);
      expect(failed.error).toMatchObject({ kind: 'root_not_found' });
      const queued = await queueOf(stack).getJob(body.id);
      expect(queued?.attemptsMade).toBe(1);
      expect(await queued?.getState()).toBe('failed');

      fs.mkdirSync(root);
      fs.writeFileSync(path.join(root, 'x.py'), 'print(1)\n');
      const retried = await stack.request('POST', `/v1/jobs/${body.id}/retry`);
      expect(retried.status).toBe(202);
      expect(retried.body).toMatchObject({ status: 'queued', error: null, attempts: 0 });
      const done = await stack.waitForStatus(body.id, ['succeeded', 'failed']);
      expect(done.status).toBe('succeeded');
      expect(done.result).toMatchObject({ files: 1, lines: 1 });
      expect(await lifecycle(stack, body.id)).toEqual(['queued', 'started', 'failed', 'retried', 'started', 'completed']);
    });

    it('refuses to retry a job that has not failed', async () => {
      const root = makeTree({ 'a.txt': 'a\n' });
      stack.config.workspaceRoots.push(root);
      const { body } = await stack.submit('scan', { root });
      await stack.waitForStatus(body.id, ['succeeded']);
      const retry = await stack.request('POST', `/v1/jobs/${body.id}/retry`);
      expect(retry.status).toBe(409);
      expect(retry.body).toMatchObject({ kind: 'job_not_retryable' });
      const cancel = await stack.request('POST', `/v1/jobs/${body.id}/cancel`);
      expect(cancel.status).toBe(409);
      expect(cancel.body).toMatchObject({ kind: 'job_not_cancellable' });
    });
  });

  describe('transient failures that never recover', () => {
    let stack: TestStack;
    let root: string;
    beforeAll(async () => {
      root = tree();
      stack = await TestStack.start({ workspaceRoots: [root] }, { processors: [AlwaysFailingScanProcessor] });
    });
    afterAll(() => stack.close());

    it('ends failed after the last attempt, keeping the job in the failed set', async () => {
      const { body } = await stack.submit('scan', { root });
      const job = await stack.waitForStatus(body.id, ['failed'], 40_000);
      expect(job.attempts).toBe(3);
      expect(job.error).toMatchObject({ kind: 'internal', message: 'the backend is down' });
      const queued = await queueOf(stack).getJob(body.id);
      expect(await queued?.getState()).toBe('failed');
    }, 45_000);
  });

  describe('cancellation', () => {
    let stack: TestStack;
    let root: string;
    beforeAll(async () => {
      root = tree();
      stack = await TestStack.start({ workspaceRoots: [root] }, { processors: [EndlessScanProcessor] });
    });
    afterAll(() => stack.close());

    it('stops a running job within a second and ends it cancelled', async () => {
      const { body } = await stack.submit('scan', { root });
      await stack.waitForStatus(body.id, ['running']);
      await waitFor(() => EndlessScanProcessor.runs.includes(body.id), 5_000, 'the handler to start');
      const before = Date.now();
      const cancelled = await stack.request('POST', `/v1/jobs/${body.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      const abortedAt = await waitFor(() => EndlessScanProcessor.abortedAt.get(body.id), 2_000, 'the abort');
      expect(abortedAt - before).toBeLessThan(1_000);
      // The queue copy ends failed (not retried) and the row stays cancelled.
      await waitFor(async () => (await queueOf(stack).getJobState(body.id)) === 'failed', 3_000, 'queue copy to fail');
      const job = await stack.jobs.find(body.id);
      expect(job?.status).toBe('cancelled');
      expect(job?.finishedAt).not.toBeNull();
      const types = await lifecycle(stack, body.id);
      expect(types.filter((type) => type === 'cancelled')).toHaveLength(1);
      expect(types).not.toContain('failed');
    });

    it('cancels a queued job before any worker takes it', async () => {
      await stack.stopWorker();
      const { body } = await stack.submit('scan', { root });
      const cancelled = await stack.request('POST', `/v1/jobs/${body.id}/cancel`);
      expect(cancelled.body.status).toBe('cancelled');
      expect(await queueOf(stack).getJobState(body.id)).toBe('unknown');
      await stack.startWorker();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(EndlessScanProcessor.runs).not.toContain(body.id);
      expect((await stack.jobs.find(body.id))?.status).toBe('cancelled');
    });
  });

  describe('reconciler and idempotency', () => {
    let stack: TestStack;
    let root: string;
    beforeAll(async () => {
      root = tree();
      stack = await TestStack.start({ workspaceRoots: [root] }, { worker: false });
    });
    afterAll(() => stack.close());

    it('re-enqueues a job Postgres has but Redis lost', async () => {
      const { body } = await stack.submit('scan', { root });
      const queue = queueOf(stack);
      await queue.remove(body.id);
      expect(await queue.getJobState(body.id)).toBe('unknown');

      const report = await stack.gateway.app.get(ReconcilerService).reconcileNow(0);
      expect(report.requeued).toContain(body.id);
      expect(await queue.getJobState(body.id)).toBe('waiting');

      await stack.startWorker();
      const job = await stack.waitForStatus(body.id, ['succeeded', 'failed']);
      expect(job.status).toBe('succeeded');
      // A second pass finds nothing to do.
      const again = await stack.gateway.app.get(ReconcilerService).reconcileNow(0);
      expect(again.requeued).not.toContain(body.id);
      await stack.stopWorker();
    });

    it("leaves other deployments' jobs alone (another queue prefix)", async () => {
      const foreign = await stack.jobs.create({ kind: 'scan', input: { root }, queuePrefix: 'someone-else' });
      const report = await stack.gateway.app.get(ReconcilerService).reconcileNow(0);
      expect(report.requeued).not.toContain(foreign.id);
      expect(await queueOf(stack).getJobState(foreign.id)).toBe('unknown');
      await stack.prisma.job.delete({ where: { id: foreign.id } });
    });

    it('accepts a job while Redis is unreachable and queues it once the reconciler runs', async () => {
      const queue = stack.gateway.app.get(ReconcilerService);
      const registry = stack.gateway.app.get((await import('../../apps/gateway/src/queues/queues.module')).QueueRegistry);
      const scanQueue = registry.queueFor('scan');
      // Submissions are queued with add (one) or addBulk (several at once, or a batch): both fail.
      const realAdd = scanQueue.add.bind(scanQueue);
      const realAddBulk = scanQueue.addBulk.bind(scanQueue);
      scanQueue.add = () => Promise.reject(new Error('Connection is closed.'));
      scanQueue.addBulk = () => Promise.reject(new Error('Connection is closed.'));
      const { status, body } = await stack.submit('scan', { root });
      scanQueue.add = realAdd;
      scanQueue.addBulk = realAddBulk;
      expect(status).toBe(202);
      expect((await stack.jobs.find(body.id))?.status).toBe('queued');
      expect(await queueOf(stack).getJobState(body.id)).toBe('unknown');
      const report = await queue.reconcileNow(0);
      expect(report.requeued).toContain(body.id);
    });

    it('writes the result once when a job runs twice', async () => {
      const created = await stack.jobs.create({ kind: 'scan', input: { root } });
      expect(await stack.jobs.claim(created.id, 1)).not.toBeNull();
      // A second delivery (stalled lock, duplicate add) claims the same running row.
      expect(await stack.jobs.claim(created.id, 1)).not.toBeNull();
      const first = stack.jobs.complete(created.id, { files: 1 });
      const second = stack.jobs.complete(created.id, { files: 2 });
      const written = await Promise.all([first, second]);
      expect(written.filter(Boolean)).toHaveLength(1);
      const job = await stack.jobs.find(created.id);
      expect(job?.status).toBe('succeeded');
      const completed = (await stack.jobs.history(created.id)).filter((event) => event.type === 'completed');
      expect(completed).toHaveLength(1);
      // And a finished job cannot be claimed again.
      expect(await stack.jobs.claim(created.id, 2)).toBeNull();
    });
  });
});
