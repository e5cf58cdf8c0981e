import type { QuarryConfig } from '@quarry/config/settings';
import type { ChunkEmbeddingStore, RerankSettings, SemanticSettings } from '@quarry/context';
import type { EmbeddingsClient, LlmClient } from '@quarry/llm';

/** Retrieval's optional layers as a process runs them; each absent when not configured. */
export interface RetrievalLayers {
  semantic?: SemanticSettings;
  rerank?: RerankSettings;
}

/**
 * The layers from the configuration: embeddings when QUARRY_EMBEDDINGS_* names an endpoint (their
 * vectors kept in `store`: Postgres in a worker, memory in-process), the rerank when
 * QUARRY_CONTEXT_RERANK_TOP asks for one (with the chat model of QUARRY_LLM_*).
 */
export function retrievalLayers(config: Pick<QuarryConfig, 'embeddings' | 'context'>, store: () => ChunkEmbeddingStore, llm: LlmClient | undefined): RetrievalLayers {
  const layers: RetrievalLayers = {};
  if (config.embeddings) {
    const settings = config.embeddings;
    const { model, dimensions } = settings;
    // The client (and the openai package) loads on the first question, not with every process.
    let client: EmbeddingsClient | undefined;
    const embed = async (texts: readonly string[], signal?: AbortSignal) => (client ??= new (await import('@quarry/llm')).EmbeddingsClient(settings)).embed(texts, signal);
    layers.semantic = {
      // The size asked of a model is part of what its vectors are: another size is another key.
      embedder: { model: dimensions ? `${model}@${dimensions}` : model, embed },
      store: store(),
      candidateFiles: config.context.semanticFiles,
      budgetMs: config.context.embeddingsBudgetMs,
    };
  }
  if (config.context.rerankTop > 0 && llm) layers.rerank = { chat: llm, top: config.context.rerankTop };
  return layers;
}
