import { z } from 'zod';
import { QuarryError } from '@quarry/contracts';
import { executePlan, bounded, type ToolHost } from './executor';
import type { PlanStep } from './plan';
import { defaultToolRegistry, type ToolRegistry } from './tools';

const step = (name: string, args: Record<string, unknown> = {}): PlanStep => ({ name, args, confidence: 0.9 });

function registryWithWriter(): ToolRegistry {
  return defaultToolRegistry().register({
    name: 'write_file',
    description: 'test-only tool that changes the workspace',
    args: z.object({ path: z.string().min(1).max(4096), text: z.string() }),
    roles: { path: 'file', text: 'text' },
    mutates: true,
  });
}

describe('executePlan', () => {
  it('runs independent steps in parallel', async () => {
    // Each tool waits until both have started: run one after the other, this never finishes.
    let started = 0;
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    const waitForBoth = async (args: Record<string, unknown>) => {
      if (++started === 2) release();
      await bothStarted;
      return args;
    };
    const host: ToolHost = { list_files: waitForBoth, read_file: waitForBoth };
    const results = await executePlan([step('list_files', { directory: 'src' }), step('read_file', { path: 'a.ts' })], { registry: defaultToolRegistry(), host });
    expect(results).toEqual([
      { tool: 'list_files', ok: true, output: { directory: 'src' } },
      { tool: 'read_file', ok: true, output: { path: 'a.ts' } },
    ]);
  });

  it('types a failing step and lets the others finish', async () => {
    const host: ToolHost = {
      read_file: async () => {
        throw new QuarryError('file_not_found', 'no such file: x.ts', { suggestion: 'Did you mean y.ts?' });
      },
      search: async () => {
        throw new Error('disk on fire');
      },
      list_files: async () => ['a.ts'],
    };
    const results = await executePlan([step('read_file'), step('search'), step('list_files')], { registry: defaultToolRegistry(), host });
    expect(results).toEqual([
      { tool: 'read_file', ok: false, error: { kind: 'file_not_found', message: 'no such file: x.ts', suggestion: 'Did you mean y.ts?' } },
      { tool: 'search', ok: false, error: { kind: 'internal', message: 'search failed: disk on fire' } },
      { tool: 'list_files', ok: true, output: ['a.ts'] },
    ]);
  });

  it('does not run a mutating step unless approve() says true', async () => {
    const writes: unknown[] = [];
    const host: ToolHost = { write_file: async (args) => writes.push(args) };
    const registry = registryWithWriter();
    const writeStep = step('write_file', { path: 'a.ts', text: 'x' });

    const refused = await executePlan([writeStep], { registry, host });
    expect(refused).toEqual([{ tool: 'write_file', ok: false, error: expect.objectContaining({ kind: 'approval_required' }) }]);
    const declined = await executePlan([writeStep], { registry, host, approve: () => false });
    expect(declined[0].error?.kind).toBe('approval_required');
    expect(writes).toEqual([]);

    const asked: PlanStep[] = [];
    const approved = await executePlan([writeStep], { registry, host, approve: async (candidate) => (asked.push(candidate), true) });
    expect(approved).toEqual([{ tool: 'write_file', ok: true, output: 1 }]);
    expect(asked).toEqual([writeStep]);
    expect(writes).toEqual([{ path: 'a.ts', text: 'x' }]);
  });

  it('never asks approval for read-only tools', async () => {
    const approve = jest.fn(() => false);
    const results = await executePlan([step('list_files')], { registry: defaultToolRegistry(), host: { list_files: async () => [] }, approve });
    expect(results[0].ok).toBe(true);
    expect(approve).not.toHaveBeenCalled();
  });

  it('reports a tool the host does not provide as tool_unknown', async () => {
    const results = await executePlan([step('fetch_url', { url: 'https://x.test' })], { registry: defaultToolRegistry(), host: {} });
    expect(results[0]).toEqual({ tool: 'fetch_url', ok: false, error: expect.objectContaining({ kind: 'tool_unknown' }) });
  });

  it('bounds each output and reports progress per step', async () => {
    const progress: unknown[] = [];
    const big = 'x'.repeat(10_000);
    const results = await executePlan([step('read_file'), step('list_files')], {
      registry: defaultToolRegistry(),
      host: { read_file: async () => big, list_files: async () => 'small' },
      maxOutputBytes: 1_000,
      onProgress: (update) => progress.push(update),
    });
    expect(results[0].output).toEqual({ truncated: true, bytes: 10_002, note: 'output cut to 1000 of 10002 bytes of JSON', partial: expect.any(String) });
    expect(Buffer.byteLength(JSON.stringify(results[0].output))).toBeLessThanOrEqual(1_000);
    expect(results[1].output).toBe('small');
    expect(progress).toHaveLength(2);
    expect(progress).toContainEqual({ done: 2, total: 2, stage: expect.any(String) });
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const controller = new AbortController();
    const host: ToolHost = {
      search: (_args, { signal }) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('stopped')))),
    };
    const running = executePlan([step('search', { query: 'x' })], { registry: defaultToolRegistry(), host, signal: controller.signal });
    controller.abort(new Error('job cancelled'));
    await expect(running).rejects.toThrow('job cancelled');
  });

  it('keeps outputs under the limit untouched', () => {
    const value = { a: [1, 2, 3] };
    expect(bounded(value, 100)).toBe(value);
  });
});
