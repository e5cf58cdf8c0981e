import { countLines } from '@quarry/workspace';
import { DEFAULT_MAX_SYMBOL_BYTES, type Definition, type SymbolKind } from '../symbols/symbol-types';
import { emitIdentifierTerms } from './code-terms';
import { scanStringLiterals, type StringLiteral } from './string-literals';

/**
 * What retrieval (@quarry/context) reads per blob: the blob cut into chunks at definition
 * boundaries, each with its term counts, and the string literals a task may quote. A pure function
 * of the blob's text and definitions, so `BlobIndexer.index` computes it with the rest of the
 * blob's index (the sharded scan's shards, once per blob id) and a commit's statistics are
 * assembled from these rows; nothing in it depends on the path or the commit.
 */
export interface BlobChunks {
  /**
   * Bumped when the chunking or the terms change, with `BLOB_INDEX_VERSION` (store/blob-index-store.ts)
   * so the scan derives every row anew; a row of another version is not decoded (the corpus chunks
   * that file from its text instead).
   */
  version: typeof CHUNK_RECORD_VERSION;
  lines: number;
  chunks: Chunk[];
  /** Messages in string literals (`raise ValueError("…")`), by line. */
  literals: StringLiteral[];
  /** Option names in string literals (`"--collect-only"`), lower-cased, with their lines. */
  options: [option: string, line: number][];
}

/** A contiguous range of lines at definition boundaries, with the terms in it. */
export interface Chunk {
  startLine: number;
  endLine: number;
  /** The definition the chunk is (a function, a method) or belongs to (a class's own lines). */
  symbol?: string;
  container?: string;
  kind?: SymbolKind;
  /** Distinct terms and their counts in the chunk's lines. */
  terms: [term: string, count: number][];
  /** Indexes into `terms` of the terms used as whole identifiers (not only as parts of longer ones): the names the chunk uses. */
  names: number[];
  /** Sum of the counts: the chunk's length for BM25. */
  length: number;
}

export const CHUNK_RECORD_VERSION = 1;

/** Lines of code outside any function are cut into windows of at most this many lines. */
const WINDOW_LINES = 60;
const LONG_DEFINITION = 150;
const PART_LINES = 80;
const FUNCTION_KINDS: ReadonlySet<SymbolKind> = new Set(['function', 'method', 'macro']);

export interface ChunkSource {
  text: string;
  definitions: readonly Definition[];
}

/** Character codes that may start an identifier (`[A-Za-z_]`: 1) or continue one (also `[0-9]`: 2). */
const IDENTIFIER_CHARS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  if (/[A-Za-z_]/.test(char)) IDENTIFIER_CHARS[code] = 1;
  else if (/[0-9]/.test(char)) IDENTIFIER_CHARS[code] = 2;
}

/**
 * Texts longer than this get a row with no chunks: generated tables (Linux's 24 MB register
 * headers) that the code index gives no symbols either, whose chunks would be noise to a question
 * and cost ~6 bytes of heap per byte to make (a worker with README's 192 MB heap ran out of it on
 * one). The row still says the file was chunked, so no query reads it.
 */
export const MAX_CHUNKED_CHARS = DEFAULT_MAX_SYMBOL_BYTES;

