import { z } from 'zod';
import { withRepository } from './source';

/*
 * The read-only workspace operations an agent calls directly (the MCP tools read_file,
 * list_directory, find_files and search_text): their inputs and results. They run where the
 * repository is readable (in-process, or in the gateway for its workspace roots), not as queued
 * jobs: an agent reads many small things and waits for each.
 */

/**
 * The commit a git source was pinned to for this call (absent for a directory): every path and
 * line of the answer is of exactly this commit.
 */
const commit = z.string().optional().describe('For a git URL repository: the commit the answer reads (the ref resolved for this call).');
const relativePath = z.string().min(1).max(4096);
const glob = z.string().min(1).max(1_000);
const lineNumber = z.number().int().min(1);

/** Lines one read returns at most; a longer range is cut there and says so. */
export const READ_FILE_MAX_LINES = 2_000;

export const readFileInputSchema = withRepository({
  path: relativePath,
  startLine: lineNumber.optional(),
  endLine: lineNumber.optional(),
});
export const readFileResultSchema = z.object({
  commit,
  path: z.string(),
  language: z.string().optional(),
  /** The lines returned, 1-based and inclusive (0 and 0 for an empty file). */
  startLine: z.number().int(),
  endLine: z.number().int(),
  /** Lines in the whole file, when known (a range streamed out of a very large file does not count them). */
  totalLines: z.number().int().optional(),
  /** A line longer than a page holds is split: each part names the 1-based column it starts at. */
  lines: z.array(z.object({ number: z.number().int(), text: z.string(), column: z.number().int().optional() })),
  /** More lines follow `endLine` that were not returned (the range was cut at READ_FILE_MAX_LINES). */
  truncated: z.boolean(),
  /** Credentials replaced by `[REDACTED …]` in the returned lines. */
  redactions: z.number().int(),
  /** The file's content identity (`t:` a hash of its text; `s:` of its size and times, for a file over the size cap; `commit` for a git URL's). */
  version: z.string().optional(),
});

export const listDirectoryInputSchema = withRepository({
  path: relativePath.default('.'),
  recursive: z.boolean().default(false),
  pattern: glob.optional(),
});
export const listDirectoryResultSchema = z.object({
  commit,
  path: z.string(),
  entries: z.array(
    z.object({ path: z.string(), type: z.enum(['file', 'directory']), size: z.number().int().optional(), mtime: z.string().optional() }),
  ),
  truncated: z.boolean(),
  totalEntries: z.number().int(),
});

export const findFilesInputSchema = withRepository({
  pattern: glob,
  directory: relativePath.optional(),
  maxResults: z.number().int().min(1).max(1_000).default(100),
});
export const findFilesResultSchema = z.object({
  commit,
  matches: z.array(z.string()),
  total: z.number().int(),
  truncated: z.boolean(),
  caseInsensitive: z.boolean(),
});

export const searchTextInputSchema = withRepository({
  pattern: z.string().min(1).max(1_000),
  regex: z.boolean().default(false),
  directory: relativePath.optional(),
  glob: glob.optional(),
  maxResults: z.number().int().min(1).max(500).default(50),
  contextLines: z.number().int().min(0).max(20).default(0),
});
export const searchTextResultSchema = z.object({
  commit,
  matches: z.array(
    z.object({
      path: z.string(),
      line: z.number().int(),
      column: z.number().int(),
      text: z.string(),
      before: z.array(z.string()),
      after: z.array(z.string()),
    }),
  ),
  totalMatches: z.number().int(),
  filesSearched: z.number().int(),
  filesMatched: z.number().int(),
  truncated: z.boolean(),
  timedOut: z.boolean(),
  skipped: z.object({ binary: z.number().int(), tooLarge: z.number().int(), unreadable: z.number().int() }),
});

/** Input and result schema of every workspace operation, as JOB_CONTRACTS is for jobs. */
export const WORKSPACE_TOOL_CONTRACTS = {
  read_file: { input: readFileInputSchema, result: readFileResultSchema },
  list_directory: { input: listDirectoryInputSchema, result: listDirectoryResultSchema },
  find_files: { input: findFilesInputSchema, result: findFilesResultSchema },
  search_text: { input: searchTextInputSchema, result: searchTextResultSchema },
} as const satisfies Record<string, { input: z.ZodObject; result: z.ZodObject }>;

export type WorkspaceToolName = keyof typeof WORKSPACE_TOOL_CONTRACTS;
export type WorkspaceToolInput<T extends WorkspaceToolName> = z.infer<(typeof WORKSPACE_TOOL_CONTRACTS)[T]['input']>;
export type WorkspaceToolResult<T extends WorkspaceToolName> = z.infer<(typeof WORKSPACE_TOOL_CONTRACTS)[T]['result']>;
