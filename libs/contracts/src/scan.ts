import { z } from 'zod';
import { detectResultSchema } from './kinds-planned';
import { resolvedSourceSchema, withRepository } from './source';

/** `source` (a git URL and ref, or a path), or `root`: an absolute path inside one of the workspace roots. */
export const scanInputSchema = withRepository({
  /**
   * Also index every blob for the code index (real token counts, tree-sitter symbols, secrets),
   * stored per blob and reused by every later scan, `symbols`, `map`, `pack` and `@symbol:`; the
   * result gains `tokens` and `symbols`. Default true; false counts lines and bytes only (several
   * times faster on a tree never indexed before).
   */
  codeIndex: z.boolean().optional(),
});
export type ScanInput = z.infer<typeof scanInputSchema>;

const languageStatsSchema = z.object({
  language: z.string(),
  files: z.number().int(),
  bytes: z.number().int(),
  lines: z.number().int(),
});

export const scanResultSchema = z.object({
  root: z.string(),
  files: z.number().int(),
  bytes: z.number().int(),
  lines: z.number().int(),
  /** Sorted by bytes, largest first. Files of no known language count as "Other". */
  languages: z.array(languageStatsSchema),
  /** The largest text files, largest first (at most 20). */
  largestFiles: z.array(z.object({ path: z.string(), bytes: z.number().int(), language: z.string() })),
  /** Files and bytes per top-level directory; files directly in the root count under ".". */
  directories: z.array(z.object({ path: z.string(), files: z.number().int(), bytes: z.number().int() })),
  skipped: z.object({
    binary: z.number().int(),
    ignored: z.number().int(),
    symlinks: z.number().int(),
    unreadable: z.number().int(),
  }),
  durationMs: z.number().int(),
  /** The stack of every service (the detect job's result); absent in results stored before it existed. */
  stack: detectResultSchema.optional(),
  /** The commit the scan describes (absent in results stored before sources were pinned). */
  source: resolvedSourceSchema.optional(),
  /** How many shards read the files this scan had to read (0 when every blob was known already). */
  shards: z.number().int().optional(),
  /** How many distinct workers ran those shards. */
  workers: z.number().int().optional(),
  /** Their ids (QUARRY_WORKER_ID, else host:pid), sorted. */
  workerIds: z.array(z.string()).optional(),
  /** The commit's distinct blobs: read by this scan (`processed`) or known from an earlier one (`reused`). */
  blobs: z.object({ total: z.number().int(), processed: z.number().int(), reused: z.number().int() }).optional(),
  /**
   * The commit whose scan this one updated: the worker remembered it, and only the files that
   * changed since were looked at. Absent when the scan went through the whole tree.
   */
  updatedFrom: z.string().optional(),
  /**
   * The code index's tokens (o200k_base): the sum over text files of each file's content tokens,
   * per language and per top-level directory (files directly in the root count under "."), from
   * the per-blob rows the shards stored. Absent when the scan ran without the code index.
   */
  tokens: z
    .object({
      total: z.number().int(),
      encoding: z.string(),
      byLanguage: z.array(z.object({ language: z.string(), files: z.number().int(), tokens: z.number().int() })),
      byDirectory: z.array(z.object({ path: z.string(), files: z.number().int(), tokens: z.number().int() })),
    })
    .optional(),
  /** Definitions found by the code index (tree-sitter), and how the files of languages with a grammar parsed. */
  symbols: z
    .object({
      definitions: z.number().int(),
      files: z.object({ parsed: z.number().int(), failed: z.number().int(), skipped: z.number().int() }),
      /** Files without symbols although their language has a grammar (it failed, or the file is too large). */
      warnings: z.number().int(),
    })
    .optional(),
});
export type ScanResult = z.infer<typeof scanResultSchema>;
export type LanguageStats = z.infer<typeof languageStatsSchema>;
