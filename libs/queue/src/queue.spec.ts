import { JOB_KINDS } from '@quarry/contracts';
import { jobOptionsFor } from './job-options';
import { redisOptions } from './redis-connection';
import { QueueReconciler, ReconcilerStore } from './reconciler';
import type { QueueLookup } from './queue-registry';

describe('job options', () => {
  it('uses the row id as the BullMQ id, keeps failed jobs and backs off with jitter', () => {
    for (const kind of JOB_KINDS) {
      const options = jobOptionsFor(kind, 'row-1');
      expect(options.jobId).toBe('row-1');
      expect(options.removeOnFail).toBe(false);
      expect(options.removeOnComplete).toEqual({ age: 3_600, count: 1_000 });
      expect(options.attempts).toBeGreaterThanOrEqual(2);
      expect(options.backoff).toMatchObject({ type: 'exponential', jitter: 0.5 });
    }
  });

  it('never lets an override change the job id', () => {
    expect(jobOptionsFor('scan', 'row-1', { jobId: 'other', attempts: 1 })).toMatchObject({ jobId: 'row-1', attempts: 1 });
  });
});

describe('redisOptions', () => {
  it('parses a redis URL', () => {
    expect(redisOptions('redis://user:p%40ss@cache.internal:6380/2')).toMatchObject({
      host: 'cache.internal',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      db: 2,
      maxRetriesPerRequest: 3,
    });
    expect(redisOptions('rediss://[::1]:6379', true)).toMatchObject({ host: '::1', tls: {}, maxRetriesPerRequest: null });
  });
});

describe('QueueReconciler', () => {
  function setup(states: Record<string, string>) {
    const added: string[] = [];
    const failed: string[] = [];
    const touched: string[] = [];
    const rows = Object.keys(states).map((id) => ({ id, kind: 'scan' as const, status: 'queued' as const }));
    const store: ReconcilerStore = {
      findUnfinished: async () => rows,
      fail: async (id) => (failed.push(id), true),
      touch: async (id) => void touched.push(id),
    };
    const queue = {
      getJobState: async (id: string) => states[id],
      getJob: async () => ({ failedReason: 'job stalled more than allowable limit' }),
      add: async (_name: string, data: { jobId: string }) => (added.push(data.jobId), {}),
    };
    const lookup = { queueFor: () => queue } as unknown as QueueLookup;
    return { reconciler: new QueueReconciler(store, lookup, 'quarry'), added, failed, touched };
  }

  it('re-adds lost jobs, fails jobs the queue failed, and leaves live ones alone', async () => {
    const { reconciler, added, failed, touched } = setup({ lost: 'unknown', dead: 'failed', waiting: 'waiting', active: 'active' });
    const report = await reconciler.reconcile(0);
    expect(report).toEqual({ checked: 4, requeued: ['lost'], failed: ['dead'] });
    expect(added).toEqual(['lost']);
    expect(failed).toEqual(['dead']);
    expect(touched.sort()).toEqual(['active', 'lost', 'waiting']);
  });
});
