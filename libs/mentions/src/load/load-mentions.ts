import { formatBytes } from '@quarry/contracts/format';
import { createHash } from 'node:crypto';
import { isQuarryError, QuarryError, type JobProgress } from '@quarry/contracts';
import { formatMatches, searchWorkspace, type SearchFunction } from '@quarry/search';
import {
  DEFAULT_MAX_FILE_BYTES, FileCache, listDirectory, readWorkspaceFile, redactSecrets, resolveInsideRoot, type DirectoryListing, type ResolvedPath,
} from '@quarry/workspace';
import type { CodeIndexCache, IndexedTree } from '@quarry/code-index';
import type { NavigationIndex } from '@quarry/code-graph';
import { describeSymbol, formatAlternatives, formatReferencesByFile } from '@quarry/render';
import type { ContextBlock, MentionOutcome, SymbolDefinitionBlock } from '../augment';
import type { GrepMention, ParsedMention, PathMention, ReferencesMention, SearchMention, SymbolMention, UrlMention } from '../parse';
import { loadContext, localTree, promptTaskOf, type ContextRetriever } from './load-context';

/** What a URL mention needs back from whoever fetches it (the fetch job, or SafeFetcher in-process). */
export interface FetchedPage {
  url: string;
  finalUrl: string;
  title?: string;
  text: string;
}
export type UrlFetcher = (url: string, signal?: AbortSignal) => Promise<FetchedPage>;

export interface LoadOptions {
  /** The workspace root, already resolved inside the allowed roots (resolveWorkspaceRoot). */
  root: string;
  /** A per-worker cache of whole files (keyed by real path, size and mtime); one is made per call otherwise. */
  fileCache?: FileCache;
  /** Let `.env`, keys and `.ssh/` through (the operator's choice; contents are still redacted). */
  allowSecrets?: boolean;
  maxFileBytes?: number;
  /** Budget of each @search/@grep (default 10 s): past it the partial result is used, and said so. */
  searchTimeoutMs?: number;
  /** How @search and @grep search `root` (default: searchWorkspace, every file read); a commit's index when it has one. */
  search?: SearchFunction;
  /** Fetches @url mentions; absent → they fail as unavailable. */
  fetchUrl?: UrlFetcher;
  /** URL mentions loaded per prompt; the rest fail with a reason (default 10). */
  maxUrls?: number;
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
  /**
   * The code index @symbol: mentions look names up in: a per-worker cache, so a tree is indexed
   * once per state, not per mention (default: one per process).
   */
  codeIndex?: CodeIndexCache;
  /**
   * The indexed tree of the repository `root` holds (a worker: the snapshot's commit, from the
   * per-blob rows the scan stored); absent → `codeIndex` indexes `root` as a local directory.
   */
  symbolIndex?: () => Promise<IndexedTree>;
  /**
   * The navigation index (the resolved definition/reference graph) of that tree, for @refs: — a
   * process's, kept for the next prompt on the same commit; absent → built for the prompt.
   */
  navigationIndex?: (tree: IndexedTree) => Promise<NavigationIndex>;
  /** The prompt the mentions are in: @codebase ranks the code for it. */
  prompt?: string;
  /** How @codebase and @context: retrieve (the context job's use case on this repository); absent: in this process over the code index. */
  retrieveContext?: ContextRetriever;
  /** Tokens of code each @codebase / @context: mention may take (default 8,000; expandMentions fits it to the byte budget). */
  contextTokens?: number;
}

export interface LoadedMention {
  outcome: MentionOutcome;
  /** What the mention resolved to: a path mention is a file or a directory once loaded. */
  kind: 'file' | 'directory' | 'search' | 'grep' | 'url' | 'symbol' | 'refs' | 'context';
  /** SHA-256 of what was loaded for it (the file's text, or the range's lines). */
  sha256?: string;
  /** Matches found by a search or grep, all counted (the block shows at most 50). */
  matches?: number;
  /** @search/@grep: files the search did not look into (binary, over the size cap, unreadable) and whether it ran out of time. */
  searchCoverage?: SearchCoverage;
  /** Credentials redacted in what was loaded for it. */
  redactions?: number;
  /** Definitions a @symbol: mention matched. */
  definitions?: number;
  /** Uses a @refs: mention found. */
  references?: number;
  /** Ranked spans whose code an @codebase / @context: mention shows. */
  spans?: number;
}

