import { gunzipSync, gzipSync } from 'node:zlib';
import { QuarryError } from '@quarry/contracts';
import { SYMBOL_KINDS, SymbolKind } from '../symbols/symbol-types';
import { isTokenEncoding } from '../tokens/token-counter';
import type { BlobIndex } from './blob-index';

/**
 * The stored form of a `BlobIndex`: plain JSON (a Postgres `jsonb` column, or bytes), with
 * positional tuples instead of objects, line numbers relative to the name's line, and references
 * as one space-separated string (`name` or `name:count`; identifiers never contain either
 * separator). About 5× smaller than `JSON.stringify(index)`; see the README for bytes per MB.
 */
export interface CompactBlobIndex {
  /** Format version. */
  v: 1;
  e: string;
  t: number;
  b: number;
  n: number;
  x?: 1;
  g?: string;
  s: 0 | 1 | 2 | 3;
  /** [kind, name, line, line − startLine, endLine − line, signature, container?] */
  d: (string | number)[][];
  r: string;
  /** [kind, line, start, end] */
  k?: (string | number)[][];
  /** [kind, message] */
  w?: string[][];
}

const STATUSES = ['parsed', 'unsupported', 'failed', 'skipped'] as const;
const KIND_CODES: ReadonlyMap<SymbolKind, number> = new Map(SYMBOL_KINDS.map((kind, index) => [kind, index]));

export function toCompactBlobIndex(index: BlobIndex): CompactBlobIndex {
  const compact: CompactBlobIndex = {
    v: 1,
    e: index.encoding,
    t: index.tokens,
    b: index.bytes,
    n: index.lines,
    s: STATUSES.indexOf(index.symbols) as CompactBlobIndex['s'],
    d: index.definitions.map((d) => {
      const row: (string | number)[] = [KIND_CODES.get(d.kind)!, d.name, d.line, d.line - d.startLine, d.endLine - d.line, d.signature];
      if (d.container !== undefined) row.push(d.container);
      return row;
    }),
    r: index.references.map(([name, count]) => (count === 1 ? name : `${name}:${count}`)).join(' '),
  };
  if (index.binary) compact.x = 1;
  if (index.language !== undefined) compact.g = index.language;
  if (index.secrets.length > 0) compact.k = index.secrets.map((s) => [s.kind, s.line, s.start, s.end]);
  if (index.warnings.length > 0) compact.w = index.warnings.map((w) => [w.kind, w.message]);
  return compact;
}

export function fromCompactBlobIndex(compact: CompactBlobIndex): BlobIndex {
  if (compact === null || typeof compact !== 'object' || compact.v !== 1 || !isTokenEncoding(compact.e)) {
    throw new QuarryError('input_invalid', 'This is not a stored blob index of a version this Quarry reads.', {
      suggestion: 'Index the blob again; stored indexes are rebuilt when their format changes.',
    });
  }
  return {
    encoding: compact.e,
    tokens: compact.t,
    bytes: compact.b,
    lines: compact.n,
    binary: compact.x === 1,
    ...(compact.g === undefined ? {} : { language: compact.g }),
    symbols: STATUSES[compact.s],
    definitions: compact.d.map(([kind, name, line, before, after, signature, container]) => ({
      kind: SYMBOL_KINDS[kind as number],
      name: name as string,
      line: line as number,
      startLine: (line as number) - (before as number),
      endLine: (line as number) + (after as number),
      signature: signature as string,
      ...(container === undefined ? {} : { container: container as string }),
    })),
    references: compact.r === '' ? [] : compact.r.split(' ').map(parseReference),
    secrets: (compact.k ?? []).map(([kind, line, start, end]) => ({ kind: kind as string, line: line as number, start: start as number, end: end as number })),
    warnings: (compact.w ?? []).map(([kind, message]) => ({ kind: kind as 'grammar_failed' | 'too_large', message })),
  };
}

function parseReference(entry: string): [string, number] {
  const colon = entry.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(entry.slice(colon + 1))) return [entry.slice(0, colon), Number(entry.slice(colon + 1))];
  return [entry, 1];
}

/**
 * The compact form, gzipped: what a `bytea` column holds. Names and signatures repeat a lot, so
 * this is ~4× smaller than the JSON, and (de)compressing costs far less than indexing did.
 */
export function encodeBlobIndex(index: BlobIndex): Buffer {
  return gzipSync(JSON.stringify(toCompactBlobIndex(index)), { level: 6 });
}

export function decodeBlobIndex(bytes: Uint8Array): BlobIndex {
  let compact: CompactBlobIndex;
  try {
    compact = JSON.parse(gunzipSync(bytes).toString('utf8')) as CompactBlobIndex;
  } catch (error) {
    throw new QuarryError('input_invalid', 'These bytes are not a stored blob index.', { cause: error, suggestion: 'Index the blob again.' });
  }
  return fromCompactBlobIndex(compact);
}
