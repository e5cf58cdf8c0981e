import { loadConfig } from '@quarry/config';
import { QuarryError, type JobView } from '@quarry/contracts';
import type { NavigationPorts } from '@quarry/jobs';
import { WorkspaceOperations } from '@quarry/mcp';
import { JobEventsEmitter } from '../events/job-events.emitter';
import type { JobsService } from '../jobs/jobs.service';
import { GatewayBackend } from './gateway-backend';

const ID = '5d1c0a8e-1111-4222-8333-444455556666';
const view = (status: JobView['status'], extra: Partial<JobView> = {}): JobView => ({
  id: ID, kind: 'scan', status, input: {}, result: null, error: null, progress: null, attempts: 1, parentId: null,
  createdAt: 'now', startedAt: null, finishedAt: null, ...extra,
});

function setup(initial: JobView['status'] = 'queued') {
  let current = view(initial);
  const calls: string[] = [];
  const jobs = {
    submit: async () => {
      calls.push('submit');
      return view('queued');
    },
    get: async () => current,
    cancel: async () => {
      calls.push('cancel');
      current = view('cancelled');
      return current;
    },
  } as unknown as JobsService;
  const emitter = new JobEventsEmitter({ find: async () => null });
  const config = { ...loadConfig({}, '/srv'), workspaceRoots: ['/srv/repo'] };
  const backend = new GatewayBackend({ kind: 'anonymous' }, jobs, emitter, new WorkspaceOperations({ resolveRoot: async (root) => root }), config, {} as NavigationPorts);
  return { backend, emitter, calls, setJob: (job: JobView) => (current = job) };
}

describe('GatewayBackend', () => {
  it('has the only workspace root as its default repository', () => {
    expect(setup().backend.defaultRepository).toBe('/srv/repo');
  });

  it('relays the job progress and resolves with the result the relay reports', async () => {
    const { backend, emitter } = setup();
    const progress: number[] = [];
    const ids: string[] = [];
    const run = backend.runJob('scan', { root: '/srv/repo' }, { signal: new AbortController().signal, onProgress: (p) => progress.push(p.done), onJob: (id) => ids.push(id) });
    await new Promise((resolve) => setImmediate(resolve));
    emitter.progress(ID, { stage: 'reading', done: 3, total: 9 });
    emitter.completed(ID, { files: 9 });
    await expect(run).resolves.toEqual({ jobId: ID, result: { files: 9 } });
    expect(ids).toEqual([ID]);
    expect(progress).toEqual([3]);
    expect(emitter.isWatched(ID)).toBe(false);
  });

  it('rejects with the typed error of a failed job', async () => {
    const { backend, emitter } = setup();
    const run = backend.runJob('scan', { root: '/srv/repo' }, { signal: new AbortController().signal, onProgress: () => undefined });
    await new Promise((resolve) => setImmediate(resolve));
    emitter.failed(ID, { kind: 'root_not_found', message: 'gone', suggestion: 'check it' });
    await expect(run).rejects.toMatchObject({ kind: 'root_not_found', message: 'gone', suggestion: 'check it' });
  });

  it('finds a job that ended before it started watching', async () => {
    const { backend, setJob } = setup();
    setJob(view('succeeded', { result: { files: 1 } }));
    await expect(backend.runJob('scan', { root: '/srv/repo' }, { signal: new AbortController().signal, onProgress: () => undefined })).resolves.toMatchObject({ result: { files: 1 } });
  });

  it('cancels the job when the call is cancelled', async () => {
    const { backend, calls } = setup();
    const controller = new AbortController();
    const run = backend.runJob('scan', { root: '/srv/repo' }, { signal: controller.signal, onProgress: () => undefined });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const error = await run.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuarryError);
    expect(error).toMatchObject({ kind: 'job_cancelled' });
    expect(calls).toEqual(['submit', 'cancel']);
  });
});
