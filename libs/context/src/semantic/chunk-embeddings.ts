import { createHash } from 'node:crypto';

/**
 * Chunk vectors, keyed by what they are a function of: the embeddings model (and the size asked
 * of it) and the exact text embedded. A chunk whose text did not change — the same blob in another
 * commit, or an unchanged part of an edited file — is never embedded twice.
 */
export interface ChunkEmbeddingStore {
  /** The vectors of `model` held for these keys (missing keys are absent). */
  load(model: string, keys: readonly string[]): Promise<Map<string, Float32Array>>;
  /** Insert-or-keep: a vector is a function of its key. */
  record(model: string, entries: readonly { key: string; vector: Float32Array }[]): Promise<void>;
}

/** What embeds texts: an OpenAI-compatible endpoint's client (EmbeddingsClient of @quarry/llm), or a test's. */
export interface Embedder {
  /** The model's name as configured, with its size when one is asked for: part of every key. */
  readonly model: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** The store's key of a text embedded by `model`. */
export function embeddingKey(model: string, text: string): string {
  return createHash('sha256').update(model).update('\0').update(text).digest('hex');
}

/**
 * Vectors in this process (the CLI, `quarry mcp` in-process): the most recently used `capacity`
 * are kept (a 768-number vector is 3 KB; 50,000 of them 150 MB).
 */
export class MemoryChunkEmbeddingStore implements ChunkEmbeddingStore {
  private readonly vectors = new Map<string, Float32Array>();

  constructor(private readonly capacity = 50_000) {}

  async load(model: string, keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    for (const key of keys) {
      const id = `${model}\0${key}`;
      const vector = this.vectors.get(id);
      if (vector === undefined) continue;
      this.vectors.delete(id);
      this.vectors.set(id, vector);
      found.set(key, vector);
    }
    return found;
  }

  async record(model: string, entries: readonly { key: string; vector: Float32Array }[]): Promise<void> {
    for (const { key, vector } of entries) {
      const id = `${model}\0${key}`;
      if (!this.vectors.has(id)) this.vectors.set(id, vector);
    }
    while (this.vectors.size > this.capacity) this.vectors.delete(this.vectors.keys().next().value as string);
  }

  get size(): number {
    return this.vectors.size;
  }
}
