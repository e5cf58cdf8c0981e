import type { SymbolKind } from '../symbols/symbol-types';
import type { TokenEncoding } from '../tokens/token-counter';
import type { BlobIndex } from './blob-index';

/** What a summary needs of each file: its path and a few fields of its `BlobIndex`. */
export type SummarySource = { path: string } & Pick<BlobIndex, 'encoding' | 'tokens' | 'binary' | 'language' | 'symbols' | 'definitions' | 'warnings'>;

export interface CodeIndexSummary {
  tokens: {
    /** Sum over text files of each file's tokens (what the scan result calls `tokens.total`). */
    total: number;
    encoding: TokenEncoding;
    /** Largest first. Files of no known language count as "Other". */
    byLanguage: { language: string; files: number; tokens: number }[];
    /** Per top-level directory, largest first; files directly in the root count under ".". */
    byDirectory: { path: string; files: number; tokens: number }[];
  };
  symbols: {
    /** Definitions, all kinds. */
    definitions: number;
    byKind: Partial<Record<SymbolKind, number>>;
    /** Files whose language has a grammar, and how their parse went. */
    files: { parsed: number; failed: number; skipped: number };
    warnings: number;
  };
}

/**
 * The code index's part of a scan result, from the per-blob rows of a commit's files: totals per
 * language and directory, definitions per kind, counted warnings. Pure, and the same whichever
 * workers computed the rows.
 */
export function summarizeCodeIndex(files: Iterable<SummarySource>, encoding: TokenEncoding = 'o200k_base'): CodeIndexSummary {
  const languages = new Map<string, { language: string; files: number; tokens: number }>();
  const directories = new Map<string, { path: string; files: number; tokens: number }>();
  const byKind: Partial<Record<SymbolKind, number>> = {};
  const parse = { parsed: 0, failed: 0, skipped: 0 };
  let total = 0;
  let definitions = 0;
  let warnings = 0;
  for (const file of files) {
    if (file.encoding !== encoding) throw new Error(`summarizeCodeIndex: ${file.path} was counted in ${file.encoding}, not ${encoding}`);
    warnings += file.warnings.length;
    if (file.symbols !== 'unsupported') parse[file.symbols]++;
    for (const definition of file.definitions) byKind[definition.kind] = (byKind[definition.kind] ?? 0) + 1;
    definitions += file.definitions.length;
    if (file.binary) continue;
    total += file.tokens;
    const language = file.language ?? 'Other';
    const languageRow = languages.get(language) ?? languages.set(language, { language, files: 0, tokens: 0 }).get(language)!;
    languageRow.files++;
    languageRow.tokens += file.tokens;
    const slash = file.path.indexOf('/');
    const top = slash === -1 ? '.' : file.path.slice(0, slash);
    const directoryRow = directories.get(top) ?? directories.set(top, { path: top, files: 0, tokens: 0 }).get(top)!;
    directoryRow.files++;
    directoryRow.tokens += file.tokens;
  }
  const largestFirst = <T extends { tokens: number }>(rows: Iterable<T>, key: (row: T) => string) =>
    [...rows].sort((a, b) => b.tokens - a.tokens || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return {
    tokens: { total, encoding, byLanguage: largestFirst(languages.values(), (row) => row.language), byDirectory: largestFirst(directories.values(), (row) => row.path) },
    symbols: { definitions, byKind, files: parse, warnings },
  };
}
