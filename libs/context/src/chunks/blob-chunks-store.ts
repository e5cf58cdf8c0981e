import { gunzipSync, gzipSync } from 'node:zlib';
import { blobIndexKey, type BlobIndexKey, type SymbolKind } from '@quarry/code-index';
import { CHUNK_RECORD_VERSION, type BlobChunks, type Chunk } from './blob-chunks';

/**
 * Where chunk rows live, keyed like the code index's rows: blob id + `indexVariant(path)` (the
 * language decides the definitions, so the chunks). The scan's shards will write them beside the
 * `BlobIndex` rows (Postgres); `MemoryBlobChunksStore` serves a process of its own (`--local`,
 * the evaluation). Maps are keyed by `blobIndexKey(blob, variant)`.
 */
export interface BlobChunksStore {
  /** The rows known, decoded; rows of another chunking version count as missing. */
  load(keys: readonly BlobIndexKey[]): Promise<Map<string, BlobChunks>>;
  /** Insert-or-keep: a row is a function of its key. Resolves to how many rows were new. */
  record(rows: readonly StoredBlobChunks[]): Promise<number>;
}

export interface StoredBlobChunks extends BlobIndexKey {
  chunks: BlobChunks;
}

type CompactChunk = [startLine: number, endLine: number, symbol: string | 0, kind: string | 0, container: string | 0, terms: string, names: number[]];
type CompactBlobChunks = [version: number, lines: number, chunks: CompactChunk[], literals: [line: number, fragments: string[]][], options: [string, number][]];

/**
 * The stored form: positional JSON (a chunk's terms as one `term term:3 …` string, counts of 1
 * left out; a literal's fragments as space-joined words), gzipped, for a `bytea` column.
 */
export function encodeBlobChunks(chunks: BlobChunks): Buffer {
  const compact: CompactBlobChunks = [
    chunks.version,
    chunks.lines,
    chunks.chunks.map((chunk) => [
      chunk.startLine,
      chunk.endLine,
      chunk.symbol ?? 0,
      chunk.kind ?? 0,
      chunk.container ?? 0,
      chunk.terms.map(([term, count]) => (count === 1 ? term : `${term}:${count}`)).join(' '),
      chunk.names,
    ]),
    chunks.literals.map((literal) => [literal.line, literal.fragments.map((words) => words.join(' '))]),
    chunks.options,
  ];
  return gzipSync(JSON.stringify(compact));
}

export function decodeBlobChunks(data: Uint8Array): BlobChunks | undefined {
  const [version, lines, chunks, literals, options] = JSON.parse(gunzipSync(data).toString('utf8')) as CompactBlobChunks;
  if (version !== CHUNK_RECORD_VERSION) return undefined;
  return {
    version: CHUNK_RECORD_VERSION,
    lines,
    chunks: chunks.map(([startLine, endLine, symbol, kind, container, terms, names]) => {
      let length = 0;
      const parsed: [string, number][] = terms === '' ? [] : terms.split(' ').map((entry) => {
        const colon = entry.lastIndexOf(':');
        const count = colon === -1 ? 1 : Number(entry.slice(colon + 1));
        length += count;
        return [colon === -1 ? entry : entry.slice(0, colon), count];
      });
      const chunk: Chunk = { startLine, endLine, terms: parsed, names, length };
      if (symbol !== 0) chunk.symbol = symbol;
      if (kind !== 0) chunk.kind = kind as SymbolKind;
      if (container !== 0) chunk.container = container;
      return chunk;
    }),
    literals: literals.map(([line, fragments]) => ({ line, fragments: fragments.map((words) => words.split(' ')) })),
    options,
  };
}

/** The rows of one process, kept encoded as Postgres would hold them. */
export class MemoryBlobChunksStore implements BlobChunksStore {
  private readonly rows = new Map<string, Buffer>();

  get size(): number {
    return this.rows.size;
  }

  /** Bytes of the encoded rows held. */
  get bytes(): number {
    let total = 0;
    for (const row of this.rows.values()) total += row.byteLength;
    return total;
  }

  async load(keys: readonly BlobIndexKey[]): Promise<Map<string, BlobChunks>> {
    const found = new Map<string, BlobChunks>();
    for (const key of keys) {
      const name = blobIndexKey(key.blob, key.variant);
      const row = this.rows.get(name);
      const decoded = row === undefined ? undefined : decodeBlobChunks(row);
      if (decoded !== undefined) found.set(name, decoded);
    }
    return found;
  }

  async record(rows: readonly StoredBlobChunks[]): Promise<number> {
    let added = 0;
    for (const row of rows) {
      const name = blobIndexKey(row.blob, row.variant);
      if (this.rows.has(name)) continue;
      this.rows.set(name, encodeBlobChunks(row.chunks));
      added++;
    }
    return added;
  }
}
