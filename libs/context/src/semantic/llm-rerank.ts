import { z } from 'zod';
import { QuarryError } from '@quarry/contracts';
import type { CompletionRequest } from '@quarry/llm';

/** The configured chat model, as the rerank uses it (LlmClient of @quarry/llm). */
export interface ChatModel {
  complete<T>(request: CompletionRequest<T>): Promise<{ value: T }>;
}

export interface RerankSettings {
  chat: ChatModel;
  /** Spans the model orders (the lexical/semantic ranking's first ones). */
  top: number;
}

/** One span as the model sees it. */
export interface RerankCandidate {
  path: string;
  startLine: number;
  endLine: number;
  label?: string;
  code: string;
}

const rerankSchema = z.object({ ranking: z.array(z.number().int()) });
const TASK_CHARS = 6_000;
const SPAN_LINES = 40;

const SYSTEM = [
  "You rank spans of a repository's code by how much a developer needs each to do a task: the code the task will change first, then the code it depends on, then the rest.",
  'Answer with JSON only: ranking = the span numbers, most relevant first, each once.',
].join(' ');

/**
 * The candidates' order by the chat model: indexes into `candidates`, most relevant first, every
 * candidate once (numbers the model left out follow in their given order; numbers it made up or
 * repeated are ignored). No usable number at all is `llm_invalid_output`; an endpoint that fails
 * is the client's `llm_unavailable`. The caller keeps its own ranking then.
 */
export async function rerankByModel(task: string, candidates: readonly RerankCandidate[], settings: RerankSettings, signal?: AbortSignal): Promise<number[]> {
  const spans = candidates.map((candidate, index) => {
    const lines = candidate.code.split('\n');
    const shown = lines.slice(0, SPAN_LINES).join('\n') + (lines.length > SPAN_LINES ? `\n… ${lines.length - SPAN_LINES} more lines` : '');
    return `[${index + 1}] ${candidate.path}:${candidate.startLine}-${candidate.endLine}${candidate.label ? ` (${candidate.label})` : ''}\n${shown}`;
  });
  const { value } = await settings.chat.complete({
    system: SYSTEM,
    user: `Task:\n${task.slice(0, TASK_CHARS)}\n\nSpans:\n\n${spans.join('\n\n')}`,
    schema: rerankSchema,
    schemaName: 'span_ranking',
    signal,
  });
  const order: number[] = [];
  const seen = new Set<number>();
  for (const number of value.ranking) {
    const index = number - 1;
    if (index < 0 || index >= candidates.length || seen.has(index)) continue;
    seen.add(index);
    order.push(index);
  }
  if (order.length === 0) {
    throw new QuarryError('llm_invalid_output', `The chat model's span ranking names none of the ${candidates.length} spans (${JSON.stringify(value.ranking).slice(0, 100)}).`, {
      suggestion: 'Use a model that follows structured-output instructions, or set QUARRY_CONTEXT_RERANK_TOP=0.',
    });
  }
  for (let index = 0; index < candidates.length; index++) if (!seen.has(index)) order.push(index);
  return order;
}
