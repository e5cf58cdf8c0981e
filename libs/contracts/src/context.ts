import { z } from 'zod';
import { TOKEN_ENCODING_NAMES } from './code-index';
import { resolvedSourceSchema, withRepository } from './source';

/*
 * Task-aware retrieval (`quarry context`): a task's text (an issue, a question, a failing test's
 * output, a stack trace) → the files and the definition-sized spans of code it touches, ranked,
 * and their code assembled within a token budget. The task's size and the budget are checked by
 * @quarry/context, so each bad value gets its own typed error (`task_empty`, `task_too_large`,
 * `budget_invalid`, `path_outside_root`) with a suggestion, not a generic schema error.
 */

/** A task is an issue or a log, not a repository: 64 KiB of UTF-8. */
export const CONTEXT_TASK_MAX_BYTES = 64 * 1024;
export const CONTEXT_DEFAULT_TOKENS = 8000;
/** Above this a budget is a mistake (a context is read by a model whose window is smaller). */
export const CONTEXT_MAX_TOKENS = 1_000_000;
export const CONTEXT_DEFAULT_LIMIT = 20;
export const CONTEXT_MAX_LIMIT = 500;

/** The signals of the lexical/structural ranking, then the optional layers: `semantic` (embeddings' cosine, fused by rank) and `rerank` (the chat model's order). */
export const CONTEXT_SIGNALS = ['explicit', 'definitions', 'literals', 'bm25', 'paths', 'graph', 'prior', 'roles', 'semantic', 'rerank'] as const;

export const contextInputSchema = withRepository({
  task: z.string(),
  /** The budget of the assembled context, in tokens of `encoding`. */
  tokens: z.number().default(CONTEXT_DEFAULT_TOKENS),
  /** Root-relative paths the caller is working on: ranked up, and followed through the graph. */
  focus: z.array(z.string().min(1).max(4096)).max(100).optional(),
  /** Files and spans listed (the context holds as many spans as the budget takes). */
  limit: z.number().int().min(1).max(CONTEXT_MAX_LIMIT).default(CONTEXT_DEFAULT_LIMIT),
  encoding: z.enum(TOKEN_ENCODING_NAMES).default('o200k_base'),
});

/** What one signal added to a file's or a span's score, and what it matched. */
const contributionSchema = z.object({
  signal: z.enum(CONTEXT_SIGNALS),
  score: z.number(),
  notes: z.array(z.string()),
});

export const contextFileSchema = z.object({
  /** Root-relative. */
  path: z.string(),
  score: z.number(),
  /** `source`, `test`, `docs` or `example`, from the path: ranked by what the task asks for. */
  role: z.enum(['source', 'test', 'docs', 'example']),
  why: z.array(contributionSchema),
});

export const contextSpanSchema = z.object({
  path: z.string(),
  /** 1-based, inclusive: a definition (function, method, a class's own lines) or a window of top-level code. */
  startLine: z.number().int(),
  endLine: z.number().int(),
  symbol: z.string().optional(),
  kind: z.string().optional(),
  container: z.string().optional(),
  score: z.number(),
  why: z.array(contributionSchema),
  /** Whether the span's code is in `context`: whole, cut to its first lines by the budget, or not. */
  inContext: z.enum(['whole', 'cut', 'omitted']),
});

export const contextResultSchema = z.object({
  /** Best first. */
  files: z.array(contextFileSchema),
  /** Best first. */
  spans: z.array(contextSpanSchema),
  /** The spans' code with paths and line numbers, in rank order, cut to the budget. */
  context: z.string(),
  /** Tokens of `context` (≤ budget), counted with `encoding`. */
  tokens: z.number().int(),
  budget: z.number().int(),
  encoding: z.enum(TOKEN_ENCODING_NAMES),
  /** The commit the answer was computed on: a git commit, or a content hash of a working tree. */
  commit: z.string().optional(),
  source: resolvedSourceSchema.optional(),
  /** What was read from the task: stack frames, paths and names, as the signals used them. */
  task: z.object({
    frames: z.array(z.object({ path: z.string(), line: z.number().int().optional(), symbol: z.string().optional() })),
    paths: z.array(z.string()),
    asksFor: z.array(z.enum(['tests', 'docs'])),
  }),
  stats: z.object({ files: z.number().int(), chunks: z.number().int(), terms: z.number().int(), durationMs: z.number() }),
  /** The optional layers, when configured: used, or fallen back to the lexical ranking (`warnings` says why). */
  layers: z
    .object({
      embeddings: z
        .object({
          status: z.enum(['used', 'fell_back']),
          /** Candidate files (the lexical ranking's first) and their chunks compared with the task. */
          files: z.number().int(),
          chunks: z.number().int(),
          /** Chunks this answer embedded; the others' vectors were stored by earlier ones. */
          embedded: z.number().int(),
          durationMs: z.number(),
        })
        .optional(),
      rerank: z.object({ status: z.enum(['used', 'fell_back']), spans: z.number().int(), durationMs: z.number() }).optional(),
    })
    .optional(),
  warnings: z.array(z.string()),
});

export type ContextInputBody = z.infer<typeof contextInputSchema>;
export type ContextResultBody = z.infer<typeof contextResultSchema>;
export type ContextFileBody = z.infer<typeof contextFileSchema>;
export type ContextSpanBody = z.infer<typeof contextSpanSchema>;
