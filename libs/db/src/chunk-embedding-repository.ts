import type { ChunkEmbeddingStore } from '@quarry/context';
import type { Pool } from 'pg';

/** Keys looked up per statement (an array parameter); vectors written per statement (rows carry a few KB each). */
const LOOKUP_SLICE = 10_000;
const WRITE_SLICE = 500;

/**
 * Chunk vectors in Postgres (`chunk_embeddings`), shared by every worker and commit: a question
 * loads the vectors of its candidate chunks, embeds only the missing ones and writes them
 * insert-or-keep (two workers embedding the same chunk write the same row; the first stays).
 */
export class ChunkEmbeddingRepository implements ChunkEmbeddingStore {
  constructor(private readonly pool: Pool) {}

  async load(model: string, keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    for (let start = 0; start < keys.length; start += LOOKUP_SLICE) {
      const slice = keys.slice(start, start + LOOKUP_SLICE);
      const { rows } = await this.pool.query<{ key: string; vector: Buffer }>('SELECT key, vector FROM chunk_embeddings WHERE model = $1 AND key = ANY($2::text[])', [model, slice]);
      for (const row of rows) found.set(row.key, decodeVector(row.vector));
    }
    return found;
  }

  async record(model: string, entries: readonly { key: string; vector: Float32Array }[]): Promise<void> {
    for (let start = 0; start < entries.length; start += WRITE_SLICE) {
      const slice = entries.slice(start, start + WRITE_SLICE);
      await this.pool.query(
        `INSERT INTO chunk_embeddings (model, key, dimensions, vector)
         SELECT $1, * FROM unnest($2::text[], $3::int[], $4::bytea[])
         ON CONFLICT (model, key) DO NOTHING`,
        [model, slice.map((entry) => entry.key), slice.map((entry) => entry.vector.length), slice.map((entry) => encodeVector(entry.vector))],
      );
    }
  }
}

/** A vector as stored: little-endian float32s. */
export function encodeVector(vector: Float32Array): Buffer {
  const buffer = Buffer.alloc(vector.length * 4);
  for (let index = 0; index < vector.length; index++) buffer.writeFloatLE(vector[index], index * 4);
  return buffer;
}

export function decodeVector(buffer: Uint8Array): Float32Array {
  const view = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const vector = new Float32Array(view.byteLength / 4);
  for (let index = 0; index < vector.length; index++) vector[index] = view.readFloatLE(index * 4);
  return vector;
}
