import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { JobInput, JobProgress, JobResult } from '@quarry/contracts';
import { QuarryError } from '@quarry/contracts';
import { BINARY_SNIFF_BYTES, isBinaryContent, languageOf, redactSecrets } from '@quarry/workspace';
import { decodeText, type BlobIndex } from '../index/blob-index';
import { parseSymbolQuery } from '../lookup/symbol-table';
import { buildRepoMap } from '../map/repo-map';
import { compilePathFilter } from '../pack/path-filter';
import { TokenTotalsBuilder, writePackReporting, type PackTreeResult } from '../pack/pack-report';
import { streamSink, type PackSink } from '../pack/sinks';
import type { PackFile } from '../pack/write-pack';
import { validateCodeIndexInput } from '../validate-input';
import type { IndexedFile, IndexedTree } from '../index/indexed-tree';
import type { Definition } from '../symbols/symbol-types';
import { DEFAULT_TOKEN_ENCODING, type TokenEncoding } from '../tokens/token-counter';
import { listLocalTree, type TreeEntry } from './local-tree';
import type { CodeIndexCache } from './tree-index';

type SymbolsInput = Omit<JobInput<'symbols'>, 'root' | 'source'>;
type MapInput = Omit<JobInput<'map'>, 'root' | 'source'>;
type PackInput = Omit<JobInput<'pack'>, 'root' | 'source'>;


/**
 * `quarry symbols`: the ranked definitions of one name (`@symbol:`'s lookup), or every definition
 * in the files a glob selects, in path and line order.
 */
export function findSymbols(tree: IndexedTree, input: SymbolsInput): JobResult<'symbols'> {
  const test = input.path === undefined ? undefined : compilePathFilter({ include: [input.path] });
  const limit = input.limit ?? 1000;
  let rows: (Definition & { path: string; references?: number })[];
  if (input.name !== undefined) {
    const matches = tree.symbolTable().lookup(input.name, { limit: Number.MAX_SAFE_INTEGER });
    const kept = test === undefined ? matches : matches.filter((match) => test(match.path));
    if (kept.length === 0) {
      throw new QuarryError('symbol_not_found', `"${input.name}" is defined only outside ${input.path}.`, {
        suggestion: `It is defined in ${[...new Set(matches.map((match) => match.path))].slice(0, 5).join(', ')}; widen or drop the path filter.`,
      });
    }
    const withSecrets = new Set(tree.files.filter((file) => file.index.secrets.length > 0).map((file) => file.path));
    rows = kept.map((match) => ({ path: match.path, ...(withSecrets.has(match.path) ? redactSignature(match.definition) : match.definition), references: match.references }));
  } else {
    rows = [];
    for (const file of tree.files) {
      if (test !== undefined && !test(file.path)) continue;
      for (const definition of definitionsWithoutSecrets(file)) rows.push({ path: file.path, ...definition });
    }
  }
  const files = new Set(rows.map((row) => row.path)).size;
  return { definitions: rows.slice(0, limit).map(definitionRow), total: rows.length, truncated: rows.length > limit, files };
}

/**
 * A file's definitions with credentials redacted from their signatures: a constant's signature is
 * its whole line (`token = "ghp_…"`), and the map and the symbol list must not carry it out.
 */
function definitionsWithoutSecrets(file: IndexedFile): readonly Definition[] {
  return file.index.secrets.length === 0 ? file.index.definitions : file.index.definitions.map(redactSignature);
}

function redactSignature(definition: Definition): Definition {
  const redacted = redactSecrets(definition.signature);
  return redacted.redactions === 0 ? definition : { ...definition, signature: redacted.text };
}

function definitionRow(row: Definition & { path: string; references?: number }): JobResult<'symbols'>['definitions'][number] {
  return {
    path: row.path,
    name: row.name,
    kind: row.kind,
    line: row.line,
    startLine: row.startLine,
    endLine: row.endLine,
    signature: row.signature,
    ...(row.container === undefined ? {} : { container: row.container }),
    ...(row.references === undefined ? {} : { references: row.references }),
  };
}

/**
 * `quarry map`: the ranked repo map within the budget. Each focus entry that names a file of the
 * tree (`src/app.ts`, `./src/app.ts`) personalises toward that file; any other is a symbol name.
 */
