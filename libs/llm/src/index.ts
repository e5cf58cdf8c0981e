/**
 * @quarry/llm — structured answers from any OpenAI-compatible chat-completions server (OpenAI,
 * Ollama, vLLM…): JSON-schema output validated again with zod, one deadline per call, bounded
 * retries, typed errors (`llm_unavailable`, `llm_invalid_output`). Test doubles live in ./testing.
 */
export { LlmClient, type CompletionRequest, type Completion, type TokenUsage } from './llm-client';
export { EmbeddingsClient } from './embeddings-client';
export {
  embeddingSettingsFromEnv,
  parseEmbeddingSettings,
  embeddingSettingsSchema,
  DEFAULT_EMBEDDINGS_TIMEOUT_MS,
  DEFAULT_EMBEDDINGS_BATCH,
  type EmbeddingClientOptions,
  type EmbeddingSettings,
} from './settings';
export {
  llmSettingsFromEnv,
  parseLlmSettings,
  llmSettingsSchema,
  LlmConfigError,
  DEFAULT_LLM_TIMEOUT_MS,
  DEFAULT_LLM_MAX_RETRIES,
  DEFAULT_LLM_RETRY_BASE_MS,
  type LlmClientOptions,
  type LlmSettings,
} from './settings';
export { parseStructuredAnswer, stripJsonFence, toResponseSchema } from './structured-output';
export { MemoryAnswerCache, type LlmAnswerCache, type LlmAnswerEntry } from './answer-cache';
