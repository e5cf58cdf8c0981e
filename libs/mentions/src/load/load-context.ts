import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTEXT_DEFAULT_TOKENS, CONTEXT_TASK_MAX_BYTES, isQuarryError, QuarryError, type ContextResultBody } from '@quarry/contracts';
import { decodeText, sharedCodeIndexCache, tokenCounter, type CodeIndexCache, type IndexedTree } from '@quarry/code-index';
import { assembleContext, retrieveContext, sharedContextCorpusCache, type SpanToShow } from '@quarry/context';
import { DEFAULT_MAX_FILE_BYTES, FileCache, readWorkspaceFile } from '@quarry/workspace';
import type { ContextBlock } from '../augment';
import type { ContextMention, ParsedMention } from '../parse';

/** What an @codebase / @context: mention asks retrieval for. */
export interface ContextRetrievalRequest {
  task: string;
  /** Budget of the code, in o200k tokens. */
  tokens: number;
  /** Spans listed, best first. */
  limit: number;
}

/**
 * Task-aware retrieval as the process runs it: the context job's use case over the repository the
 * mentions read (a worker: the commit's code index, corpus and navigation graph).
 */
export type ContextRetriever = (request: ContextRetrievalRequest, signal?: AbortSignal) => Promise<ContextResultBody>;

/** What loading a context mention needs of the loader's options. */
export interface ContextLoadOptions {
  root: string;
  fileCache: FileCache;
  allowSecrets?: boolean;
  maxFileBytes?: number;
  signal?: AbortSignal;
  /** Absent: retrieval runs here over `tree()`, with the process's corpus cache. */
  retrieveContext?: ContextRetriever;
  /** Tokens each context mention's code may take (expandMentions derives it from the byte budget). */
  contextTokens?: number;
  /** @codebase's task: the prompt without its context mentions. */
  promptTask?: string;
}

export interface LoadedContext {
  block: Extract<ContextBlock, { kind: 'context' }>;
  /** Spans whose code is in the block (whole or cut). */
  spans: number;
  redactions: number;
}

/** Spans asked of retrieval per mention: more than a budget of code ever holds, so the budget decides. */
const SPANS_LISTED = 60;

/**
 * The code retrieval ranks for the mention's task — the quoted one, or the prompt itself for
 * @codebase — assembled within `contextTokens`, best first. The spans are read again through the
 * workspace's safe reader, as every mention's files are: secret files stay closed and credentials
 * are redacted, whatever the retriever read.
 */
export async function loadContext(mention: ContextMention, options: ContextLoadOptions, tree: () => Promise<IndexedTree>): Promise<LoadedContext> {
  const task = mention.task ?? checkedPromptTask(options.promptTask ?? '');
  const tokens = options.contextTokens ?? CONTEXT_DEFAULT_TOKENS;
  const retrieve = options.retrieveContext ?? localRetriever(options, tree);
  const result = await retrieve({ task, tokens, limit: SPANS_LISTED }, options.signal);

  const redactionsByRange: { path: string; start: number; end: number }[] = [];
  const readText = async (relative: string) => {
    try {
      return (await readWorkspaceFile(options.root, relative, { maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, allowSecrets: options.allowSecrets, cache: options.fileCache })).text;
    } catch (error) {
      // A file the reader refuses (a secret, too large, gone since it was indexed) shows nothing; the others still do.
      if (isQuarryError(error)) return '';
      throw error;
    }
  };
  const spans: SpanToShow[] = result.spans.map(({ path: spanPath, startLine, endLine, symbol, kind, container }) => ({ path: spanPath, startLine, endLine, symbol, kind, container }));
  const assembled = await assembleContext(spans, tokens, tokenCounter('o200k_base'), readText);
  const shown = spans.filter((_, index) => assembled.included[index] !== 'omitted');
  assembled.included.forEach((state, index) => {
    if (state === 'omitted') return;
    const span = spans[index];
    redactionsByRange.push({ path: span.path, start: span.startLine, end: state === 'cut' && assembled.cutAt !== undefined ? assembled.cutAt : span.endLine });
  });
  const redactions = await countRedactions(redactionsByRange, options);
  const block: LoadedContext['block'] = {
    kind: 'context',
    task,
    fromPrompt: mention.task === undefined,
    text: assembled.text,
    spans: shown.length,
    files: new Set(shown.map((span) => span.path)).size,
    tokens: assembled.tokens,
    ...(result.commit ? { commit: result.commit } : {}),
    warnings: result.warnings,
    ...(redactions ? { redactions } : {}),
  };
  return { block, spans: shown.length, redactions };
}

/**
 * @codebase's task is the prompt: empty once the mentions are taken out ("@codebase" alone) it
 * asks nothing; over retrieval's cap it is a document, and a quoted task says what is wanted.
 */
function checkedPromptTask(task: string): string {
  if (task.trim() === '') {
    throw new QuarryError('task_empty', '@codebase ranks the code for the prompt, and the prompt says nothing besides its mentions.', {
      suggestion: 'Write the question next to it, e.g. "@codebase where is rate limiting handled?", or quote one: @context:"…"',
    });
  }
  const bytes = Buffer.byteLength(task);
  if (bytes > CONTEXT_TASK_MAX_BYTES) {
    throw new QuarryError('task_too_large', `@codebase ranks the code for the prompt, which is ${bytes.toLocaleString('en-US')} bytes; retrieval reads at most ${CONTEXT_TASK_MAX_BYTES.toLocaleString('en-US')} (64 KiB).`, {
      suggestion: 'Quote what the code should answer instead: @context:"the question, the error message, the names"',
    });
  }
  return task;
}

/**
 * @codebase's task: the prompt with the context mentions themselves taken out (the other
 * mentions stay: a path or a name in them is evidence too).
 */
export function promptTaskOf(prompt: string, mentions: readonly ParsedMention[]): string {
  let task = '';
  let cursor = 0;
  for (const mention of mentions) {
    if (mention.kind !== 'context') continue;
    task += prompt.slice(cursor, mention.span[0]);
    cursor = mention.span[1];
  }
  return (task + prompt.slice(cursor)).replace(/[ \t]{2,}/g, ' ').trim();
}

/** Retrieval in this process over the root's indexed tree (the code index cache's, shared with @symbol:). */
function localRetriever(options: ContextLoadOptions, tree: () => Promise<IndexedTree>): ContextRetriever {
  return async (request, signal) => {
    const indexed = await tree();
    const read = (relative: string) => readFile(path.join(options.root, relative)).catch(() => undefined);
    const corpus = await sharedContextCorpusCache().corpus(indexed, read, { signal });
    return retrieveContext(corpus, request, { readText: async (relative) => decodeText((await read(relative)) ?? Buffer.alloc(0)) });
  };
}

/** The credentials redacted in the lines shown, per range (the reader keeps which lines it redacted). */
async function countRedactions(ranges: readonly { path: string; start: number; end: number }[], options: ContextLoadOptions): Promise<number> {
  let total = 0;
  for (const range of ranges) {
    const file = await readWorkspaceFile(options.root, range.path, {
      maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      allowSecrets: options.allowSecrets,
      cache: options.fileCache,
      range: { start: range.start, end: range.end },
    }).catch(() => undefined);
    total += file?.redactions ?? 0;
  }
  return total;
}

/** The code index of `root` as a local directory (no caller-provided tree). */
export function localTree(root: string, codeIndex: CodeIndexCache | undefined, signal?: AbortSignal): Promise<IndexedTree> {
  return (codeIndex ?? sharedCodeIndexCache()).tree(root, { signal });
}
