import { formatBytes } from '@quarry/contracts/format';
import type { z } from 'zod';
import { CONTEXT_DEFAULT_TOKENS, type mentionsResultSchema } from '@quarry/contracts';
import { augmentPrompt, DEFAULT_MAX_BYTES } from './augment';
import { loadMentions, type LoadedMention, type LoadOptions } from './load/load-mentions';
import { parseMentions, type MentionSyntaxError, type ParsedMention } from './parse';

export type MentionsResult = z.infer<typeof mentionsResultSchema>;
type MentionEntry = MentionsResult['mentions'][number];

export interface ExpandRequest {
  prompt: string;
  /** UTF-8 bytes of the whole augmented prompt (default 200 KB). */
  maxBytes?: number;
}

/**
 * The mentions job as a function: parse the prompt, load every mention, build the augmented
 * prompt within the budget, and account for each mention (loaded, failed with a fix, ignored).
 * Syntax errors are reported like failed mentions, in text order, so nothing typed is dropped.
 */
export async function expandMentions(request: ExpandRequest, options: LoadOptions): Promise<MentionsResult> {
  const parsed = parseMentions(request.prompt);
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_BYTES;
  const contextTokens = options.contextTokens ?? contextTokensFor(request.prompt, parsed.mentions, maxBytes);
  const loaded = await loadMentions(parsed.mentions, { ...options, prompt: request.prompt, ...(contextTokens === undefined ? {} : { contextTokens }) });
  const augmented = augmentPrompt({
    prompt: request.prompt,
    mentions: parsed.mentions,
    outcomes: loaded.map((entry) => entry.outcome),
    syntaxErrors: parsed.errors,
    maxBytes,
  });

  const entries = parsed.mentions.map((mention, index) => entryFor(mention, loaded[index], augmented.perMention[index]));
  const all = [...entries, ...parsed.errors.map(syntaxEntry)].sort((a, b) => a.span[0] - b.span[0]);
  return {
    augmentedPrompt: augmented.augmentedPrompt,
    mentions: all,
    errors: all.filter((entry) => entry.error).map((entry) => ({ source: entry.raw, ...(entry.error as NonNullable<MentionEntry['error']>) })),
    coverage: {
      files: new Set(loaded.flatMap((entry) => (entry.outcome.status === 'loaded' && entry.outcome.block.kind === 'file' ? [entry.outcome.block.path] : []))).size,
      lines: sum(entries.filter((entry) => entry.kind === 'file' && entry.status === 'loaded').map((entry) => entry.lines ?? 0)),
      searches: loaded.filter((entry) => (entry.kind === 'search' || entry.kind === 'grep') && entry.outcome.status === 'loaded').length,
      matches: sum(loaded.map((entry) => entry.matches ?? 0)),
      urls: loaded.filter((entry) => entry.kind === 'url' && entry.outcome.status === 'loaded').length,
      symbols: loaded.filter((entry) => entry.kind === 'symbol' && entry.outcome.status === 'loaded').length,
      references: loaded.filter((entry) => entry.kind === 'refs' && entry.outcome.status === 'loaded').length,
      ...(loaded.some((entry) => entry.kind === 'context') ? { contexts: loaded.filter((entry) => entry.kind === 'context' && entry.outcome.status === 'loaded').length } : {}),
      bytes: augmented.bytes,
      estimatedTokens: augmented.estimatedTokens,
      redactions: sum(loaded.map((entry) => entry.redactions ?? 0)),
      ...searchCoverage(loaded),
      cut: augmented.cut,
    },
  };
}

function entryFor(mention: ParsedMention, loaded: LoadedMention, contribution: { bytes: number; lines: number }): MentionEntry {
  const base = { kind: loaded.kind, raw: mention.raw, span: mention.span };
  const { outcome } = loaded;
  if (outcome.status === 'failed') return { ...base, status: 'failed', error: outcome.error };
  if (outcome.status === 'ignored') return { ...base, status: 'ignored' };
  return {
    ...base,
    status: 'loaded',
    bytes: contribution.bytes,
    lines: contribution.lines,
    ...(loaded.sha256 ? { sha256: loaded.sha256 } : {}),
    ...(loaded.matches === undefined ? {} : { matches: loaded.matches }),
    ...(loaded.redactions ? { redactions: loaded.redactions } : {}),
    ...(loaded.definitions === undefined ? {} : { definitions: loaded.definitions }),
    ...(loaded.references === undefined ? {} : { references: loaded.references }),
    ...(loaded.spans === undefined ? {} : { spans: loaded.spans }),
  };
}

/** Bytes of code per o200k token, on the low side, so a context mention's code rarely outgrows its share (and a cut keeps the best spans). */
const CODE_BYTES_PER_TOKEN = 4;

