import { z } from 'zod';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { JobKind } from '@quarry/contracts';
import type { QuarryBackend } from './backend';
import type { ProgressRelay } from './progress-relay';
import type { ToolOutput } from './tool-result';

/** What a tool gets besides its arguments. */
export interface ToolContext {
  backend: QuarryBackend;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** Present when the client asked for progress (sent a progressToken). */
  progress?: ProgressRelay;
}

/** One MCP tool: its schemas (derived from the contracts), what the model is told, and what it does. */
export interface ToolSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Written for a model: what the tool does, when to choose it, what comes back. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** The job kind a job-backed tool runs. */
  jobKind?: JobKind;
  run(args: z.infer<I>, context: ToolContext): Promise<ToolOutput>;
}

/** A spec with its argument type checked against its input schema, stored without it. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): ToolSpec {
  return spec as unknown as ToolSpec;
}

/**
 * The tool as `tools/list` shows it. JSON Schema draft-07, as the MCP SDK itself emits it and as
 * its clients validate `structuredContent` with: `input` as the caller writes it (defaults
 * optional), `output` as the server returns it.
 */
export function describeTool(spec: ToolSpec): Tool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: z.toJSONSchema(spec.input, { target: 'draft-7', io: 'input' }) as Tool['inputSchema'],
    outputSchema: z.toJSONSchema(spec.output, { target: 'draft-7', io: 'output' }) as Tool['outputSchema'],
    annotations: { title: spec.title, ...spec.annotations },
  };
}
