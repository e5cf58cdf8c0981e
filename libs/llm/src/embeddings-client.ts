import type OpenAI from 'openai';
import { QuarryError } from '@quarry/contracts';
import { callWithPolicy, openAiSdk } from './call-policy';
import { parseEmbeddingSettings, type EmbeddingClientOptions, type EmbeddingSettings } from './settings';
import type { EndpointNames } from './llm-errors';

const EMBEDDINGS_ENDPOINT: EndpointNames = {
  service: 'embeddings endpoint',
  env: 'QUARRY_EMBEDDINGS',
  badRequest: 'Check that the model is an embeddings model, that the texts fit its input size, and that it accepts the dimensions asked for (QUARRY_EMBEDDINGS_DIMENSIONS).',
};

/**
 * Vectors from an OpenAI-compatible `/v1/embeddings` endpoint, under the same policy as the chat
 * client (one deadline per request, retries for transient failures, typed errors). Texts go in
 * batches of `batchSize`; every answer is checked — one vector per text, in order, finite numbers,
 * all of one size — and a malformed one is `llm_invalid_output`, never a vector of garbage.
 */
export class EmbeddingsClient {
  readonly settings: EmbeddingSettings;
  private readonly sdk: OpenAI;

  constructor(options: EmbeddingClientOptions) {
    this.settings = parseEmbeddingSettings(options);
    this.sdk = openAiSdk(this.settings);
  }

  get model(): string {
    return this.settings.model;
  }

  /** One vector per text, in order. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.settings.batchSize) {
      const batch = texts.slice(start, start + this.settings.batchSize);
      const body = { model: this.settings.model, input: batch, encoding_format: 'float' as const, ...(this.settings.dimensions ? { dimensions: this.settings.dimensions } : {}) };
      vectors.push(
        ...(await callWithPolicy(
          this.settings,
          EMBEDDINGS_ENDPOINT,
          ({ signal: requestSignal, timeout }) => this.sdk.embeddings.create(body, { signal: requestSignal, timeout, maxRetries: 0 }) as Promise<unknown>,
          (response) => this.read(response, batch.length, vectors[0]?.length),
          signal,
        )),
      );
    }
    return vectors;
  }

  /** The response's vectors in input order, or `llm_invalid_output` saying what is wrong with it. */
  private read(response: unknown, expected: number, size: number | undefined): Float32Array[] {
    const data = (response as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw invalid(`The embeddings endpoint answered without a data list: ${preview(response)}`);
    if (data.length !== expected) throw invalid(`The embeddings endpoint answered ${data.length} vectors for ${expected} texts`);
    const vectors: Float32Array[] = new Array(expected);
    for (const [position, entry] of data.entries()) {
      const item = entry as { index?: unknown; embedding?: unknown };
      const index = typeof item?.index === 'number' ? item.index : position;
      const embedding = item?.embedding;
      if (!Number.isInteger(index) || index < 0 || index >= expected || vectors[index] !== undefined) throw invalid(`The embeddings endpoint answered a vector with index ${String(item?.index)} for ${expected} texts`);
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) {
        throw invalid(`The embeddings endpoint answered vector ${index} that is not a list of finite numbers: ${preview(embedding)}`);
      }
      const want = size ?? this.settings.dimensions ?? vectors.find((vector) => vector !== undefined)?.length;
      if (want !== undefined && embedding.length !== want) throw invalid(`The embeddings endpoint answered vectors of ${embedding.length} and ${want} numbers`);
      vectors[index] = Float32Array.from(embedding as number[]);
    }
    return vectors;
  }
}

function invalid(message: string): QuarryError {
  return new QuarryError('llm_invalid_output', message, { suggestion: 'Check that QUARRY_EMBEDDINGS_MODEL is an embeddings model and that the server speaks the OpenAI embeddings API.' });
}

function preview(value: unknown): string {
  const text = JSON.stringify(value ?? null) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
