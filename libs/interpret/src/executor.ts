import { QuarryError } from '@quarry/contracts';
import type { PlanStep, StepResult } from './plan';
import type { ToolRegistry } from './tools';

/**
 * Runs a plan's steps. Each tool is a function the host provides (the worker wires them to
 * @quarry/workspace, @quarry/search, @quarry/detect and a child fetch job); the executor owns the
 * policy: the approval gate for tools that mutate, parallel steps, bounded outputs, and one
 * step's failure never sinking the others.
 */

export type ToolFunction = (args: Record<string, unknown>, options: { signal?: AbortSignal }) => Promise<unknown>;
export type ToolHost = Readonly<Record<string, ToolFunction>>;

export interface ExecuteProgress {
  done: number;
  total: number;
  stage: string;
}

export interface ExecuteOptions {
  registry: ToolRegistry;
  host: ToolHost;
  signal?: AbortSignal;
  /** Asked before every step whose tool mutates; anything but `true` leaves the step unrun. */
  approve?: (step: PlanStep) => boolean | Promise<boolean>;
  onProgress?: (progress: ExecuteProgress) => void;
  /** Serialised size a step's output may have before it is cut (64 KiB). */
  maxOutputBytes?: number;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;

/** Runs every step at once (the tools are independent reads) and returns their results in plan order. */
export async function executePlan(steps: readonly PlanStep[], options: ExecuteOptions): Promise<StepResult[]> {
  let done = 0;
  const total = steps.length;
  const finished = (step: PlanStep) => {
    done += 1;
    options.onProgress?.({ done, total, stage: step.name });
  };
  return Promise.all(
    steps.map(async (step) => {
      const result = await runStep(step, options);
      options.signal?.throwIfAborted();
      finished(step);
      return result;
    }),
  );
}

async function runStep(step: PlanStep, options: ExecuteOptions): Promise<StepResult> {
  const tool = options.registry.get(step.name);
  const run = Object.hasOwn(options.host, step.name) ? options.host[step.name] : undefined;
  if (!tool || !run) {
    return failed(step, new QuarryError('tool_unknown', `No tool "${step.name}" is available to run.`, { suggestion: `Available: ${options.registry.names().join(', ')}` }));
  }
  if (tool.mutates && (await options.approve?.(step)) !== true) {
    return failed(
      step,
      new QuarryError('approval_required', `${step.name} changes the workspace and was not approved.`, { suggestion: 'Approve this step to run it.' }),
    );
  }
  try {
    options.signal?.throwIfAborted();
    const output = await run(step.args, { signal: options.signal });
    return { tool: step.name, ok: true, output: bounded(output, options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES) };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    return failed(step, error);
  }
}

function failed(step: PlanStep, error: unknown): StepResult {
  const body =
    error instanceof QuarryError
      ? error.toBody()
      : { kind: 'internal', message: `${step.name} failed: ${error instanceof Error ? error.message : String(error)}` };
  return { tool: step.name, ok: false, error: body };
}

/**
 * The output itself when its JSON fits, else a cut-down copy that says so: the JSON text cut at
 * the limit, which a client can still show, and the original size.
 */
export function bounded(output: unknown, maxBytes: number): unknown {
  if (output === undefined) return undefined;
  const json = JSON.stringify(output) ?? 'null';
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return output;
  // Room for the wrapper's own fields, so the whole stays within the limit.
  const cut = Buffer.from(json).subarray(0, Math.max(0, maxBytes - 256)).toString('utf8').replace(/\uFFFD+$/, '');
  return { truncated: true, bytes, note: `output cut to ${maxBytes} of ${bytes} bytes of JSON`, partial: cut };
}
