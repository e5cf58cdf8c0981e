import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { z } from 'zod';
import { QuarryError } from '@quarry/contracts';
import { parseLlmSettings, type LlmClientOptions, type LlmSettings } from './settings';
import { clip, parseStructuredAnswer, toResponseSchema } from './structured-output';
import { callWithPolicy, openAiSdk } from './call-policy';
import { CHAT_ENDPOINT } from './llm-errors';

export interface CompletionRequest<T> {
  system: string;
  user: string;
  /** Sent to the server as JSON Schema and applied again to the answer. */
  schema: z.ZodType<T>;
  /** The schema's name in `response_format` ([A-Za-z0-9_-], ≤ 64 characters, as OpenAI requires). */
  schemaName: string;
  signal?: AbortSignal;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface Completion<T> {
  value: T;
  /** The model the server says answered (it may differ from the configured alias). */
  model: string;
  usage?: TokenUsage;
  /** The answer text as received, before the fence was stripped: for logs and caches. */
  raw: string;
  /** HTTP requests made, 1 when the first one succeeded. */
  attempts: number;
}

const SCHEMA_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * One structured question to an OpenAI-compatible chat-completions server at a time. The `openai`
 * package does the HTTP; this class owns the policy around it: one deadline for the whole call
 * (retries and waits included), retries only for transient failures, the answer validated again
 * with zod, and every failure a typed QuarryError. A caller's abort rejects with `signal.reason`,
 * untouched, as everywhere else in Quarry.
 */
export class LlmClient {
  readonly settings: LlmSettings;
  private readonly sdk: OpenAI;

  constructor(options: LlmClientOptions) {
    this.settings = parseLlmSettings(options);
    this.sdk = openAiSdk(this.settings);
  }

  get model(): string {
    return this.settings.model;
  }

  async complete<T>(request: CompletionRequest<T>): Promise<Completion<T>> {
    if (!SCHEMA_NAME.test(request.schemaName)) {
      throw new TypeError(`schemaName "${request.schemaName}" must match ${SCHEMA_NAME} (OpenAI's rule for json_schema names)`);
    }
    const body = this.requestBody(request);
    return callWithPolicy(
      this.settings,
      CHAT_ENDPOINT,
      ({ signal, timeout }) => this.sdk.chat.completions.create(body, { signal, timeout, maxRetries: 0 }),
      (completion, attempts) => this.read(completion, request, attempts),
      request.signal,
    );
  }

  private requestBody<T>(request: CompletionRequest<T>): ChatCompletionCreateParamsNonStreaming {
    return {
      model: this.settings.model,
      temperature: this.settings.temperature,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: request.user },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: request.schemaName, strict: true, schema: toResponseSchema(request.schema) },
      },
    };
  }

  /** A completion → the validated value; anything unusable is `llm_invalid_output`. */
  private read<T>(completion: ChatCompletion, request: CompletionRequest<T>, attempts: number): Completion<T> {
    const name = request.schemaName;
    // Some servers answer 200 with a body that is not a chat completion at all.
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice?.message) {
      throw invalid(`The LLM's response for ${name} has no choices: ${clip(typeof completion === 'string' ? completion : JSON.stringify(completion ?? null))}`);
    }
    const { message, finish_reason: finish } = choice;
    if (message.refusal) throw invalid(`The LLM refused to answer ${name}: ${clip(message.refusal)}`);
    if (finish === 'content_filter') throw invalid(`The LLM's answer for ${name} was withheld by the server's content filter`);
    const raw = message.content ?? '';
    if (raw.trim() === '') throw invalid(`The LLM's answer for ${name} is empty (finish_reason: ${finish ?? 'none'})`);
    let value: T;
    try {
      value = parseStructuredAnswer(raw, request.schema, name);
    } catch (error) {
      // A cut-off answer explains the parse error better than the parse error does.
      if (finish === 'length' && error instanceof QuarryError) {
        throw new QuarryError(error.kind, `${error.message} (the answer was cut off at the token limit)`, { suggestion: error.suggestion, cause: error });
      }
      throw error;
    }
    const usage = completion.usage
      ? { promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens, totalTokens: completion.usage.total_tokens }
      : undefined;
    return { value, model: completion.model || this.settings.model, usage, raw, attempts };
  }
}

function invalid(message: string): QuarryError {
  return new QuarryError('llm_invalid_output', message, {
    suggestion: 'Use a model that supports structured output (JSON schema), or one that follows JSON instructions more closely.',
  });
}
