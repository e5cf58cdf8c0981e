import { z } from 'zod';

/*
 * What every answer an agent reads carries besides its content (issue 32): a size it never
 * exceeds, counted in real tokens, a cursor to the rest, and the state of the repository and its
 * index it was computed from. The MCP tools, the REST reads and the CLI's --json share these.
 */

/** An answer's size when the caller does not say, in o200k_base tokens. */
export const DEFAULT_ANSWER_TOKENS = 8_000;
/** The most an answer ever holds, whatever the caller asks for (Claude Code refuses MCP results over 25,000). */
export const MAX_ANSWER_TOKENS = 24_000;
/** Below this a page cannot hold its own frame (header, notes, cursor) and a useful item. */
export const MIN_ANSWER_TOKENS = 1_000;

/** The caller's `maxTokens`, applied: the default when absent, the cap when over it. */
export function answerTokenBudget(asked: number | undefined): number {
  return Math.min(asked ?? DEFAULT_ANSWER_TOKENS, MAX_ANSWER_TOKENS);
}

/**
 * The repository state an answer was computed from. `commit`: the git commit the index describes
 * (for a directory outside git, the content hash Quarry names its state by); `dirty`: files of
 * the working tree that differ from it (changed, added, deleted), whose current content the
 * answer used; `coverage`: the share of the commit's files in the code index (0–1); `building`:
 * an index build of this repository is running (the code index, or a checkout's search index);
 * `read`: whether this answer came from the index or from reading the files directly (always
 * correct, only slower).
 */
export const indexStateSchema = z.object({
  commit: z.string(),
  dirty: z.number().int().min(0),
  coverage: z.number().min(0).max(1),
  building: z.boolean(),
  read: z.enum(['index', 'files']),
  /**
   * A local checkout's search index (its HEAD's trigram index, the edits read beside it):
   * `ready`, `building` (with `progress`, 0–1: searches read the files meanwhile), or `none`
   * (not built by this server, or not possible: git converts the checkout's content). Absent
   * where no search asked for it yet, and for a git URL (a scan builds its commit's).
   */
  searchIndex: z.object({ state: z.enum(['ready', 'building', 'none']), progress: z.number().min(0).max(1).optional() }).optional(),
});
export type IndexState = z.infer<typeof indexStateSchema>;

/** What a page holds and what it left out, in the tool's own unit (lines, matches, entries…). */
export const pageSchema = z.object({
  unit: z.string(),
  /** 1-based ordinal of the first item shown (0 when the page is empty). */
  first: z.number().int().min(0),
  /** Ordinal of the last item shown (0 when the page is empty). */
  last: z.number().int().min(0),
  /** Items in all, when known. */
  total: z.number().int().min(0).optional(),
  /** Items after this page, when known: what calling again with nextCursor returns, page by page. */
  left: z.number().int().min(0).optional(),
  /**
   * The answer's size in o200k_base tokens, and the budget it was cut to. An answer with fewer
   * UTF-8 bytes than the budget fits without being counted (a token is at least a byte): the CLI
   * then leaves `tokens` out rather than load the tokenizer.
   */
  tokens: z.number().int().min(0).optional(),
  maxTokens: z.number().int().min(0),
});
export type PageInfo = z.infer<typeof pageSchema>;