/** What a search left out; reported with the mention, never silent. */
export interface SearchCoverage {
  filesSearched: number;
  binary: number;
  tooLarge: number;
  unreadable: number;
  timedOut: boolean;
  /** Answered from the commit's trigram index. */
  indexed?: boolean;
}

export const DEFAULT_MAX_URLS = 10;
const DIRECTORY_DEPTH = 2;
const DIRECTORY_ENTRIES = 200;
/** Files and searches load a few at a time: enough to overlap I/O, few enough to keep memory flat. */
const LOAD_CONCURRENCY = 4;

/**
 * Loads every mention, in parallel where it helps, and never throws for a mention's own failure:
 * a missing file, a refused URL or a bad regex becomes a `failed` outcome with a typed error and
 * a suggestion, and the others still load. Only the caller's abort rejects.
 */
export async function loadMentions(mentions: readonly ParsedMention[], options: LoadOptions): Promise<LoadedMention[]> {
  const context: LoadContext = {
    ...options,
    fileCache: options.fileCache ?? new FileCache(),
    urlsLeft: options.maxUrls ?? DEFAULT_MAX_URLS,
    ...(mentions.some((mention) => mention.kind === 'context') ? { promptTask: promptTaskOf(options.prompt ?? '', mentions) } : {}),
  };
  const results: LoadedMention[] = new Array(mentions.length);
  let done = 0;
  const report = (message: string) => options.onProgress?.({ stage: 'loading', done, total: mentions.length, message });
  report('parsed');
  let next = 0;
  const worker = async () => {
    while (next < mentions.length) {
      const index = next++;
      options.signal?.throwIfAborted();
      results[index] = await loadOne(mentions[index], context);
      done++;
      report(mentions[index].raw);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, mentions.length) }, worker));
  return results;
}

interface LoadContext extends LoadOptions {
  fileCache: FileCache;
  urlsLeft: number;
  /** The tree's code index, built (or found in the cache) once for all the prompt's @symbol:, @refs: and @codebase mentions. */
  symbolTree?: Promise<IndexedTree>;
  /** The tree's navigation index, once for all the prompt's @refs: mentions. */
  navigation?: Promise<NavigationIndex>;
  /** @codebase's task: the prompt without its context mentions. */
  promptTask?: string;
}

/** The tree's code index: the caller's (a snapshot's rows), or the root indexed as a directory; once per prompt. */
function indexedTreeOf(context: LoadContext): Promise<IndexedTree> {
  return (context.symbolTree ??= context.symbolIndex ? context.symbolIndex() : localTree(context.root, context.codeIndex, context.signal));
}

async function loadOne(mention: ParsedMention, context: LoadContext): Promise<LoadedMention> {
  const fallbackKind = mention.kind === 'path' ? (mention.directory ? 'directory' : 'file') : mention.kind;
  try {
    switch (mention.kind) {
      case 'path':
        return await loadPath(mention, context);
      case 'search':
      case 'grep':
        return await loadSearch(mention, context);
      case 'url':
        return await loadUrl(mention, context);
      case 'symbol':
        return await loadSymbol(mention, context);
      case 'refs':
        return await loadReferences(mention, context);
      case 'context': {
        const loaded = await loadContext(mention, context, () => indexedTreeOf(context));
        return { kind: 'context', sha256: sha256(loaded.block.text), spans: loaded.spans, ...(loaded.redactions ? { redactions: loaded.redactions } : {}), outcome: { status: 'loaded', block: loaded.block } };
      }
    }
  } catch (error) {
    if (context.signal?.aborted) throw context.signal.reason;
    if (!isQuarryError(error)) throw error;
    return { kind: fallbackKind, outcome: { status: 'failed', error: error.toBody() } };
  }
}