export function buildBlobChunks(source: ChunkSource): BlobChunks {
  const text = source.text;
  if (text.length > MAX_CHUNKED_CHARS) return { version: CHUNK_RECORD_VERSION, lines: countLines(text), chunks: [], literals: [], options: [] };
  const lines = splitLines(text);
  const ranges = chunkRanges(lines, source.definitions);
  // Where each line starts in the text: a chunk's identifiers are scanned in place, not in a copy
  // of its lines (a `\r` the lines drop, like the `\n` between them, ends an identifier either way).
  const lineStarts = new Int32Array(lines.length + 1);
  for (let line = 1, at = text.indexOf('\n'); line < lines.length; line++, at = text.indexOf('\n', at + 1)) lineStarts[line] = at + 1;
  lineStarts[lines.length] = text.length + 1;
  // Identifiers repeat within a file: each is split once into term ids of a per-blob dictionary,
  // and chunks count ids in a reused array.
  const dictionary: string[] = [];
  const termId = new Map<string, number>();
  const idsOf = new Map<string, number[]>(); // identifier → term ids, negative for whole-identifier uses (~id)
  let counts = new Int32Array(256);
  let wholeSeen = new Uint8Array(256);
  const chunks = ranges.map((range) => {
    const touched: number[] = [];
    let length = 0;
    const end = lineStarts[range.endLine] - 1;
    // The identifiers of `[A-Za-z_][A-Za-z0-9_]*`, left to right, as a regex search would find them.
    for (let at = lineStarts[range.startLine - 1]; at < end; ) {
      const code = text.charCodeAt(at);
      if (code >= 128 || IDENTIFIER_CHARS[code] !== 1) {
        at++;
        continue;
      }
      let stop = at + 1;
      while (stop < end) {
        const next = text.charCodeAt(stop);
        if (next >= 128 || IDENTIFIER_CHARS[next] === 0) break;
        stop++;
      }
      const identifier = text.slice(at, stop);
      at = stop;
      let ids = idsOf.get(identifier);
      if (ids === undefined) {
        const list: number[] = [];
        emitIdentifierTerms(identifier, (term, isWhole) => {
          let id = termId.get(term);
          if (id === undefined) {
            id = dictionary.length;
            dictionary.push(term);
            termId.set(term, id);
          }
          list.push(isWhole ? ~id : id);
        });
        idsOf.set(identifier, (ids = list));
      }
      for (const coded of ids) {
        const id = coded < 0 ? ~coded : coded;
        if (id >= counts.length) {
          counts = grow(counts, id);
          wholeSeen = grow(wholeSeen, id);
        }
        if (counts[id] === 0) touched.push(id);
        counts[id]++;
        if (coded < 0) wholeSeen[id] = 1;
        length++;
      }
    }
    const terms: [string, number][] = [];
    const names: number[] = [];
    for (const id of touched) {
      if (wholeSeen[id] === 1) names.push(terms.length);
      terms.push([dictionary[id], counts[id]]);
      counts[id] = 0;
      wholeSeen[id] = 0;
    }
    const chunk: Chunk = { startLine: range.startLine, endLine: range.endLine, terms, names, length };
    if (range.definition !== undefined) {
      chunk.symbol = range.definition.name;
      chunk.kind = range.definition.kind;
      if (range.definition.container !== undefined) chunk.container = range.definition.container;
    }
    return chunk;
  });
  const literals = scanStringLiterals(source.text);
  return { version: CHUNK_RECORD_VERSION, lines: lines.length, chunks, literals: literals.messages, options: literals.options };
}

function grow<T extends Int32Array | Uint8Array>(array: T, index: number): T {
  const grown = new (array.constructor as new (length: number) => T)(Math.max(index + 1, array.length * 2));
  grown.set(array);
  return grown;
}

interface ChunkRange {
  startLine: number;
  endLine: number;
  definition?: Definition;
}

/**
 * Chunks cover every non-blank line once: each function or method whole (with the functions
 * nested in it, its decorators and the comment right above it), the lines of a class that are
 * not its methods (its head and attributes) as chunks of that class, and the rest of the file
 * in windows. Chunks never overlap, so a span is one definition and a file's chunks add up to it.
 */
