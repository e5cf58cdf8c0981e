import { z } from 'zod';
import { withRepository } from './source';

/*
 * Inputs and results of the kinds whose handlers land in later issues. The gateway refuses them
 * with `kind_not_available` until their kind is listed in BUILT_KINDS, but their shapes are fixed
 * here so the CLI, the browser and the server agree from the start.
 */

const errorEntry = z.object({ kind: z.string(), message: z.string(), suggestion: z.string().optional() });

export const detectInputSchema = withRepository({
  /** Absent → the server's QUARRY_DETECTION_MODE (default full). */
  mode: z.enum(['full', 'static', 'llm-only']).optional(),
});
export const universalBuildSchema = z.object({
  version: z.string(),
  metadata: z.object({
    project_name: z.string(),
    path: z.string(),
    language: z.string(),
    build_system: z.string(),
    framework: z.string().optional(),
    /** The bundler beneath the framework (`vite`, `webpack`), when the project declares one; absent in older results. */
    bundler: z.string().optional(),
    confidence: z.number(),
    detected_by: z.enum(['static', 'llm']),
    warnings: z.array(z.string()),
    reasoning: z.string().optional(),
  }),
  workspace: z.object({ root: z.string(), orchestrator: z.string().optional(), manager: z.string().optional(), members: z.array(z.string()) }),
  build: z.object({ commands: z.array(z.string()), cache: z.array(z.string()), env: z.record(z.string(), z.string()) }),
  runtime: z.object({
    name: z.string(),
    version: z.object({ requested: z.string().optional(), source: z.string() }),
    command: z.string().optional(),
    ports: z.array(z.number().int()),
    health: z.string().optional(),
    base_image: z.string().optional(),
  }),
});
export const detectResultSchema = z.array(universalBuildSchema);

export const mentionsInputSchema = withRepository({
  prompt: z.string().max(1_000_000),
  budget: z.object({ maxBytes: z.number().int().positive().max(50_000_000).optional() }).optional(),
});
export const mentionsResultSchema = z.object({
  augmentedPrompt: z.string(),
  mentions: z.array(
    z.object({
      kind: z.string(),
      raw: z.string(),
      span: z.tuple([z.number().int(), z.number().int()]),
      status: z.enum(['loaded', 'failed', 'ignored']),
      bytes: z.number().int().optional(),
      lines: z.number().int().optional(),
      sha256: z.string().optional(),
      /** @search/@grep: matching lines found in the workspace (the block shows at most 50). */
      matches: z.number().int().optional(),
      /** Credentials replaced by `[REDACTED …]` in what was loaded (keys, tokens, passwords). */
      redactions: z.number().int().optional(),
      /** @symbol: definitions of the name found (the block shows the best 5 with their code). */
      definitions: z.number().int().optional(),
      /** @refs: uses of the definition found (the block lists the first 200, grouped by file). */
      references: z.number().int().optional(),
      /** @codebase / @context: ranked spans whose code the block shows. */
      spans: z.number().int().optional(),
      error: errorEntry.optional(),
    }),
  ),
  errors: z.array(errorEntry.extend({ source: z.string() })),
  coverage: z.object({
    files: z.number().int(),
    lines: z.number().int(),
    searches: z.number().int(),
    matches: z.number().int(),
    urls: z.number().int(),
    /** @symbol: mentions loaded. */
    symbols: z.number().int().optional(),
    /** @refs: mentions loaded. */
    references: z.number().int().optional(),
    /** @codebase / @context: mentions loaded (absent when the prompt has none). */
    contexts: z.number().int().optional(),
    bytes: z.number().int(),
    estimatedTokens: z.number().int(),
    /** Credentials redacted across every loaded file. */
    redactions: z.number().int().optional(),
    /**
     * What the @search/@grep mentions did not look into, summed over them: files skipped as
     * binary, over the size cap or unreadable, and searches cut short by their time budget.
     */
    search: z
      .object({
        filesSearched: z.number().int(),
        binary: z.number().int(),
        tooLarge: z.number().int(),
        unreadable: z.number().int(),
        timedOut: z.number().int(),
        /** Searches answered from the commit's trigram index (the others read every file). */
        indexed: z.number().int().optional(),
      })
      .optional(),
    cut: z.array(z.string()),
  }),
});

/** POST /v1/mentions/parse: the typed parse of a prompt, synchronously, nothing loaded. */
export const mentionsParseRequestSchema = z.object({ text: z.string().max(1_000_000) });

export const fetchInputSchema = z.object({
  url: z.string().min(1).max(8192),
  force: z.boolean().default(false),
});
export const fetchResultSchema = z.object({
  url: z.string(),
  finalUrl: z.string(),
  status: z.number().int(),
  contentType: z.string(),
  title: z.string().optional(),
  text: z.string(),
  bytes: z.number().int(),
  truncated: z.boolean(),
  fetchedAt: z.string(),
  fromCache: z.boolean(),
  redirects: z.array(z.string()),
});

/** The longest query the interpret job takes, in characters: a question, not a document. */
export const MAX_QUERY_LENGTH = 4_000;

export const interpretInputSchema = withRepository({
  query: z
    .string()
    .max(MAX_QUERY_LENGTH)
    .refine((value) => value.trim().length > 0, { message: 'the query is empty' }),
  context: z
    .object({ cwd: z.string().optional(), activeFile: z.string().optional(), lastFile: z.string().optional(), lastDir: z.string().optional() })
    .optional(),
  execute: z.boolean().default(true),
  ai: z.enum(['auto', 'off', 'only']).default('auto'),
});
export const interpretResultSchema = z.object({
  plan: z.object({
    needs_tools: z.boolean(),
    tools: z.array(z.object({ name: z.string(), args: z.record(z.string(), z.unknown()), confidence: z.number() })),
    rationale: z.string(),
    notes: z.string().optional(),
    clarification: z.string().optional(),
  }),
  source: z.enum(['ai', 'rules']),
  dropped: z.array(z.object({ tool: z.string(), reason: z.string() })),
  results: z.array(z.object({ tool: z.string(), ok: z.boolean(), output: z.unknown().optional(), error: errorEntry.optional() })),
});