// ── paths ──────────────────────────────────────────────────────────────────────────────────────

async function loadPath(mention: PathMention, context: LoadContext): Promise<LoadedMention> {
  const resolved = await resolveCandidate(mention, context);
  if (!resolved) return { kind: 'file', outcome: { status: 'ignored' } };
  if (resolved.type === 'directory') return loadDirectory(resolved, context);
  return loadFile(mention, resolved, context);
}

/**
 * Tries the spellings the parser offers (`notes.md.` before `notes.md`); the last one's error is
 * the one reported. A bare word (`@alice`) that is no file is plain text: ignored, not an error.
 */
async function resolveCandidate(mention: PathMention, context: LoadContext): Promise<ResolvedPath | undefined> {
  const candidates = mention.candidates.length ? mention.candidates : [mention.path];
  for (const [index, candidate] of candidates.entries()) {
    try {
      return await resolveInsideRoot(context.root, candidate, { allowSecrets: context.allowSecrets });
    } catch (error) {
      const last = index === candidates.length - 1;
      if (!isQuarryError(error) || error.kind !== 'file_not_found') throw error;
      if (!last) continue;
      if (mention.bare) return undefined;
      throw error;
    }
  }
  return undefined;
}

async function loadFile(mention: PathMention, resolved: ResolvedPath, context: LoadContext): Promise<LoadedMention> {
  const read = (range?: PathMention['range']) =>
    readWorkspaceFile(context.root, resolved.relative, {
      maxBytes: context.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      allowSecrets: context.allowSecrets,
      cache: context.fileCache,
      range,
    });
  // The range first: it is what was asked for, and it says what is wrong with it (past the end…).
  const requested = mention.range ? await read(mention.range) : undefined;
  const whole = await readWholeOrRange(read, requested);
  const file = requested ?? whole;
  const block: ContextBlock = { kind: 'file', path: resolved.relative, text: whole.text, ...(file.language ? { language: file.language.toLowerCase() } : {}), redactions: file.redactions };
  return { kind: 'file', sha256: file.sha256, redactions: file.redactions, outcome: { status: 'loaded', block } };
}

/**
 * The augmenter selects a mention's lines from the whole text. A file over the size cap is only
 * ever read as its requested range, so the range's lines are placed at their own line numbers
 * behind empty lines: the block shows exactly them, numbered as in the file.
 */
async function readWholeOrRange(
  read: (range?: PathMention['range']) => ReturnType<typeof readWorkspaceFile>,
  requested: Awaited<ReturnType<typeof readWorkspaceFile>> | undefined,
) {
  try {
    return await read();
  } catch (error) {
    if (!requested?.range || !isQuarryError(error) || error.kind !== 'file_too_large') throw error;
    return { ...requested, text: '\n'.repeat(requested.range.start - 1) + requested.text };
  }
}

async function loadDirectory(resolved: ResolvedPath, context: LoadContext): Promise<LoadedMention> {
  const listing = await listDirectory(context.root, resolved.relative, {
    maxEntries: DIRECTORY_ENTRIES,
    maxDepth: DIRECTORY_DEPTH,
    allowSecrets: context.allowSecrets,
    signal: context.signal,
  });
  const text = formatListing(listing);
  return {
    kind: 'directory',
    sha256: sha256(text),
    outcome: { status: 'loaded', block: { kind: 'directory', path: `${resolved.relative || '.'}/`, listing: text, entries: listing.entries.length, truncated: listing.truncated } },
  };
}

/** One entry per line, indented by depth, directories with a slash, files with their size. */
export function formatListing(listing: DirectoryListing): string {
  const base = listing.path ? `${listing.path}/` : '';
  const lines = listing.entries.map((entry) => {
    const relative = entry.path.startsWith(base) ? entry.path.slice(base.length) : entry.path;
    const depth = relative.split('/').length - 1;
    const name = relative.split('/').pop() as string;
    return `${'  '.repeat(depth)}${name}${entry.type === 'directory' ? '/' : entry.size === undefined ? '' : `  (${formatBytes(entry.size)})`}`;
  });
  if (listing.truncated) lines.push(`… ${listing.totalEntries - listing.entries.length} more entries not listed`);
  return lines.join('\n');
}

