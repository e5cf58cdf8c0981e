import { z } from 'zod';
import { MIN_ANSWER_TOKENS, pageSchema } from './answer';
import { sourceInputSchema } from './source';

/*
 * `POST /v1/search` and `quarry search`: a literal or RE2 search over a repository, answered at
 * once (a read, not a job: see docs/decisions.md), counted the way `rg -c` counts. `indexed`
 * says whether the commit's trigram index answered (a git source whose commit a scan indexed);
 * a cold search reads every file. Both give the same counts and hits.
 */

export const searchInputSchema = z.object({
  /** A directory (on the server: inside QUARRY_WORKSPACE_ROOTS). Give this or `source`. */
  root: z.string().min(1).max(4096).optional(),
  /** `{"git": url, "ref"?}` (or `{"path": dir}`): a repository by URL, searched at that commit. */
  source: sourceInputSchema.optional(),
  /** Checked by the search itself (empty, too long, line breaks → pattern_invalid; RE2 refusals → regex_invalid). */
  pattern: z.string().max(100_000),
  regex: z.boolean().default(false),
  /** `sensitive` (rg's default), `insensitive` (rg -i) or `smart` (rg -S). */
  case: z.enum(['sensitive', 'insensitive', 'smart']).default('sensitive'),
  /** Only files matching this glob: `*.c` at any depth, `drivers/**\/*.c` on the root-relative path. */
  path: z.string().min(1).max(1_000).optional(),
  /** A root-relative directory to search in. */
  directory: z.string().min(1).max(4096).optional(),
  /** Hidden files and directories too (rg --hidden). */
  hidden: z.boolean().default(false),
  /** Hits returned with their text; every match is counted regardless. */
  maxResults: z.number().int().min(0).max(10_000).default(50),
  contextLines: z.number().int().min(0).max(20).default(0),
  /** Every matching file with its count, as `rg -c` prints them (not cut to maxTokens: ask for it knowingly). */
  counts: z.boolean().default(false),
  /** The answer's size cap in o200k tokens (default 8,000; more counts as 24,000): the hits are cut to it, and nextCursor gives the rest. */
  maxTokens: z.number().int().min(MIN_ANSWER_TOKENS).optional(),
  /** nextCursor of the previous answer: the hits after it, for the same request. */
  cursor: z.string().min(1).max(2_048).optional(),
}).refine((input) => (input.root === undefined) !== (input.source === undefined), {
  message: 'give exactly one of root and source ({"git": url, "ref"?} or {"path": dir})',
  path: ['root'],
});

const skippedSchema = z.object({
  /** Files with a NUL byte (searched by neither Quarry nor ripgrep). */
  binary: z.number().int(),
  /** Files over the size cap (64 MiB). */
  tooLarge: z.number().int(),
  /** Files gone or unreadable since the walk listed them. */
  unreadable: z.number().int(),
});

export const searchAnswerSchema = z.object({
  /** Matching lines, one per line however many matches it holds: the sum of `rg -c`. */
  total: z.number().int(),
  /** Files with at least one matching line. */
  files: z.number().int(),
  /** Whether the commit's index answered (false: every file in scope was read). */
  indexed: z.boolean(),
  /** The commit searched, for a git source. */
  commit: z.string().optional(),
  /** Files read and searched; together with `skipped`, every file in scope. */
  filesSearched: z.number().int(),
  skipped: skippedSchema,
  /** The time budget ran out: the counts cover only the files searched before it did. */
  timedOut: z.boolean(),
  /** More matching lines were counted than `hits` holds. */
  truncated: z.boolean(),
  ignoreCase: z.boolean(),
  hits: z.array(
    z.object({
      path: z.string(),
      line: z.number().int(),
      column: z.number().int(),
      text: z.string(),
      before: z.array(z.string()).optional(),
      after: z.array(z.string()).optional(),
    }),
  ),
  /** With `counts`: every matching file and its count, by path. */
  counts: z.array(z.object({ path: z.string(), count: z.number().int() })).optional(),
  elapsedMs: z.number(),
  /** Which hits this answer holds (1-based) and its size: see `maxTokens`. */
  page: pageSchema.optional(),
  /** Send it back as `cursor` (the same request otherwise) for the hits that follow. */
  nextCursor: z.string().optional(),
});

export type SearchInput = z.input<typeof searchInputSchema>;
export type SearchAnswer = z.infer<typeof searchAnswerSchema>;
