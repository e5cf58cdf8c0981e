import fs from 'node:fs';
import path from 'node:path';
import type { Language } from 'web-tree-sitter';
import { FlatGrammar, FlatTree, RECORD_SIZE } from './flat-tree';

/**
 * The C grammar compiled natively (libs/code-index/native, built by `npm run build`): parse and
 * flatten C in one call, ~1.45× the WebAssembly build's parse and walk (docs/decisions.md). When
 * the addon is not built (sources run by ts-jest before a build) or `QUARRY_NATIVE_C=0`, C is
 * parsed with WebAssembly like every other language, with the same results.
 */
interface CSyntaxAddon {
  parse(text: string, ranges: Int32Array | null, timeoutMs: number): Int32Array | null;
  recordSize: number;
}

const ADDON = 'c_syntax.node';
/** The addon as node-gyp builds it, seen from this file in the sources and in dist/. */
const CANDIDATES = [path.resolve(__dirname, '..', '..', 'native', 'build', 'Release', ADDON), path.resolve(__dirname, '..', '..', '..', '..', '..', 'libs', 'code-index', 'native', 'build', 'Release', ADDON)];

let loaded: CSyntaxAddon | null | undefined;

function addon(): CSyntaxAddon | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  // The same spellings as the configuration's flags (libs/config validates the variable at start).
  if (['0', 'false', 'no'].includes(process.env.QUARRY_NATIVE_C ?? '')) return loaded;
  const file = CANDIDATES.find((candidate) => fs.existsSync(candidate));
  if (file === undefined) return loaded;
  // A build of another layout would misread every record: refused, C then goes through WebAssembly.
  const candidate = require(file) as CSyntaxAddon;
  if (typeof candidate.parse === 'function' && candidate.recordSize === RECORD_SIZE) loaded = candidate;
  return loaded;
}

/** Whether the native C parser is built and enabled in this process. */
export function nativeCAvailable(): boolean {
  return addon() !== null;
}

/** One included range, as web-tree-sitter's `Range` gives it (code units). */
interface IncludedRange {
  startIndex: number;
  endIndex: number;
  startPosition: { row: number; column: number };
  endPosition: { row: number; column: number };
}

/** Parses C natively; the grammar's names come from the WebAssembly build of the same grammar. */
export class NativeCParser {
  private constructor(
    private readonly native: CSyntaxAddon,
    private readonly grammar: FlatGrammar,
  ) {}

  /** Undefined when the addon is not available. */
  static for(language: Language): NativeCParser | undefined {
    const native = addon();
    if (native === null) return undefined;
    const fields = language.fields;
    const fieldIds = new Map<string, number>();
    fields.forEach((name, id) => {
      if (name !== null && !fieldIds.has(name)) fieldIds.set(name, id);
    });
    return new NativeCParser(native, { types: language.types, fields, fieldIds });
  }

  /** The tree, or null when the parse ran past `timeoutMs`. Throws when the addon refuses its input. */
  parse(text: string, timeoutMs: number, includedRanges?: readonly IncludedRange[]): FlatTree | null {
    let ranges: Int32Array | null = null;
    if (includedRanges !== undefined) {
      ranges = new Int32Array(includedRanges.length * 6);
      includedRanges.forEach((range, index) => {
        ranges!.set([range.startIndex, range.endIndex, range.startPosition.row, range.startPosition.column, range.endPosition.row, range.endPosition.column], index * 6);
      });
    }
    const records = this.native.parse(text, ranges, timeoutMs);
    return records === null ? null : new FlatTree(records, text, this.grammar);
  }
}
