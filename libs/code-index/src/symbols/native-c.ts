import type { Language } from 'web-tree-sitter';
import { nativeAddon } from '../native';
import { FlatGrammar, FlatTree, RECORD_SIZE } from './flat-tree';

/**
 * The C grammar compiled natively (the `c_syntax` addon, ../native.ts): parse and flatten C in one
 * call, ~1.4× the WebAssembly build's parse and walk (docs/decisions.md). Without the addon C is
 * parsed with WebAssembly like every other language, with the same results.
 */
interface CSyntaxAddon {
  parse(text: string, ranges: Int32Array | null, timeoutMs: number): Int32Array | null;
  recordSize: number;
}

function addon(): CSyntaxAddon | null {
  const candidate = nativeAddon<CSyntaxAddon>('c_syntax');
  // A build of another record layout would misread every record: C then goes through WebAssembly.
  return candidate !== null && typeof candidate.parse === 'function' && candidate.recordSize === RECORD_SIZE ? candidate : null;
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
      let at = 0;
      for (const range of includedRanges) {
        ranges[at++] = range.startIndex;
        ranges[at++] = range.endIndex;
        ranges[at++] = range.startPosition.row;
        ranges[at++] = range.startPosition.column;
        ranges[at++] = range.endPosition.row;
        ranges[at++] = range.endPosition.column;
      }
    }
    const records = this.native.parse(text, ranges, timeoutMs);
    return records === null ? null : new FlatTree(records, text, this.grammar);
  }
}