/**
 * The tokens each @codebase / @context: mention may fill: its even share of the byte budget the
 * prompt leaves, at most retrieval's default. Two mentions of one task share one block.
 */
function contextTokensFor(prompt: string, mentions: readonly ParsedMention[], maxBytes: number): number | undefined {
  const tasks = new Set(mentions.flatMap((mention) => (mention.kind === 'context' ? [mention.task ?? '\0the prompt'] : [])));
  if (tasks.size === 0) return undefined;
  const room = maxBytes - Buffer.byteLength(prompt);
  return Math.max(1, Math.min(CONTEXT_DEFAULT_TOKENS, Math.floor(room / tasks.size / CODE_BYTES_PER_TOKEN)));
}

function syntaxEntry(error: MentionSyntaxError): MentionEntry {
  return {
    kind: 'invalid',
    raw: error.raw,
    span: error.span,
    status: 'failed',
    error: { kind: error.kind, message: error.message, ...(error.suggestion ? { suggestion: error.suggestion } : {}) },
  };
}

/** The searches' left-out files, summed; absent when the prompt has no loaded search. */
function searchCoverage(loaded: LoadedMention[]): Pick<MentionsResult['coverage'], 'search'> {
  const searches = loaded.flatMap((entry) => (entry.searchCoverage ? [entry.searchCoverage] : []));
  if (searches.length === 0) return {};
  return {
    search: {
      filesSearched: sum(searches.map((entry) => entry.filesSearched)),
      binary: sum(searches.map((entry) => entry.binary)),
      tooLarge: sum(searches.map((entry) => entry.tooLarge)),
      unreadable: sum(searches.map((entry) => entry.unreadable)),
      timedOut: searches.filter((entry) => entry.timedOut).length,
      ...(searches.some((entry) => entry.indexed) ? { indexed: searches.filter((entry) => entry.indexed).length } : {}),
    },
  };
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The CLI's one-paragraph account: what loaded, what failed and how to fix it. */
export function summarizeMentions(result: MentionsResult): string {
  const counted = result.mentions.filter((entry) => entry.status !== 'ignored');
  const loaded = counted.filter((entry) => entry.status === 'loaded');
  const lines = [`Loaded ${loaded.length} of ${counted.length} mention${counted.length === 1 ? '' : 's'}${loaded.length ? ` — ${loaded.map(describeLoaded).join(', ')}` : ''}`];
  for (const entry of counted.filter((candidate) => candidate.status === 'failed')) {
    const error = entry.error as NonNullable<MentionEntry['error']>;
    lines.push(`Failed: ${entry.raw} — ${error.message}${error.suggestion ? ` ${error.suggestion}` : ''}`);
  }
  const ignored = result.mentions.filter((entry) => entry.status === 'ignored');
  if (ignored.length) lines.push(`Left as text: ${ignored.map((entry) => entry.raw).join(', ')} (no such file)`);
  const redactions = result.coverage.redactions ?? 0;
  if (redactions) lines.push(`Redacted ${redactions} credential${redactions === 1 ? '' : 's'} (keys, tokens or passwords) from the loaded files`);
  const search = result.coverage.search;
  if (search && (search.binary || search.tooLarge || search.unreadable)) {
    lines.push(`Not searched: ${search.binary} binary, ${search.tooLarge} over the size cap, ${search.unreadable} unreadable file(s)`);
  }
  if (search?.timedOut) lines.push(`${search.timedOut} search(es) stopped at the time budget: counts are partial`);
  for (const cut of result.coverage.cut) lines.push(`Cut: ${cut}`);
  lines.push(`${result.coverage.bytes.toLocaleString('en-US')} bytes, about ${result.coverage.estimatedTokens.toLocaleString('en-US')} tokens`);
  return lines.join('\n');
}

function describeLoaded(entry: MentionEntry): string {
  const target = entry.raw.replace(/^@/, '');
  switch (entry.kind) {
    case 'file':
      return `${target} (${entry.lines} line${entry.lines === 1 ? '' : 's'})`;
    case 'directory':
      return `${target} (${entry.lines} entries)`;
    case 'search':
    case 'grep':
      return `${entry.kind} ${entry.matches ?? 0} match${entry.matches === 1 ? '' : 'es'}`;
    case 'symbol':
      return `${target} (${entry.definitions ?? 0} definition${entry.definitions === 1 ? '' : 's'})`;
    case 'refs':
      return `${target} (${entry.references ?? 0} use${entry.references === 1 ? '' : 's'})`;
    case 'context':
      return `${entry.raw} (${entry.spans ?? 0} span${entry.spans === 1 ? '' : 's'})`;
    default:
      return `${target} (${formatBytes(entry.bytes ?? 0)})`;
  }
}
