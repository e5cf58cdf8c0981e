import { QuarryError } from '@quarry/contracts';
import { splitLines } from '@quarry/code-index';
import type { ContextCorpus } from '../corpus/context-corpus';
import { embeddingKey, type ChunkEmbeddingStore, type Embedder } from './chunk-embeddings';

/** The semantic layer's settings for one process: where vectors come from and where they are kept. */
export interface SemanticSettings {
  embedder: Embedder;
  store: ChunkEmbeddingStore;
  /** The lexical ranking's first files whose chunks are compared with the task (and embedded if they never were). */
  candidateFiles: number;
  /** Time one query may spend embedding: the task, and the candidate chunks the store does not hold yet. */
  budgetMs: number;
}

export interface SemanticScores {
  /** Cosine similarity of each candidate chunk with the task. */
  chunks: Map<number, number>;
  /** Each candidate file's best chunk. */
  files: Map<number, { score: number; chunk: number }>;
  /** Chunks this query embedded (the rest came from the store). */
  embedded: number;
  reused: number;
}

/** What of a chunk is embedded: its definition's name and its lines, cut here (embedding models read a few hundred tokens). */
const CHUNK_CHARS = 4_000;
/** What of the task is embedded: its start (the title and the first paragraphs say what it is about). */
const TASK_CHARS = 8_000;
/** Chunks embedded per step: each step's vectors are stored before the next, so a budget that runs out keeps what was done. */
const STEP = 256;

/**
 * The task's cosine similarity with every chunk of the candidate files. Vectors of chunks embedded
 * before (by any query, on any commit that has the same text) come from the store; the others are
 * embedded now and stored step by step. An endpoint that fails, or a budget that runs out, rejects
 * with a typed error (whatever was embedded stays stored, so the next question goes further); the
 * caller falls back to the lexical ranking.
 */
export async function semanticScores(
  corpus: ContextCorpus,
  candidates: readonly number[],
  task: string,
  settings: SemanticSettings,
  readText: (path: string) => Promise<string>,
  signal?: AbortSignal,
): Promise<SemanticScores> {
  const { embedder, store } = settings;
  const budget = AbortSignal.timeout(settings.budgetMs);
  const within = signal ? AbortSignal.any([signal, budget]) : budget;
  const keys: string[] = [];
  const texts = new Map<string, string>();
  const chunkKeys = new Map<number, string>();
  for (const file of candidates) {
    const lines = splitLines(await readText(corpus.paths[file]));
    for (let chunk = corpus.chunkStart[file]; chunk < corpus.chunkStart[file + 1]; chunk++) {
      const text = chunkText(corpus, chunk, lines);
      const key = embeddingKey(embedder.model, text);
      chunkKeys.set(chunk, key);
      if (!texts.has(key)) {
        texts.set(key, text);
        keys.push(key);
      }
    }
  }
  const vectors = await store.load(embedder.model, keys);
  const missing = keys.filter((key) => !vectors.has(key));
  const reused = keys.length - missing.length;
  let embedded = 0;
  const stopped = (error: unknown): never => {
    if (signal?.aborted) throw signal.reason;
    if (budget.aborted) {
      throw new QuarryError('llm_unavailable', `Embedding stopped at its ${settings.budgetMs} ms budget with ${embedded} of ${missing.length} new chunks embedded (kept: the next question goes on from there).`, {
        suggestion: 'Raise QUARRY_EMBEDDINGS_BUDGET_MS, or lower QUARRY_CONTEXT_SEMANTIC_FILES.',
        cause: error,
      });
    }
    throw error;
  };
  let query: Float32Array;
  try {
    [query] = await embedder.embed([task.slice(0, TASK_CHARS)], within);
    for (let start = 0; start < missing.length; start += STEP) {
      const step = missing.slice(start, start + STEP);
      const answered = await embedder.embed(
        step.map((key) => texts.get(key)!),
        within,
      );
      const entries = step.map((key, index) => ({ key, vector: answered[index] }));
      await store.record(embedder.model, entries);
      for (const { key, vector } of entries) vectors.set(key, vector);
      embedded += step.length;
    }
  } catch (error) {
    return stopped(error);
  }

  const chunks = new Map<number, number>();
  const files = new Map<number, { score: number; chunk: number }>();
  const queryNorm = norm(query);
  for (const [chunk, key] of chunkKeys) {
    const vector = vectors.get(key)!;
    if (vector.length !== query.length) {
      throw new QuarryError('llm_invalid_output', `The embeddings model answers vectors of ${query.length} numbers, but stored ones have ${vector.length}.`, {
        suggestion: 'The model or QUARRY_EMBEDDINGS_DIMENSIONS changed under the same name: name the model differently, or leave the size as it was.',
      });
    }
    const score = dot(query, vector) / (queryNorm * norm(vector) || 1);
    chunks.set(chunk, score);
    const file = corpus.chunkFile[chunk];
    const best = files.get(file);
    if (best === undefined || score > best.score) files.set(file, { score, chunk });
  }
  return { chunks, files, embedded, reused };
}

/** A chunk as embedded: what it defines, then its lines. It does not name the path, so a blob's chunks embed once wherever the blob is. */
export function chunkText(corpus: ContextCorpus, chunk: number, lines: readonly string[]): string {
  const row = corpus.chunk(chunk);
  const name = row.symbol === undefined ? '' : `${row.kind ?? 'definition'} ${row.container ? `${row.container}.` : ''}${row.symbol}\n`;
  return `${name}${lines.slice(row.startLine - 1, row.endLine).join('\n')}`.slice(0, CHUNK_CHARS);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += a[index] * b[index];
  return sum;
}

function norm(vector: Float32Array): number {
  return Math.sqrt(dot(vector, vector));
}
