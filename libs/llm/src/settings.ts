import { z } from 'zod';

/**
 * Where the LLM lives and how patient Quarry is with it. Any OpenAI-compatible chat-completions
 * endpoint works (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server…), so the base URL is the
 * only thing that says which one.
 */
export const DEFAULT_LLM_TIMEOUT_MS = 10_000;
export const DEFAULT_LLM_MAX_RETRIES = 2;
export const DEFAULT_LLM_RETRY_BASE_MS = 500;

const httpUrl = z
  .string()
  .trim()
  .refine((value) => URL.canParse(value), 'must be an http(s) URL such as http://127.0.0.1:11434/v1')
  // zod runs every check even after one failed, so this one must not assume a parseable URL.
  .refine((value) => !URL.canParse(value) || /^https?:$/.test(new URL(value).protocol), 'must use http or https');

export const llmSettingsSchema = z.object({
  /** Up to and including the API version segment: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  baseUrl: httpUrl,
  model: z.string().trim().min(1, 'must name a model'),
  /** Optional: local servers (Ollama, vLLM without --api-key) need none, and then no Authorization header is sent. */
  apiKey: z.string().min(1).optional(),
  /** The budget of one `complete()` call, retries and their waits included, so callers can reason about the worst case. */
  timeoutMs: z.number().int().min(1).max(600_000).default(DEFAULT_LLM_TIMEOUT_MS),
  /** Retries after the first attempt, for transient failures only (unreachable, 408, 429, 5xx). */
  maxRetries: z.number().int().min(0).max(10).default(DEFAULT_LLM_MAX_RETRIES),
  /** 0 by default: detection and planning want the same answer for the same question. */
  temperature: z.number().min(0).max(2).default(0),
  /** First backoff step (doubled per retry, ±20% jitter); a server's Retry-After raises it. Tests lower it. */
  retryBaseMs: z.number().int().min(0).max(60_000).default(DEFAULT_LLM_RETRY_BASE_MS),
});

/** What a caller passes (defaults optional). */
export type LlmClientOptions = z.input<typeof llmSettingsSchema>;
/** What the client runs with (defaults filled in). */
export type LlmSettings = z.output<typeof llmSettingsSchema>;

/** A bad LLM setting, with one line per problem; thrown at boot, like the config library's ConfigError. */
export class LlmConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmConfigError';
  }
}

/** Validates options given in code; throws LlmConfigError naming each bad field. */
export function parseLlmSettings(options: LlmClientOptions, names: Partial<Record<keyof LlmSettings, string>> = {}): LlmSettings {
  const parsed = llmSettingsSchema.safeParse(options);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const field = String(issue.path[0] ?? '');
      return `${names[field as keyof LlmSettings] ?? field}: ${issue.message}`;
    });
    throw new LlmConfigError(`Invalid LLM configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}

const ENV_NAMES = {
  baseUrl: 'QUARRY_LLM_BASE_URL',
  model: 'QUARRY_LLM_MODEL',
  apiKey: 'QUARRY_LLM_API_KEY',
  timeoutMs: 'QUARRY_LLM_TIMEOUT_MS',
} as const;

/**
 * The LLM settings from the environment, or `undefined` when QUARRY_LLM_BASE_URL is unset or
 * empty: an LLM is optional, and callers then run their deterministic paths only. Once a base URL
 * is given, the rest must be right (a model, a positive timeout), because a half-configured LLM
 * that silently never answers is worse than a boot error.
 */
export function llmSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LlmSettings | undefined {
  const baseUrl = env[ENV_NAMES.baseUrl]?.trim();
  if (!baseUrl) return undefined;
  const timeout = env[ENV_NAMES.timeoutMs]?.trim();
  const timeoutMs = timeout ? Number(timeout) : undefined;
  return parseLlmSettings(
    {
      baseUrl,
      model: env[ENV_NAMES.model] ?? '',
      apiKey: env[ENV_NAMES.apiKey]?.trim() || undefined,
      // Number('abc') is NaN, which the schema reports as "expected number" under the env name.
      timeoutMs,
    },
    ENV_NAMES,
  );
}

// ── embeddings ─────────────────────────────────────────────────────────────────────────────────

/**
 * Where the embeddings model lives: any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI,
 * Ollama, vLLM, TEI). Separate from the chat model (QUARRY_LLM_*): the two are rarely the same
 * model, and often not the same server.
 */
export const DEFAULT_EMBEDDINGS_TIMEOUT_MS = 10_000;
export const DEFAULT_EMBEDDINGS_BATCH = 64;

export const embeddingSettingsSchema = llmSettingsSchema.pick({ baseUrl: true, model: true, apiKey: true, maxRetries: true, retryBaseMs: true }).extend({
  /** The budget of one request (one batch), retries included. */
  timeoutMs: z.number().int().min(1).max(600_000).default(DEFAULT_EMBEDDINGS_TIMEOUT_MS),
  /** Asked of models that can shorten their vectors (OpenAI's text-embedding-3); absent: the model's own size. */
  dimensions: z.number().int().min(1).max(16_384).optional(),
  /** Texts per request. */
  batchSize: z.number().int().min(1).max(2_048).default(DEFAULT_EMBEDDINGS_BATCH),
});

export type EmbeddingClientOptions = z.input<typeof embeddingSettingsSchema>;
export type EmbeddingSettings = z.output<typeof embeddingSettingsSchema>;

const EMBEDDINGS_ENV_NAMES = {
  baseUrl: 'QUARRY_EMBEDDINGS_BASE_URL',
  model: 'QUARRY_EMBEDDINGS_MODEL',
  apiKey: 'QUARRY_EMBEDDINGS_API_KEY',
  timeoutMs: 'QUARRY_EMBEDDINGS_TIMEOUT_MS',
  dimensions: 'QUARRY_EMBEDDINGS_DIMENSIONS',
  batchSize: 'QUARRY_EMBEDDINGS_BATCH',
} as const;

export function parseEmbeddingSettings(options: EmbeddingClientOptions, names: Partial<Record<keyof EmbeddingSettings, string>> = {}): EmbeddingSettings {
  const parsed = embeddingSettingsSchema.safeParse(options);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${names[String(issue.path[0]) as keyof EmbeddingSettings] ?? String(issue.path[0] ?? '')}: ${issue.message}`);
    throw new LlmConfigError(`Invalid embeddings configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}

/**
 * The embeddings settings from the environment, or `undefined` when QUARRY_EMBEDDINGS_BASE_URL is
 * unset or empty (the semantic layer is then off). Once a base URL is given the rest must be
 * right: a model that silently never answers is worse than a boot error.
 */
export function embeddingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): EmbeddingSettings | undefined {
  const baseUrl = env[EMBEDDINGS_ENV_NAMES.baseUrl]?.trim();
  if (!baseUrl) return undefined;
  const number = (name: string) => {
    const value = env[name]?.trim();
    // Number('abc') is NaN, which the schema reports as "expected number" under the env name.
    return value ? Number(value) : undefined;
  };
  return parseEmbeddingSettings(
    {
      baseUrl,
      model: env[EMBEDDINGS_ENV_NAMES.model] ?? '',
      apiKey: env[EMBEDDINGS_ENV_NAMES.apiKey]?.trim() || undefined,
      timeoutMs: number(EMBEDDINGS_ENV_NAMES.timeoutMs),
      dimensions: number(EMBEDDINGS_ENV_NAMES.dimensions),
      batchSize: number(EMBEDDINGS_ENV_NAMES.batchSize),
    },
    EMBEDDINGS_ENV_NAMES,
  );
}
