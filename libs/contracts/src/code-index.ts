import { z } from 'zod';
import { navigationSymbolSchema } from './navigation';
import { resolvedSourceSchema, withRepository } from './source';

/*
 * The code-index kinds: `symbols` (where is X defined), `map` (the ranked repo map within a token
 * budget) and `pack` (the repository as one LLM-ready document, written to a stored artifact).
 * Budgets, styles, globs and names are checked by @quarry/code-index at submission, so each bad
 * value gets its own typed 4xx (`budget_invalid`, `style_unknown`, `pattern_invalid`,
 * `symbol_invalid`) with a suggestion, not a generic schema error.
 */

export const TOKEN_ENCODING_NAMES = ['o200k_base', 'cl100k_base'] as const;
const encoding = z.enum(TOKEN_ENCODING_NAMES);
const globs = z.array(z.string().max(1000)).max(100);

/** A definition as navigation gives it (the line is the name's, what ctags reports), with its use count on lookups. */
const definitionSchema = navigationSymbolSchema.extend({
  /** Uses of the name across the repository (lookups only). */
  references: z.number().int().optional(),
});

const tokenTotalsSchema = z.object({
  total: z.number().int(),
  encoding,
  byLanguage: z.array(z.object({ language: z.string(), files: z.number().int(), tokens: z.number().int() })),
  /** Per top-level directory; files directly in the root count under ".". */
  byDirectory: z.array(z.object({ path: z.string(), files: z.number().int(), tokens: z.number().int() })),
  /** The files with the most tokens, most first (at most 20). */
  largestFiles: z.array(z.object({ path: z.string(), tokens: z.number().int() })),
});

/*
 * Each kind reads a repository like `scan`: `source` ({git, ref?} or {path}) or the older `root`
 * (a local path). Results name the commit they describe (`source`), and read the per-blob rows
 * the scan's shards stored (computing the missing ones).
 */
const source = resolvedSourceSchema.optional();

export const symbolsInputSchema = withRepository({
  /** `Name`, `Class.method`, `Ns::fn`: the ranked definitions of that name. Absent → every definition (filtered by `path`). */
  name: z.string().max(1000).optional(),
  /** Only files matching this glob (fast-glob semantics, root-relative). */
  path: z.string().max(1000).optional(),
  limit: z.number().int().min(1).max(100_000).default(1000),
});
export const symbolsResultSchema = z.object({
  definitions: z.array(definitionSchema),
  /** Definitions that matched before `limit` cut the list. */
  total: z.number().int(),
  truncated: z.boolean(),
  files: z.number().int(),
  /** The commit the definitions come from (absent for a local tree read in-process). */
  source,
});

export const mapInputSchema = withRepository({
  /** The budget: the map has at most this many tokens. */
  tokens: z.number().default(2048),
  /** Files (root-relative paths) or symbol names to personalise the ranking toward. */
  focus: z.array(z.string().min(1).max(1000)).max(100).optional(),
  encoding: encoding.default('o200k_base'),
});
export const mapResultSchema = z.object({
  text: z.string(),
  tokens: z.number().int(),
  encoding,
  files: z.array(z.object({ path: z.string(), rank: z.number(), definitions: z.number().int() })),
  totalFiles: z.number().int(),
  totalDefinitions: z.number().int(),
  /** Focus entries read as paths and as symbol names. */
  focus: z.object({ paths: z.array(z.string()), symbols: z.array(z.string()) }),
  /** The repository's tokens (o200k_base, each text file's content) per language and directory. */
  repository: tokenTotalsSchema,
  source,
});

export const packInputSchema = withRepository({
  style: z.string().max(64).default('xml'),
  include: globs.optional(),
  ignore: globs.optional(),
  /** Keep signatures, drop function bodies. */
  compress: z.boolean().default(false),
  /** Files are taken in order while their tokens fit; the rest are listed as omitted. */
  maxTokens: z.number().optional(),
  encoding: encoding.default('o200k_base'),
});
export const packResultSchema = z.object({
  style: z.string(),
  files: z.number().int(),
  /** Sum of the packed files' tokens (each file's text as written), in `encoding`. */
  tokens: z.number().int(),
  encoding,
  /** UTF-8 bytes of the document. */
  bytes: z.number().int(),
  redactions: z.number().int(),
  compressed: z.number().int(),
  omitted: z.number().int(),
  /** `filtered`: files the globs left out; `binary`: selected files that are binary; `secretFiles`: credential files left out whole. */
  skipped: z.object({ binary: z.number().int(), filtered: z.number().int(), secretFiles: z.number().int() }),
  /** The packed files' tokens per language and directory. */
  totals: tokenTotalsSchema,
  /** The document: GET /v1/jobs/{id}/artifact downloads it. */
  artifact: z.object({
    name: z.string(),
    bytes: z.number().int(),
    contentType: z.string(),
    /** The file itself, when the pack ran in the caller's own process (`quarry pack --local`, `quarry mcp`). */
    path: z.string().optional(),
  }),
  durationMs: z.number().int(),
  source,
});
