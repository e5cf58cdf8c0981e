import { QuarryError } from '@quarry/contracts';
import { failure } from '../../workspace/src/testing/failure';
import { InProcessJobs, KEPT_JOBS } from './in-process-jobs';

const fetched = { url: 'u', finalUrl: 'u', status: 200, contentType: 'text/plain', text: 't', bytes: 1, truncated: false, fetchedAt: 'now', fromCache: false, redirects: [] };

describe('InProcessJobs', () => {
  const options = (signal = new AbortController().signal) => ({ signal, onProgress: () => undefined });

  it('records a run with its input defaults, progress and result', async () => {
    const jobs = new InProcessJobs();
    const { jobId, result } = await jobs.run('fetch', { url: 'https://example.org/' } as never, options(), async (_input, _signal, progress) => {
      progress({ stage: 'fetching', done: 1, total: 1 });
      return fetched;
    });
    expect(result).toBe(fetched);
    expect(jobs.get(jobId)).toMatchObject({ kind: 'fetch', status: 'succeeded', input: { url: 'https://example.org/', force: false }, progress: { done: 1 }, result: fetched });
  });

  it('records a typed failure, and an untyped one as internal', async () => {
    const jobs = new InProcessJobs();
    expect((await failure(jobs.run('fetch', { url: 'x' } as never, options(), async () => { throw new QuarryError('url_blocked', 'no'); }))).kind).toBe('url_blocked');
    expect((await failure(jobs.run('fetch', { url: 'x' } as never, options(), async () => { throw new TypeError('bug'); }))).kind).toBe('internal');
    expect(jobs.list(10).map((job) => [job.status, job.error?.kind])).toEqual([['failed', 'internal'], ['failed', 'url_blocked']]);
  });

  it('refuses input its contract refuses, before running anything', async () => {
    let ran = false;
    const error = await failure(new InProcessJobs().run('detect', { root: '/r', mode: 'sometimes' } as never, options(), async () => { ran = true; return []; }));
    expect(error.kind).toBe('input_invalid');
    expect(ran).toBe(false);
  });

  it('a cancelled run is job_cancelled, and recorded as cancelled', async () => {
    const jobs = new InProcessJobs();
    const controller = new AbortController();
    const run = jobs.run('scan', { root: '/r' }, options(controller.signal), (_input, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    controller.abort();
    expect((await failure(run)).kind).toBe('job_cancelled');
    expect(jobs.list(1)[0].status).toBe('cancelled');
  });

  it(`keeps the last ${KEPT_JOBS} jobs`, async () => {
    const jobs = new InProcessJobs();
    const ids: string[] = [];
    for (let i = 0; i < KEPT_JOBS + 5; i++) ids.push((await jobs.run('fetch', { url: 'x' } as never, options(), async () => fetched)).jobId);
    expect(jobs.list(1_000)).toHaveLength(KEPT_JOBS);
    expect(() => jobs.get(ids[0])).toThrow(expect.objectContaining({ kind: 'job_not_found' }));
    expect(jobs.get(ids.at(-1)!).status).toBe('succeeded');
  });
});
