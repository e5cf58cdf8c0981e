import type { JobProgress, SubscribeAck } from '../../libs/contracts/src';
import { EventsSocket, TestStack, waitFor } from '../support/stack';
import { generatedTree, makeTree } from '../support/trees';
import { EndlessScanProcessor } from '../support/test-processors';

type Seen = { event: string; payload: any; at: number };

function record(socket: EventsSocket): Seen[] {
  const seen: Seen[] = [];
  socket.onAny((event, payload) => seen.push({ event, payload, at: Date.now() }));
  return seen;
}

function subscribe(socket: EventsSocket, jobId: string): Promise<SubscribeAck> {
  return new Promise((resolve) => socket.emit('subscribe', { jobId }, resolve));
}

describe('live events on /events', () => {
  describe('with the real scan', () => {
    let stack: TestStack;
    const tree = generatedTree(20_000);
    beforeAll(async () => {
      stack = await TestStack.start({ workspaceRoots: [tree.root], workerConcurrency: 1 }, { worker: false });
    });
    afterAll(() => stack.close());

    it('sends a snapshot, then progress, then job.completed with the result', async () => {
      const { body } = await stack.submit('scan', { root: tree.root, codeIndex: false });
      const socket = await stack.connect();
      const seen = record(socket);
      const ack = await subscribe(socket, body.id);
      expect(ack).toMatchObject({ ok: true, job: { id: body.id, status: 'queued' } });
      await stack.startWorker();

      await waitFor(() => seen.some((entry) => entry.event === 'job.completed'), 60_000, 'job.completed');
      expect(seen[0].event).toBe('job.snapshot');
      expect(seen[0].payload.job.id).toBe(body.id);
      expect(seen[0].payload.history.map((event: { type: string }) => event.type)).toEqual(['queued']);

      const statuses = seen.filter((entry) => entry.event === 'job.status').map((entry) => entry.payload.status);
      expect(statuses).toContain('running');
      const progress = seen.filter((entry) => entry.event === 'job.progress').map((entry) => entry.payload.progress as JobProgress);
      expect(progress.length).toBeGreaterThan(0);
      for (let i = 1; i < progress.length; i++) expect(progress[i].done).toBeGreaterThanOrEqual(progress[i - 1].done);

      const completed = seen.find((entry) => entry.event === 'job.completed');
      expect(completed?.payload).toMatchObject({ jobId: body.id, result: { files: tree.files, lines: tree.lines, bytes: tree.bytes } });
      expect(seen.indexOf(completed!)).toBe(seen.length - 1);
    }, 90_000);

    it('gives a late subscriber the finished job in its snapshot', async () => {
      const small = makeTree({ 'x.go': 'package x\n' });
      stack.config.workspaceRoots.push(small);
      const { body } = await stack.submit('scan', { root: small });
      await stack.waitForStatus(body.id, ['succeeded']);
      const socket = await stack.connect();
      const seen = record(socket);
      await subscribe(socket, body.id);
      await waitFor(() => seen.length > 0, 2_000, 'snapshot');
      expect(seen[0].event).toBe('job.snapshot');
      expect(seen[0].payload.job).toMatchObject({ status: 'succeeded', result: { files: 1 } });
      expect(seen[0].payload.history.map((event: { type: string }) => event.type)).toContain('completed');
    });

    it('answers a subscribe to an unknown or malformed job with a typed error', async () => {
      const socket = await stack.connect();
      expect(await subscribe(socket, '00000000-0000-4000-8000-000000000000')).toMatchObject({ ok: false, error: { kind: 'job_not_found' } });
      const ack = await new Promise<SubscribeAck>((resolve) => socket.emit('subscribe', { jobId: 42 } as never, resolve));
      expect(ack).toMatchObject({ ok: false, error: { kind: 'input_invalid' } });
    });
  });

  describe('pacing and cancellation', () => {
    let stack: TestStack;
    beforeAll(async () => {
      const root = makeTree({ 'a.ts': '1\n' });
      stack = await TestStack.start({ workspaceRoots: [root] }, { processors: [EndlessScanProcessor] });
      stack.config.workspaceRoots.push(root);
    });
    afterAll(() => stack.close());

    it('paces progress at least every 250 ms and at most ~10 events/s, then reports the cancel', async () => {
      const root = stack.config.workspaceRoots[0];
      const { body } = await stack.submit('scan', { root });
      const socket = await stack.connect();
      const seen = record(socket);
      await subscribe(socket, body.id);
      // The handler reports every 20 ms (50/s); clients must see a steady ~5/s.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await stack.request('POST', `/v1/jobs/${body.id}/cancel`);
      await waitFor(() => seen.some((entry) => entry.event === 'job.cancelled'), 3_000, 'job.cancelled');

      const progress = seen.filter((entry) => entry.event === 'job.progress');
      const gaps = progress.slice(1).map((entry, i) => entry.at - progress[i].at);
      const span = (progress[progress.length - 1].at - progress[0].at) / 1000;
      expect(progress.length).toBeGreaterThanOrEqual(5);
      expect(progress.length / span).toBeLessThanOrEqual(11);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(400); // 250 ms target plus scheduling slack
    });
  });
});
