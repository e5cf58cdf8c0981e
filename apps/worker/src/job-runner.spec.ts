import { UnrecoverableError } from 'bullmq';
import { BUILT_KINDS, QuarryError } from '@quarry/contracts';
import type { JobRepository } from '@quarry/db';
import { buildHandlerMap } from './handler-registry';
import { JobRunner } from './job-runner';
import type { JobHandler } from './job-handler';

/** A fake repository recording what the runner wrote. The real one is covered by integration tests. */
function fakeRepository(claimable = true) {
  const writes: string[] = [];
  const repository = {
    claim: jest.fn(async () => (claimable ? { id: 'j1', kind: 'scan', input: { root: '/r' }, ownerId: null } : null)),
    recordProgress: jest.fn(async () => undefined),
    complete: jest.fn(async () => (writes.push('complete'), true)),
    fail: jest.fn(async () => (writes.push('fail'), true)),
    requeue: jest.fn(async () => (writes.push('requeue'), true)),
    cancel: jest.fn(async () => (writes.push('cancel'), true)),
  };
  return { repository: repository as unknown as JobRepository, writes, mock: repository };
}

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;

function bullJob(attemptsMade: number, attempts = 3) {
  return { data: { jobId: 'j1' }, attemptsMade, opts: { attempts }, updateProgress: jest.fn(async () => undefined) } as never;
}

function runnerWith(handler: JobHandler, claimable = true) {
  const fake = fakeRepository(claimable);
  return { runner: new JobRunner(fake.repository, new Map([['scan', handler]]), logger), ...fake };
}

const signal = () => new AbortController().signal;

describe('JobRunner', () => {
  it('writes the result and reports how long the handler ran', async () => {
    const { runner, writes, mock } = runnerWith({ run: async () => ({ files: 1 }) as never });
    const outcome = await runner.run(bullJob(0), signal());
    expect(outcome).toMatchObject({ written: true });
    expect(writes).toEqual(['complete']);
    expect(mock.complete).toHaveBeenCalledWith('j1', { files: 1 }, undefined);
    expect(mock.claim).toHaveBeenCalledWith('j1', 1);
  });

  it('writes the source a handler read with its result, in the same write', async () => {
    const source = { path: '/r', ref: null, commit: 'c'.repeat(40), dirty: true };
    const { runner, writes, mock } = runnerWith({
      run: async (_input, context) => {
        context.recordSource?.(source);
        return { files: 1 } as never;
      },
    });
    await runner.run(bullJob(0), signal());
    expect(writes).toEqual(['complete']);
    expect(mock.complete).toHaveBeenCalledWith('j1', { files: 1 }, source);
  });

  it('skips a job that is no longer runnable', async () => {
    const run = jest.fn();
    const { runner, writes } = runnerWith({ run }, false);
    expect(await runner.run(bullJob(0), signal())).toEqual({ skipped: 'not-runnable' });
    expect(run).not.toHaveBeenCalled();
    expect(writes).toEqual([]);
  });

  it('fails a permanent error at once, telling BullMQ not to retry', async () => {
    const { runner, writes, mock } = runnerWith({
      run: async () => {
        throw new QuarryError('root_not_found', 'gone');
      },
    });
    const error = await runner.run(bullJob(0), signal()).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(JSON.parse(error.message)).toEqual({ kind: 'root_not_found', message: 'gone' });
    expect(writes).toEqual(['fail']);
    expect(mock.fail).toHaveBeenCalledWith('j1', { kind: 'root_not_found', message: 'gone' });
  });

  it('requeues a transient error while attempts remain, and fails it on the last one', async () => {
    const handler = {
      run: async () => {
        throw new Error('ECONNRESET');
      },
    };
    const first = runnerWith(handler);
    const error = await first.runner.run(bullJob(0), signal()).catch((thrown) => thrown);
    expect(error).not.toBeInstanceOf(UnrecoverableError);
    expect(first.writes).toEqual(['requeue']);
    expect(first.mock.requeue).toHaveBeenCalledWith('j1', expect.objectContaining({ kind: 'internal', message: 'ECONNRESET' }), 1);

    const last = runnerWith(handler);
    await last.runner.run(bullJob(2), signal()).catch(() => undefined);
    expect(last.writes).toEqual(['fail']);
  });

  it('rejects an input that no longer matches the contract as a permanent failure', async () => {
    const fake = fakeRepository();
    fake.mock.claim.mockResolvedValueOnce({ id: 'j1', kind: 'scan', input: { nope: true }, ownerId: null } as never);
    const runner = new JobRunner(fake.repository, new Map([['scan', { run: jest.fn() }]]), logger);
    const error = await runner.run(bullJob(0), signal()).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(fake.mock.fail).toHaveBeenCalledWith('j1', expect.objectContaining({ kind: 'input_invalid' }));
  });

  it('ends a run aborted by cancellation as cancelled, without retrying', async () => {
    const controller = new AbortController();
    const { runner, writes } = runnerWith({
      run: async (_input, context) => {
        controller.abort();
        context.signal.throwIfAborted();
        return {} as never;
      },
    });
    const error = await runner.run(bullJob(0), controller.signal).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(JSON.parse(error.message).kind).toBe('job_cancelled');
    expect(writes).toEqual(['cancel']);
  });
});

describe('buildHandlerMap (worker boot rules)', () => {
  const handler: JobHandler = { run: async () => ({}) as never };

  const everyBuiltKind = BUILT_KINDS.map((kind) => ({ kind: kind as string, instance: handler }));

  it('accepts exactly one handler per built kind', () => {
    expect([...buildHandlerMap(everyBuiltKind).keys()]).toEqual([...BUILT_KINDS]);
  });

  it('refuses a built kind with no handler', () => {
    expect(() => buildHandlerMap(everyBuiltKind.filter((entry) => entry.kind !== 'scan'))).toThrow('no handler for job kind(s): scan');
    expect(() => buildHandlerMap([])).toThrow(`no handler for job kind(s): ${BUILT_KINDS.join(', ')}`);
  });

  it('refuses two handlers for one kind', () => {
    expect(() => buildHandlerMap([...everyBuiltKind, { kind: 'scan', instance: handler }])).toThrow('two handlers');
  });

  it('refuses handlers for unknown kinds', () => {
    expect(() => buildHandlerMap([...everyBuiltKind, { kind: 'compile', instance: handler }])).toThrow('unknown job kind');
  });
});