// ── search and grep ────────────────────────────────────────────────────────────────────────────

async function loadSearch(mention: SearchMention | GrepMention, context: LoadContext): Promise<LoadedMention> {
  const pattern = mention.kind === 'search' ? mention.query : mention.pattern;
  const result: Awaited<ReturnType<SearchFunction>> = await (context.search ?? searchWorkspace)({
    root: context.root,
    mode: mention.kind === 'search' ? 'literal' : 'regex',
    pattern,
    // @search is smart-case, as `rg -S`: "todo" finds TODO, "Todo" only Todo. @grep is case-sensitive, (?i) folds.
    caseSensitivity: mention.kind === 'search' ? 'smart' : 'sensitive',
    timeoutMs: context.searchTimeoutMs,
    signal: context.signal,
  });
  let body = result.totalMatches === 0 ? `No matches in ${result.filesSearched} files.` : formatMatches(result);
  const left = leftOut(result.skipped);
  if (left) body += `\n(not searched: ${left})`;
  if (result.timedOut) body += `\n(the search stopped at its time budget after ${result.filesSearched} files: counts are partial)`;
  return {
    kind: mention.kind,
    sha256: sha256(body),
    matches: result.totalMatches,
    searchCoverage: { filesSearched: result.filesSearched, ...result.skipped, timedOut: result.timedOut, ...(result.indexed ? { indexed: true } : {}) },
    outcome: { status: 'loaded', block: { kind: mention.kind, pattern, body, matches: result.totalMatches, shown: result.matches.length } },
  };
}

