import { QuarryError } from '@quarry/contracts';
import { applySecretRedactions, redactSecrets } from '@quarry/workspace';
import { validateBudget } from '../map/repo-map';
import type { SymbolExtractor } from '../symbols/symbol-extractor';
import { DEFAULT_TOKEN_ENCODING, TokenEncoding, tokenCounter } from '../tokens/token-counter';
import { buildDirectoryTree } from './directory-tree';
import { PackLayout, PackStyle, PackSummary, packLayout } from './pack-styles';
import { compilePathFilter, validatePatterns } from './path-filter';
import type { PackSink } from './sinks';

/** One file to pack: its path, what its `BlobIndex` says, and a way to read its text. */
export interface PackFile {
  path: string;
  language?: string;
  /** Tokens of the text as indexed, in `encoding`; reused when the text goes out unchanged. */
  tokens?: number;
  encoding?: TokenEncoding;
  binary?: boolean;
  /** Size of the blob, when known (the index has it): bounds how much is read ahead. */
  bytes?: number;
  /**
   * Credentials found when the blob was indexed (offsets into the text `read` returns). Undefined
   * means not known: the text is searched for them as it is packed.
   */
  secrets?: readonly { kind: string; start: number; end: number }[];
  /** The decoded text (UTF-8, no byte-order mark), as the blob was indexed. */
  read(): Promise<string>;
}

export interface PackOptions {
  style?: PackStyle | string;
  include?: readonly string[];
  ignore?: readonly string[];
  /** Keep signatures, drop function bodies (needs `symbols`). */
  compress?: boolean;
  /** Files are taken in order while their tokens fit; the rest are listed as omitted. */
  maxTokens?: number;
  encoding?: TokenEncoding;
  /** The repository's name in the heading. */
  title?: string;
  symbols?: SymbolExtractor;
  /** Files read ahead of the one being written (reads may be slow: a git object store, a network). */
  readAhead?: number;
  /**
   * …and at most this many bytes of them (by `PackFile.bytes`), so a run of 20 MB generated headers
   * is not held eight at a time. One file is always read, whatever its size.
   */
  readAheadBytes?: number;
  /** Stop between files when this is aborted. */
  signal?: AbortSignal;
  /** Called after each file is written, with its tokens as written (for totals per language and directory). */
  onFile?: (file: { path: string; language?: string; tokens: number }) => void;
}

export interface PackResult {
  style: PackStyle;
  files: number;
  /** Sum of the packed files' tokens (each file's text as written). */
  tokens: number;
  /** UTF-8 bytes written to the sink. */
  bytes: number;
  redactions: number;
  compressed: number;
  omitted: number;
  skipped: { binary: number; filtered: number };
}

/** A budget larger than any model's context by far: refused as a mistake. */
export const MAX_PACK_TOKENS = 1_000_000_000;
const DEFAULT_READ_AHEAD = 8;
const DEFAULT_READ_AHEAD_BYTES = 8 * 1024 * 1024;

/**
 * Writes a repository (or the files the globs select) as one LLM-ready document to a sink, file
 * by file: memory holds the file list and a few files being read, never the document, so the
 * Linux tree packs in bounded memory. The directory tree comes first, then each file with its
 * token count, then the totals. Credentials are redacted (from the findings stored with the
 * blob); `compress` keeps signatures and drops bodies using the parse.
 */
