import { gunzipSync, gzipSync } from 'node:zlib';
import type { SymbolKind } from '../symbols/symbol-types';
import { CHUNK_RECORD_VERSION, type BlobChunks, type Chunk } from './blob-chunks';

type CompactChunk = [startLine: number, endLine: number, symbol: string | 0, kind: string | 0, container: string | 0, terms: string, names: number[]];
type CompactBlobChunks = [version: number, lines: number, chunks: CompactChunk[], literals: [line: number, fragments: string[]][], options: [string, number][]];

/**
 * The stored form: positional JSON (a chunk's terms as one `term term:3 …` string, counts of 1
 * left out; a literal's fragments as space-joined words), gzipped. It is what `BlobIndex.chunks`
 * holds and the `chunks` column of `blob_code_index` stores: kept encoded, decoded one blob at a
 * time by the retrieval corpus (a kernel tree's rows are ~270 MB so, several GB as objects).
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

/** The row, or undefined for a row of another chunking version. */
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