export function chunkRanges(lines: readonly string[], definitions: readonly Definition[]): ChunkRange[] {
  const lineCount = lines.length;
  if (lineCount === 0) return [];
  // owner[line] = index of the definition whose own line it is (innermost unit), or -1.
  const owner = new Int32Array(lineCount + 2).fill(-1);
  const sorted = definitions
    .map((definition, index) => ({ definition, index }))
    .filter(({ definition }) => definition.startLine >= 1 && definition.endLine >= definition.startLine && definition.startLine <= lineCount)
    .sort((a, b) => a.definition.startLine - b.definition.startLine || b.definition.endLine - a.definition.endLine);
  // Outer definitions first, inner ones overwrite — except that a function keeps its nested definitions.
  const functionOwner = new Int32Array(lineCount + 2).fill(-1);
  for (const { definition, index } of sorted) {
    const end = Math.min(definition.endLine, lineCount);
    const start = extendUpward(lines, definition.startLine, owner);
    if (functionOwner[definition.startLine] !== -1) continue; // inside a function: part of it
    const isFunction = FUNCTION_KINDS.has(definition.kind);
    if (!isFunction && definition.endLine === definition.startLine && definition.kind === 'constant') continue; // a one-line constant stays in its window
    for (let line = start; line <= end; line++) {
      owner[line] = index;
      if (isFunction) functionOwner[line] = index;
    }
  }

  const ranges: ChunkRange[] = [];
  let line = 1;
  while (line <= lineCount) {
    if (isBlank(lines[line - 1])) {
      line++;
      continue;
    }
    const current = owner[line];
    let end = line;
    const limit = current === -1 ? line + WINDOW_LINES - 1 : lineCount;
    while (end + 1 <= lineCount && end + 1 <= limit && owner[end + 1] === current) end++;
    // Windows of top-level code end at a blank line when one is near, so statements stay whole.
    if (current === -1 && end === limit && end < lineCount && owner[end + 1] === -1) {
      for (let back = end; back > line + WINDOW_LINES / 2; back--) {
        if (isBlank(lines[back - 1])) {
          end = back - 1;
          break;
        }
      }
    }
    while (end > line && isBlank(lines[end - 1])) end--;
    if (current === -1) ranges.push({ startLine: line, endLine: end });
    else for (const part of splitLong(lines, line, end)) ranges.push({ ...part, definition: definitions[current] });
    line = end + 1;
  }
  return ranges;
}

/**
 * A definition longer than LONG_DEFINITION lines (a 600-line function with its docstring) is cut
 * into parts of about PART_LINES, at blank lines where there are some: one span should be
 * readable, and a part that matches should not bring 600 lines into the context.
 */
function splitLong(lines: readonly string[], start: number, end: number): { startLine: number; endLine: number }[] {
  if (end - start + 1 <= LONG_DEFINITION) return [{ startLine: start, endLine: end }];
  const parts: { startLine: number; endLine: number }[] = [];
  let first = start;
  while (first <= end) {
    let last = Math.min(end, first + PART_LINES - 1);
    if (last < end && end - last < PART_LINES / 2) last = end; // no short tail
    else if (last < end) {
      for (let back = last; back > first + PART_LINES / 2; back--) {
        if (isBlank(lines[back - 1])) {
          last = back - 1;
          break;
        }
      }
    }
    while (last > first && isBlank(lines[last - 1])) last--;
    parts.push({ startLine: first, endLine: last });
    first = last + 1;
    while (first <= end && isBlank(lines[first - 1])) first++;
  }
  return parts;
}

/** Decorators and the comment block right above a definition belong to it. */
function extendUpward(lines: readonly string[], startLine: number, owner: Int32Array): number {
  let start = startLine;
  while (start > 1) {
    const previous = lines[start - 2].trim();
    if (owner[start - 1] !== -1 && owner[start - 1] !== owner[startLine]) break;
    if (previous.startsWith('@') || previous.startsWith('#[') || previous.startsWith('//') || previous.startsWith('/*') || previous.startsWith('*') || previous.startsWith('#') && !previous.startsWith('#include') && !previous.startsWith('#define')) {
      start--;
      continue;
    }
    break;
  }
  return start;
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** Lines as the code index counts them (a final newline ends the last line, it does not start one). */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}
