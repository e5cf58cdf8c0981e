import type { JobProgress } from '@quarry/contracts';
import { ProgressReporter, keepInHistory } from './progress-reporter';

describe('ProgressReporter', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  function reporter() {
    const live: Array<{ at: number; progress: JobProgress }> = [];
    const stored: Array<{ at: number; sample: boolean }> = [];
    const instance = new ProgressReporter({
      live: async (progress) => live.push({ at: Date.now(), progress }),
      store: async (_progress, sample) => stored.push({ at: Date.now(), sample }),
      onError: () => undefined,
    });
    return { instance, live, stored };
  }

  it('sends the first report at once and then one event per 200 ms, however often the handler reports', async () => {
    const { instance, live } = reporter();
    for (let ms = 0; ms < 2_000; ms += 5) {
      instance.report({ stage: 'reading', done: ms, total: 2_000 });
      jest.advanceTimersByTime(5);
    }
    await instance.stop();
    expect(live[0]).toEqual({ at: 0, progress: { stage: 'reading', done: 0, total: 2_000 } });
    expect(live.length).toBeGreaterThanOrEqual(10);
    expect(live.length).toBeLessThanOrEqual(11); // ≤ ~5 events/s plus the first
    const gaps = live.slice(1).map((entry, i) => entry.at - live[i].at);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(200);
  });

  it('keeps a heartbeat when nothing changes, so watchers see the job is alive', async () => {
    const { instance, live } = reporter();
    instance.report({ stage: 'listing', done: 0, message: '10 files found' });
    jest.advanceTimersByTime(1_000);
    await instance.stop();
    expect(live.length).toBe(6);
  });

  it('sends a stage change early, but never within 100 ms of the last event', async () => {
    const { instance, live } = reporter();
    instance.report({ stage: 'listing', done: 0 });
    jest.advanceTimersByTime(50);
    instance.report({ stage: 'reading', done: 1, total: 10 });
    expect(live).toHaveLength(1); // too soon: waits for the next tick
    jest.advanceTimersByTime(150);
    expect(live.map((entry) => entry.progress.stage)).toEqual(['listing', 'reading']);
    jest.advanceTimersByTime(120);
    instance.report({ stage: 'writing', done: 2, total: 10 });
    expect(live.map((entry) => entry.progress.stage)).toEqual(['listing', 'reading', 'writing']);
    await instance.stop();
  });

  it('never lets done go backwards and stores a sample about once a second', async () => {
    const { instance, live, stored } = reporter();
    instance.report({ stage: 'reading', done: 50, total: 100 });
    jest.advanceTimersByTime(200);
    instance.report({ stage: 'reading', done: 40, total: 100 });
    jest.advanceTimersByTime(3_000);
    await instance.stop();
    expect(live.every((entry) => entry.progress.done === 50)).toBe(true);
    expect(stored.length).toBeGreaterThanOrEqual(3);
    expect(stored.length).toBeLessThanOrEqual(5);
  });

  it('stops sending after stop()', async () => {
    const { instance, live } = reporter();
    instance.report({ stage: 'reading', done: 1 });
    await instance.stop();
    const count = live.length;
    jest.advanceTimersByTime(2_000);
    expect(live.length).toBe(count);
  });

  it('keeps the history of a long run bounded: every sample updates the row, few go into the history', async () => {
    const { instance, stored } = reporter();
    instance.report({ stage: 'reading', done: 0 });
    for (let s = 0; s < 3_600; s++) jest.advanceTimersByTime(1_000); // an hour
    await instance.stop();
    expect(stored.length).toBeGreaterThanOrEqual(3_590);
    const kept = stored.filter((entry) => entry.sample).length;
    expect(kept).toBeLessThanOrEqual(60 + 7); // the first 60, then 64, 128, … 2048
    expect(kept).toBeGreaterThanOrEqual(60);
  });

  it('keepInHistory keeps the first ones, then powers of two', () => {
    const kept = Array.from({ length: 300 }, (_, n) => n).filter((n) => keepInHistory(n, 10));
    expect(kept).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 32, 64, 128, 256]);
  });
});