/** "2 binary files, 1 file over the size cap", or '' when nothing was left out. */
function leftOut(skipped: { binary: number; tooLarge: number; unreadable: number }): string {
  const files = (count: number) => `${count} file${count === 1 ? '' : 's'}`;
  return [
    skipped.binary ? `${files(skipped.binary)} binary` : '',
    skipped.tooLarge ? `${files(skipped.tooLarge)} over the size cap` : '',
    skipped.unreadable ? `${files(skipped.unreadable)} unreadable` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

// ── symbols ──────────────────────────────────────────────────────────────────────────────────

/** Definitions shown with their code; the other matches are listed by place. */
export const SYMBOL_DEFINITIONS_SHOWN = 5;
/** Matches looked up per @symbol: mention. */
const SYMBOL_MATCHES = 20;

/**
 * The definitions of the name, ranked by the symbol table (exact case first, then the most used
 * names), the best few loaded with their code through the same reader as files (so secrets are
 * redacted and credential files stay closed). No match → `symbol_not_found` with the closest
 * defined names.
 */
async function loadSymbol(mention: SymbolMention, context: LoadContext): Promise<LoadedMention> {
  const tree = await indexedTreeOf(context);
  const matches = tree.symbolTable().lookup(mention.symbol, { limit: SYMBOL_MATCHES });
  const definitions: SymbolDefinitionBlock[] = [];
  for (const match of matches.slice(0, SYMBOL_DEFINITIONS_SHOWN)) {
    const { definition } = match;
    const file = await readWorkspaceFile(context.root, match.path, {
      maxBytes: context.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      allowSecrets: context.allowSecrets,
      cache: context.fileCache,
      range: { start: definition.startLine, end: definition.endLine },
    });
    definitions.push({
      path: match.path,
      kind: definition.kind,
      name: definition.name,
      ...(definition.container === undefined ? {} : { container: definition.container }),
      startLine: definition.startLine,
      endLine: definition.endLine,
      references: match.references,
      text: file.text,
      ...(file.language ? { language: file.language.toLowerCase() } : {}),
      ...(file.redactions ? { redactions: file.redactions } : {}),
    });
  }
  // A constant's signature is its whole line: credentials in it are redacted like file contents.
  const others = matches
    .slice(SYMBOL_DEFINITIONS_SHOWN)
    .map((match) => ({ path: match.path, line: match.definition.line, kind: match.definition.kind, signature: redactSecrets(match.definition.signature).text }));
  const redactions = definitions.reduce((sum, definition) => sum + (definition.redactions ?? 0), 0);
  return {
    kind: 'symbol',
    sha256: sha256(definitions.map((definition) => `${definition.path}:${definition.startLine}\n${definition.text}`).join('\n')),
    definitions: matches.length,
    ...(redactions ? { redactions } : {}),
    outcome: { status: 'loaded', block: { kind: 'symbol', symbol: mention.symbol, total: matches.length, definitions, others } },
  };
}

// ── references ───────────────────────────────────────────────────────────────────────────────

/** Uses listed per @refs: mention; all are counted. */
export const REFERENCES_SHOWN = 200;

/**
 * The uses of a definition, grouped by file with each line's text, from the tree's navigation
 * index (names resolved through imports, as `quarry refs` resolves them). The lines are read
 * through the same reader as files, so secrets are redacted and credential files show no text.
 * A name defined nowhere fails as @symbol: fails, with the closest defined names.
 */
async function loadReferences(mention: ReferencesMention, context: LoadContext): Promise<LoadedMention> {
  const tree = await indexedTreeOf(context);
  if (!mention.place) {
    try {
      tree.symbolTable().lookup(mention.target, { limit: 1 });
    } catch (error) {
      if (!isQuarryError(error)) throw error;
      // Its suggestions are written as @symbol: mentions; the user is writing @refs:.
      const reword = (text: string) => text.replaceAll('@symbol:', '@refs:');
      throw new QuarryError(error.kind, reword(error.message), { suggestion: error.suggestion && reword(error.suggestion) });
    }
  }
  // The navigation library is large: loaded for a prompt that asks for uses, not for every prompt.
  const { createNavigationIndex, references } = await import('@quarry/code-graph');
  const shownText = async (path: string) => {
    try {
      return (await readWorkspaceFile(context.root, path, { maxBytes: context.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, allowSecrets: context.allowSecrets, cache: context.fileCache })).text;
    } catch (error) {
      if (isQuarryError(error)) return undefined; // refused (a credential file) or gone: the use is listed without its text
      throw error;
    }
  };
  context.navigation ??= context.navigationIndex ? context.navigationIndex(tree) : createNavigationIndex(tree.files, shownText);
  const index = { ...(await context.navigation), read: shownText };
  const result = await references(index, mention.target, { limit: REFERENCES_SHOWN });
  const uses = result.references.length > 0 ? formatReferencesByFile(result.references) : 'No uses in the repository.';
  const body = [uses, ...formatAlternatives(result)].join('\n');
  return {
    kind: 'refs',
    sha256: sha256(body),
    references: result.total,
    outcome: {
      status: 'loaded',
      block: { kind: 'refs', target: mention.target, definition: describeSymbol(result.symbol), total: result.total, files: result.files, shown: result.references.length, body },
    },
  };
}

// ── urls ───────────────────────────────────────────────────────────────────────────────────────

async function loadUrl(mention: UrlMention, context: LoadContext): Promise<LoadedMention> {
  if (!context.fetchUrl) {
    throw new QuarryError('unavailable', 'URL mentions cannot be loaded here: no fetcher is configured.', { suggestion: 'Run the mentions job on a Quarry server, or paste the page text into the prompt.' });
  }
  if (context.urlsLeft <= 0) {
    throw new QuarryError('input_invalid', `At most ${context.maxUrls ?? DEFAULT_MAX_URLS} URL mentions are loaded per prompt; this one was skipped.`, {
      suggestion: 'Split the prompt, or mention only the pages that matter.',
    });
  }
  context.urlsLeft--;
  const page = await context.fetchUrl(mention.url, context.signal);
  return {
    kind: 'url',
    sha256: sha256(page.text),
    outcome: { status: 'loaded', block: { kind: 'url', url: page.url, finalUrl: page.finalUrl, ...(page.title ? { title: page.title } : {}), text: page.text } },
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