export async function writePack(files: readonly PackFile[], sink: PackSink, options: PackOptions = {}): Promise<PackResult> {
  const style = (options.style ?? 'xml') as PackStyle;
  const layout = packLayout(style);
  if (options.maxTokens !== undefined) validateBudget(options.maxTokens, MAX_PACK_TOKENS);
  const test = compilePathFilter({ include: validatePatterns(options.include, 'include'), ignore: validatePatterns(options.ignore, 'ignore') });
  if (options.compress && options.symbols === undefined) throw new QuarryError('internal', 'writePack: compress needs a SymbolExtractor (options.symbols).');
  const encoding = options.encoding ?? DEFAULT_TOKEN_ENCODING;
  const countTokens = tokenCounter(encoding);

  const skipped = { binary: 0, filtered: 0 };
  const selected = new Map<string, PackFile>();
  // The globs first: a file they leave out is never looked at (a snapshot need not read it to know
  // it is binary), so `binary` counts the selected files that are binary.
  for (const file of files) {
    if (!test(file.path)) skipped.filtered++;
    else if (file.binary) skipped.binary++;
    else selected.set(file.path, file);
  }
  const tree = buildDirectoryTree(selected.keys());
  const ordered = tree.paths.map((path) => selected.get(path)!);

  const prepare = async (file: PackFile) => {
    const prepared = prepareText(file, await file.read(), layout, options, encoding);
    return { ...prepared, tokens: prepared.tokens ?? countTokens(prepared.text) };
  };

  // With a budget, the files that fit must be known before the tree is written: a first pass
  // counts each file's tokens as it will be written (the index's count when the text goes out
  // unchanged; otherwise the transformed text is made and counted, then made again when written).
  let included = ordered;
  const omitted: { path: string; tokens: number }[] = [];
  if (options.maxTokens !== undefined) {
    included = [];
    let budget = options.maxTokens;
    for await (const { file, prepared } of readAhead(ordered, options, (file) => (canReuseCount(file, options, encoding) ? Promise.resolve({ tokens: file.tokens! }) : prepare(file)))) {
      if (prepared.tokens <= budget) {
        included.push(file);
        budget -= prepared.tokens;
      } else {
        omitted.push({ path: file.path, tokens: prepared.tokens });
      }
    }
  }

  let bytes = 0;
  const write = async (chunk: string) => {
    if (chunk.length === 0) return;
    bytes += Buffer.byteLength(chunk);
    await sink.write(chunk);
  };
  const includedPaths = options.maxTokens === undefined ? undefined : new Set(included.map((file) => file.path));
  await write(layout.begin({ title: options.title ?? 'repository', encoding, compressed: options.compress === true }));
  await write(layout.treeBegin());
  let treeChunk = '';
  for (const line of (includedPaths === undefined ? tree : buildDirectoryTree(includedPaths)).lines()) {
    treeChunk += layout.treeLine(line);
    if (treeChunk.length >= 64 * 1024) {
      await write(treeChunk);
      treeChunk = '';
    }
  }
  await write(treeChunk);
  await write(layout.treeEnd());

  let tokens = 0;
  const stats = { redactions: 0, compressed: 0 };
  for await (const { file, prepared } of readAhead(included, options, prepare)) {
    const heading = { path: file.path, language: file.language, tokens: prepared.tokens };
    await write(layout.fileBegin(heading, prepared.text));
    await write(layout.fileText(prepared.text));
    await write(layout.fileEnd(heading, prepared.text));
    tokens += prepared.tokens;
    options.onFile?.(heading);
    stats.redactions += prepared.redactions;
    if (prepared.compressed) stats.compressed++;
  }
  const summary: PackSummary = { files: included.length, tokens, encoding, redactions: stats.redactions, compressed: stats.compressed, omitted };
  await write(layout.end(summary));
  return { style, files: included.length, tokens, bytes, redactions: stats.redactions, compressed: stats.compressed, omitted: omitted.length, skipped };
}

interface PreparedText {
  text: string;
  /** Known without counting when the text is exactly what was indexed. */
  tokens?: number;
  redactions: number;
  compressed: boolean;
}

/** The index's token count holds when nothing will change the text: no secrets, no compress, same encoding. */
function canReuseCount(file: PackFile, options: PackOptions, encoding: TokenEncoding): boolean {
  return file.tokens !== undefined && (file.encoding ?? DEFAULT_TOKEN_ENCODING) === encoding && !options.compress && file.secrets?.length === 0;
}

function prepareText(file: PackFile, original: string, layout: PackLayout, options: PackOptions, encoding: TokenEncoding): PreparedText {
  let text = original;
  let redactions = 0;
  const secrets = file.secrets;
  if (secrets === undefined || secrets.length > 0) {
    // Stored findings are offsets into the indexed text; unknown ones, or ones that do not fit
    // this text, are found again.
    const fits = secrets !== undefined && secrets.every((secret) => secret.end <= text.length);
    const redaction = fits ? applySecretRedactions(text, secrets) : redactSecrets(text);
    text = redaction.text;
    redactions = redaction.redactions;
  }
  let compressed = false;
  if (options.compress) {
    const result = options.symbols!.compress(file.path, file.language, text);
    if (result !== undefined && result.elidedBodies > 0) {
      text = result.text;
      compressed = true;
    }
  }
  const carried = layout.carry(text);
  const unchanged = carried === original && redactions === 0 && !compressed;
  return { text: carried, tokens: unchanged && canReuseCount(file, options, encoding) ? file.tokens : undefined, redactions, compressed };
}

/**
 * Runs `work` on up to `readAhead` files (and `readAheadBytes` of them) at once and yields the
 * results in order: reads overlap with writing, and memory stays bounded by the window.
 */
async function* readAhead<T>(files: readonly PackFile[], options: PackOptions, work: (file: PackFile) => Promise<T>): AsyncGenerator<{ file: PackFile; prepared: T }> {
  const depth = Math.max(1, options.readAhead ?? DEFAULT_READ_AHEAD);
  const maxBytes = options.readAheadBytes ?? DEFAULT_READ_AHEAD_BYTES;
  const pending: Promise<T>[] = [];
  let pendingBytes = 0;
  let next = 0;
  const fill = () => {
    while (next < files.length && pending.length < depth && (pending.length === 0 || pendingBytes + (files[next].bytes ?? 0) <= maxBytes)) {
      pendingBytes += files[next].bytes ?? 0;
      const promise = work(files[next++]);
      promise.catch(() => undefined); // observed when its turn comes; never an unhandled rejection
      pending.push(promise);
    }
  };
  for (let index = 0; index < files.length; index++) {
    if (options.signal?.aborted) throw new QuarryError('job_cancelled', 'The pack was cancelled.', { permanent: true });
    fill();
    const prepared = await pending.shift()!;
    pendingBytes -= files[index].bytes ?? 0;
    yield { file: files[index], prepared };
  }
}