export function mapTree(tree: IndexedTree, input: MapInput): JobResult<'map'> {
  const encoding = (input.encoding ?? DEFAULT_TOKEN_ENCODING) as TokenEncoding;
  const paths = new Set(tree.files.map((file) => file.path));
  const focusPaths: string[] = [];
  const focusSymbols: string[] = [];
  for (const entry of input.focus ?? []) {
    const normalized = entry.replace(/^\.\//, '').replace(/\/+$/, '');
    if (paths.has(normalized)) focusPaths.push(normalized);
    else focusSymbols.push(parseSymbolQuery(entry).name);
  }
  const map = buildRepoMap(
    tree.files.map((file) => ({ path: file.path, definitions: definitionsWithoutSecrets(file), references: file.index.references })),
    { maxTokens: input.tokens ?? 2048, focusPaths, focusSymbols, encoding },
  );
  const totals = new TokenTotalsBuilder(tree.files[0]?.index.encoding ?? DEFAULT_TOKEN_ENCODING);
  for (const file of tree.files) if (!file.index.binary) totals.add(file.path, file.index.language, file.index.tokens);
  return {
    text: map.text,
    tokens: map.tokens,
    encoding,
    files: map.files.map((file) => ({ path: file.path, rank: file.rank, definitions: file.definitions.length })),
    totalFiles: map.totalFiles,
    totalDefinitions: map.totalDefinitions,
    focus: { paths: focusPaths, symbols: focusSymbols },
    repository: totals.result(),
  };
}

export interface PackTreeOptions {
  /** Its indexer's parser does `compress`. */
  cache: CodeIndexCache;
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
  /** The repository's name in the document's heading. */
  title?: string;
}


/**
 * `quarry pack`: the tree under `root` as one document written to `sink`, file by file (memory
 * holds the file list and a few files being read, never the document). Credentials are redacted
 * as each file is written; files named like credentials (`.env`, keys) are left out whole.
 */
export async function packTree(root: string, input: PackInput, sink: PackSink, options: PackTreeOptions): Promise<PackTreeResult> {
  validateCodeIndexInput('pack', input as Record<string, unknown>);
  const listing = await listLocalTree(root, { signal: options.signal });
  const files = await packFilesOf(listing.entries, (entry) => options.cache.known(root, entry), options.signal);
  const encoding = (input.encoding ?? DEFAULT_TOKEN_ENCODING) as TokenEncoding;
  const symbols = input.compress ? (await options.cache.blobIndexer()).symbols : undefined;
  return writePackReporting(files, sink, input, { encoding, symbols, title: options.title, signal: options.signal, onProgress: options.onProgress, progressTotal: files.length, secretFiles: listing.secretFiles });
}

/**
 * Pack's view of the tree: each file with its size, language and whether it is binary (git's rule:
 * a NUL in the first 8,000 bytes). A file the code index already holds at this version brings its
 * tokens and credential findings, so the pack neither counts nor searches it again.
 */
async function packFilesOf(entries: readonly TreeEntry[], known: (entry: TreeEntry) => BlobIndex | undefined, signal?: AbortSignal): Promise<PackFile[]> {
  const files: PackFile[] = new Array(entries.length);
  let next = 0;
  const probe = async () => {
    while (next < entries.length) {
      const index = next++;
      if (index % 1024 === 0) signal?.throwIfAborted();
      const entry = entries[index];
      const read = async () => decodeText(await entry.read());
      const indexed = known(entry);
      if (indexed !== undefined) {
        files[index] = { path: entry.path, language: languageOf(entry.path), bytes: entry.bytes, binary: indexed.binary, tokens: indexed.tokens, encoding: indexed.encoding, secrets: indexed.secrets, read };
        continue;
      }
      let binary = false;
      try {
        binary = entry.bytes > 0 && isBinaryContent(await entry.head(BINARY_SNIFF_BYTES));
      } catch {
        binary = true; // unreadable now: nothing to pack
      }
      files[index] = { path: entry.path, language: languageOf(entry.path), bytes: entry.bytes, binary, read };
    }
  };
  await Promise.all(Array.from({ length: 32 }, probe));
  return files;
}

const PACK_ARTIFACTS: Record<string, { extension: string; contentType: string }> = {
  xml: { extension: 'xml', contentType: 'application/xml; charset=utf-8' },
  markdown: { extension: 'md', contentType: 'text/markdown; charset=utf-8' },
  plain: { extension: 'txt', contentType: 'text/plain; charset=utf-8' },
};

/** The file name of a pack job's document in the artifact directory (`<job id>.xml`). */
export function packArtifactName(id: string, style: string): string {
  return `${id}.${(PACK_ARTIFACTS[style] ?? PACK_ARTIFACTS.xml).extension}`;
}

/** An artifact name as `packArtifactName` makes them, so a stored name can never point outside the directory. */
export function isPackArtifactName(name: string): boolean {
  // A job id (a UUID), or the id `quarry mcp` gives an in-process pack (`pack-<time>-<random>`).
  return /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|pack-[a-z0-9]+-[a-z0-9]+)\.(xml|md|txt)$/.test(name);
}

export function packContentType(name: string): string {
  const extension = name.slice(name.lastIndexOf('.') + 1);
  return Object.values(PACK_ARTIFACTS).find((entry) => entry.extension === extension)?.contentType ?? 'application/octet-stream';
}

/**
 * Packs to a file: written under a temporary name and renamed when complete, so a reader never
 * sees half a document, and a failed or cancelled pack leaves nothing behind.
 */
export async function packToFile(root: string, input: PackInput, file: string, options: PackTreeOptions): Promise<JobResult<'pack'>> {
  return packToFileWith(file, (sink) => packTree(root, input, sink, options));
}

/** `packToFile` for any pack writer (a local tree's, a snapshot's): temporary name, rename when complete. */
export async function packToFileWith(file: string, pack: (sink: PackSink) => Promise<PackTreeResult>): Promise<JobResult<'pack'>> {
  const started = performance.now();
  await mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  const sink = streamSink(createWriteStream(partial));
  try {
    const result = await pack(sink);
    await sink.end();
    await rename(partial, file);
    const name = path.basename(file);
    return { ...result, artifact: { name, bytes: (await stat(file)).size, contentType: packContentType(name) }, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    await sink.end().catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  }
}

/**
 * Removes pack documents (and abandoned `.partial` files) older than `maxAgeMs` from the artifact
 * directory; returns how many. Only names `packArtifactName` makes are touched.
 */
export async function pruneArtifacts(directory: string, maxAgeMs: number, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return 0; // no directory yet: nothing to prune
  }
  let removed = 0;
  for (const name of names) {
    if (!isPackArtifactName(name.replace(/\.partial$/, ''))) continue;
    const file = path.join(directory, name);
    const stats = await stat(file).catch(() => undefined);
    if (stats?.isFile() && now - stats.mtimeMs > maxAgeMs) {
      await rm(file, { force: true });
      removed++;
    }
  }
  return removed;
}
