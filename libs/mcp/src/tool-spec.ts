import { z } from 'zod';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { MAX_ANSWER_TOKENS, MIN_ANSWER_TOKENS, indexStateSchema, pageSchema, type IndexState, type JobKind } from '@quarry/contracts';
import { MAX_CURSOR_LENGTH, type AnswerCursor } from './answer-cursor';
import type { QuarryBackend } from './backend';
import type { PagedAnswer } from './paged-answer';
import type { ProgressRelay } from './progress-relay';
import type { ToolOutput } from './tool-result';
import type { ToolsetName } from './toolsets';

/** What a tool gets besides its arguments. */
export interface ToolContext {
  backend: QuarryBackend;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** Present when the client asked for progress (sent a progressToken). */
  progress?: ProgressRelay;
  /** The answer's budget in tokens (the caller's maxTokens, capped). */
  maxTokens: number;
  /** The page this call continues (a paged tool called with `cursor`), checked to belong to it. */
  cursor?: AnswerCursor;
}

/** What a tool hands back: a whole answer, or items the endpoint cuts into a page that fits. */
export type ToolAnswer = (ToolOutput | PagedAnswer) & {
  /** The repository state the answer read (every tool that reads a repository gives it). */
  index?: IndexState;
};

/** One MCP tool: its schemas (derived from the contracts), what the model is told, and what it does. */
export interface ToolSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** The set that lists it (`quarry mcp --toolsets`, `/mcp?toolsets=`). */
  toolset: ToolsetName;
  /** Written for a model: what the tool does and what comes back. */
  description: string;
  /** When to choose it — over grep, over reading files one by one, over another tool. */
  whenToUse: string;
  /** One call as a model would write it (checked against the input schema by a test). */
  example: Record<string, unknown>;
  input: I;
  /** The contract's result; the answer adds `page`, `nextCursor` and `index` (answerSchema). */
  output: O;
  annotations: ToolAnnotations;
  /**
   * The answer can outgrow a window (file content, lists): the tool takes `maxTokens` and
   * `cursor`, and returns a PagedAnswer the endpoint cuts to the budget.
   */
  paged: boolean;
  /** The job kind a job-backed tool runs. */
  jobKind?: JobKind;
  run(args: z.infer<I>, context: ToolContext): Promise<ToolAnswer>;
}

/** A spec with its argument type checked against its input schema, stored without it. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(spec: ToolSpec<I, O>): ToolSpec {
  return spec as unknown as ToolSpec;
}

/** The arguments every paged tool takes, described once. */
export const pagingArguments = {
  maxTokens: z
    .number()
    .int()
    .min(MIN_ANSWER_TOKENS)
    .optional()
    .describe(`Answer cap in tokens (default 8000, max ${MAX_ANSWER_TOKENS}).`),
  cursor: z.string().min(1).max(MAX_CURSOR_LENGTH).optional().describe('To continue: the previous nextCursor.'),
};

/** A paged tool's input: its own, with maxTokens and cursor. */
export function withPagingArguments<S extends z.ZodObject>(input: S): S {
  return input.extend(pagingArguments) as unknown as S;
}

/** What every answer's structuredContent may add to the contract's result. */
const ANSWER_FIELDS = {
  index: indexStateSchema.optional(),
  page: pageSchema.optional(),
  nextCursor: z.string().optional(),
};

/** The tool's structuredContent: its contract's result plus the answer fields. */
export function answerSchema(spec: Pick<ToolSpec, 'output'>): z.ZodObject {
  return spec.output.extend(ANSWER_FIELDS);
}

/** The description a model reads: what for, when to choose it, one example call. */
export function modelDescription(spec: Pick<ToolSpec, 'description' | 'whenToUse' | 'example'>): string {
  return `${spec.description} ${spec.whenToUse} Example: ${JSON.stringify(spec.example)}`;
}

/**
 * The tool as `tools/list` shows it. Every token of it is paid on every request an agent makes
 * (12 tools cost 11,068 tokens before this was cut), so the listing keeps what a model acts on:
 * the description and the arguments with their types, descriptions and the bounds that matter
 * (`additionalProperties: false`: a misspelt argument is refused). Left out: the safe-integer
 * bounds zod puts on every integer, string lengths, `default` (each description says it),
 * `$schema`, and the output's fields: models do not read output schemas, and a client that
 * checks `structuredContent` is told it is an object (every answer is checked against the whole
 * schema before it leaves). docs/mcp-tools.md lists every field, generated from the same table.
 */
export function describeTool(spec: ToolSpec): Tool {
  return {
    name: spec.name,
    title: spec.title,
    description: modelDescription(spec),
    inputSchema: compactInput(z.toJSONSchema(spec.input, { target: 'draft-7', io: 'input' })) as Tool['inputSchema'],
    outputSchema: LISTED_OUTPUT_SCHEMA,
    annotations: listedAnnotations(spec.annotations),
  };
}

const LISTED_OUTPUT_SCHEMA: Tool['outputSchema'] = { type: 'object' };

/** The hints that mean something: destructive and idempotent only qualify a tool that writes. */
function listedAnnotations(annotations: ToolAnnotations): ToolAnnotations {
  if (!annotations.readOnlyHint) return annotations;
  const { destructiveHint: _destructive, idempotentHint: _idempotent, ...meaningful } = annotations;
  return meaningful;
}

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);
const LEFT_OUT_OF_INPUTS = new Set(['$schema', 'minLength', 'maxLength', 'default']);

function compactInput(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactInput);
  if (!schema || typeof schema !== 'object') return schema;
  const compact: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (LEFT_OUT_OF_INPUTS.has(key)) continue;
    if ((key === 'minimum' || key === 'maximum') && SAFE_INTEGER_BOUNDS.has(value as number)) continue;
    // `properties` maps names to schemas: a property called "default" is an argument, not a keyword.
    compact[key] = key === 'properties' && value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, compactInput(property)])) : compactInput(value);
  }
  return compact;
}
