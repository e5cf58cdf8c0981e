import { ProgressRelay, type ProgressNotice } from './progress-relay';

describe('ProgressRelay', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function relay(intervalMs = 100) {
    const sent: ProgressNotice[] = [];
    return { sent, relay: new ProgressRelay((notice) => sent.push(notice), intervalMs) };
  }

  it('announces the job first, as progress 0', () => {
    const { sent, relay: progress } = relay();
    progress.announce('queued as job 1');
    progress.announce('said twice');
    expect(sent).toEqual([{ progress: 0, message: 'queued as job 1' }]);
  });

  it('sends only counts that moved forward, so progress always increases', () => {
    const { sent, relay: progress } = relay(0);
    progress.announce('queued');
    progress.report({ stage: 'listing', done: 0, message: '10 files found' });
    progress.report({ stage: 'reading', done: 5, total: 10 });
    progress.report({ stage: 'reading', done: 5, total: 10 });
    progress.report({ stage: 'writing', done: 2, total: 3 });
    progress.report({ stage: 'reading', done: 7, total: 10, message: 'src/a.ts' });
    expect(sent.map((notice) => notice.progress)).toEqual([0, 5, 7]);
    expect(sent[1]).toEqual({ progress: 5, total: 10, message: 'reading 5/10' });
    expect(sent[2].message).toBe('reading 7/10: src/a.ts');
  });

  it('sends at most one per interval, and the latest report once the interval has passed', () => {
    const { sent, relay: progress } = relay(100);
    for (let done = 1; done <= 50; done++) progress.report({ stage: 'reading', done, total: 100 });
    expect(sent.map((notice) => notice.progress)).toEqual([1]);
    jest.advanceTimersByTime(100);
    expect(sent.map((notice) => notice.progress)).toEqual([1, 50]);
    jest.advanceTimersByTime(1_000);
    expect(sent).toHaveLength(2);
  });

  it('sends nothing after stop', () => {
    const { sent, relay: progress } = relay(100);
    progress.report({ stage: 'reading', done: 1 });
    progress.report({ stage: 'reading', done: 2 });
    progress.stop();
    jest.advanceTimersByTime(1_000);
    progress.report({ stage: 'reading', done: 3 });
    expect(sent.map((notice) => notice.progress)).toEqual([1]);
  });

  it('sends the waiting count at once when the work finishes, then nothing more', () => {
    const { sent, relay: progress } = relay(100);
    progress.report({ stage: 'reading', done: 1, total: 10 });
    progress.report({ stage: 'reading', done: 10, total: 10 });
    progress.finish();
    expect(sent.map((notice) => notice.progress)).toEqual([1, 10]);
    jest.advanceTimersByTime(1_000);
    progress.report({ stage: 'reading', done: 11 });
    expect(sent).toHaveLength(2);
  });
});
