import { countLines, findSecrets, isBinaryContent, languageOf } from '@quarry/workspace';
import { DEFAULT_TOKEN_ENCODING, TokenEncoding, tokenCounter } from '../tokens/token-counter';
import { SymbolExtractor, SymbolExtractorOptions } from '../symbols/symbol-extractor';
import type { ImportEntry } from '../symbols/imports';
import { packOccurrences } from '../symbols/occurrences';
import type { Definition, IndexWarning } from '../symbols/symbol-types';
import { buildBlobChunks } from '../chunks/blob-chunks';
import { encodeBlobChunks } from '../chunks/blob-chunks-codec';

/** A credential found in a blob: what `pack` and mentions redact. Offsets are UTF-16, end exclusive. */
export interface BlobSecret {
  kind: string;
  /** 1-based line where it starts. */
  line: number;
  start: number;
  end: number;
}

/**
 * Everything the code index knows about one blob (one file content, whatever its path or commit).
 * It depends only on the content, the path's extension and the language, so it is computed once
 * per blob id and reused by every commit that has the blob.
 */
export interface BlobIndex {
  encoding: TokenEncoding;
  /** Tokens of the whole text (0 for binary content). */
  tokens: number;
  bytes: number;
  lines: number;
  binary: boolean;
  language?: string;
  /** `parsed` (the grammar ran), `unsupported` (no grammar: no symbols, not an error), `failed`/`skipped` (see warnings). */
  symbols: 'parsed' | 'unsupported' | 'failed' | 'skipped';
  definitions: Definition[];
  /** Names used (not defined) in the blob, with counts, sorted by name. */
  references: [name: string, count: number][];
  /** Where each referenced name is used, in `references`' order (packed: see symbols/occurrences.ts). */
  occurrences: string;
  /** Import, re-export, include and `use` statements, as written. */
  imports: ImportEntry[];
  /** The package a Go or Java file declares. */
  package?: string;
  secrets: BlobSecret[];
  warnings: IndexWarning[];
  /**
   * Retrieval's chunk row of the text (`buildBlobChunks`), encoded (`encodeBlobChunks`): kept as
   * bytes because a whole tree's indexes may be held at once and the decoded chunks of a kernel
   * are several GB; the corpus decodes one blob's at a time. Absent for binary content, for rows
   * loaded without it (stores hand it over only on `loadChunks`) and for indexes made elsewhere.
   */
  chunks?: Uint8Array;
}

export interface BlobInput {
  /** Root-relative POSIX path: its extension picks TypeScript or TSX. */
  path: string;
  /** Quarry's language name (`languageOf` in @quarry/workspace); undefined or unknown → no symbols. */
  language?: string;
  content: string | Uint8Array;
}

export interface BlobIndexerOptions extends SymbolExtractorOptions {
  encoding?: TokenEncoding;
}

const decoder = new TextDecoder('utf-8');

/**
 * Indexes blobs: `await BlobIndexer.create()` once per process or worker thread (it loads the
 * grammars and the tokenizer), then `index(input)` is a pure, synchronous function of its input.
 */
export class BlobIndexer {
  readonly encoding: TokenEncoding;
  private readonly countTokens: (text: string) => number;

  private constructor(
    private readonly extractor: SymbolExtractor,
    encoding: TokenEncoding,
    private readonly withChunks = true,
  ) {
    this.encoding = encoding;
    this.countTokens = tokenCounter(encoding);
  }

  static async create(options: BlobIndexerOptions = {}): Promise<BlobIndexer> {
    return new BlobIndexer(await SymbolExtractor.create(options), options.encoding ?? DEFAULT_TOKEN_ENCODING);
  }

  /**
   * The same indexer (grammars and tokenizer shared) leaving the chunk row out: for a scan whose
   * rows nobody will ask a question of (`quarry scan --local`, whose rows end with the process),
   * where chunking would add ~40% to the CPU of a C tree and its bytes to the peak memory.
   */
  withoutChunks(): BlobIndexer {
    return this.withChunks ? new BlobIndexer(this.extractor, this.encoding, false) : this;
  }

  /** The symbol extractor this indexer uses (for `compress` in pack). */
  get symbols(): SymbolExtractor {
    return this.extractor;
  }

  index(input: BlobInput): BlobIndex {
    const bytes = typeof input.content === 'string' ? Buffer.byteLength(input.content) : input.content.byteLength;
    if (typeof input.content !== 'string' && isBinaryContent(input.content)) {
      return { encoding: this.encoding, tokens: 0, bytes, lines: 0, binary: true, language: input.language, symbols: 'unsupported', definitions: [], references: [], occurrences: '', imports: [], secrets: [], warnings: [] };
    }
    const text = typeof input.content === 'string' ? stripBom(input.content) : decodeText(input.content);
    const symbols = this.extractor.extract(input.path, input.language, text);
    // By name in UTF-16 code unit order: the default sort's, without a comparator called per pair.
    const references = [...symbols.references.keys()].sort().map((name): [string, number] => [name, symbols.references.get(name)!]);
    const index: BlobIndex = {
      encoding: this.encoding,
      tokens: this.countTokens(text),
      bytes,
      lines: symbols.lineStarts.length > 0 ? linesFromStarts(text, symbols.lineStarts) : countLines(text),
      binary: false,
      language: input.language,
      symbols: symbols.status,
      definitions: symbols.definitions,
      references,
      occurrences: packOccurrences(symbols.occurrences, references.map(([name]) => name), text, symbols.lineStarts),
      imports: symbols.imports,
      secrets: secretsOf(text),
      warnings: symbols.warnings,
    };
    if (symbols.package !== undefined) index.package = symbols.package;
    // From the text and definitions at hand, so a context query on an indexed tree reads no file.
    if (this.withChunks) index.chunks = encodeBlobChunks(buildBlobChunks({ text, definitions: symbols.definitions }));
    return index;
  }
}

/** UTF-8 (invalid sequences become U+FFFD), without a byte-order mark: the text an LLM is given. */
export function decodeText(content: Uint8Array): string {
  return stripBom(decoder.decode(content));
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}


/** `countLines`' count from the line starts the extractor found (every newline's), without reading the text again. */
function linesFromStarts(text: string, lineStarts: readonly number[]): number {
  if (text.length === 0) return 0;
  const newlines = lineStarts.length - 1;
  return text.charCodeAt(text.length - 1) === 10 ? newlines : newlines + 1;
}

function secretsOf(text: string): BlobSecret[] {
  const findings = findSecrets(text);
  if (findings.length === 0) return [];
  const secrets: BlobSecret[] = [];
  let line = 1;
  let cursor = 0;
  for (const finding of findings) {
    for (let index = text.indexOf('\n', cursor); index !== -1 && index < finding.start; index = text.indexOf('\n', index + 1)) line++;
    cursor = finding.start;
    secrets.push({ kind: finding.kind, line, start: finding.start, end: finding.end });
  }
  return secrets;
}

/** The per-file index: a pure function of the path (its language) and the content. */
export function indexBlob(indexer: BlobIndexer, filePath: string, content: Uint8Array): BlobIndex {
  return indexer.index({ path: filePath, language: languageOf(filePath), content });
}
