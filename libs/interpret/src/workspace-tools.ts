import { searchWorkspace, type SearchFunction, type SearchResult } from '@quarry/search';
import { QuarryError } from '@quarry/contracts';
import { FileCache, findFiles, listDirectory, readWorkspaceFile, resolveInsideRoot } from '@quarry/workspace';
import type { ToolHost } from './executor';

/** What the tools cannot do by themselves: detection and fetching run where the caller decides. */
export interface WorkspaceToolsOptions {
  /** Absolute, already-validated workspace root. */
  root: string;
  fileCache?: FileCache;
  allowSecrets?: boolean;
  maxFileBytes?: number;
  searchTimeoutMs?: number;
  /** How search and grep search `root` (default: searchWorkspace); a commit's index when it has one. */
  search?: SearchFunction;
  /** Stack detection of a root-relative directory (absolute path given), e.g. `detectStack`. */
  detectStack: (absoluteDirectory: string, signal?: AbortSignal) => Promise<unknown>;
  /** A URL fetched through the SSRF guards: a child fetch job in the worker, SafeFetcher in the CLI. */
  fetchUrl: (url: string, signal?: AbortSignal) => Promise<unknown>;
  /** Task-aware retrieval on this repository (the context job's use case); absent: find_relevant_code fails as unavailable. */
  findRelevantCode?: (request: { task: string; limit: number }, signal?: AbortSignal) => Promise<unknown>;
}

/** Files and spans find_relevant_code lists when the plan names no max_results. */
const RELEVANT_CODE_LISTED = 10;

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);

/**
 * The read-only tools over one workspace, through the same libraries as the mentions job:
 * safe paths, capped and redacted reads, gitignore-aware listings, RE2 search in worker threads.
 * Arguments were validated and normalised (root-relative, capped) by the planner already.
 */
export function workspaceTools(options: WorkspaceToolsOptions): ToolHost {
  const { root } = options;
  const cache = options.fileCache ?? new FileCache();
  const dir = (value: unknown) => {
    const directory = str(value);
    return directory === undefined || directory === '.' ? undefined : directory;
  };
  const searchOutput = (result: SearchResult) => ({
    matches: result.matches.map(({ path, line, text }) => ({ path, line, text })),
    totalMatches: result.totalMatches,
    filesSearched: result.filesSearched,
    truncated: result.truncated,
    timedOut: result.timedOut,
  });

  return {
    // Hidden entries only when asked (hidden: true, or a pattern that starts with a dot), as ls and fd do.
    list_files: (args, { signal }) =>
      listDirectory(root, str(args.directory) ?? '.', {
        recursive: args.recursive === true,
        pattern: str(args.pattern),
        hidden: args.hidden === true,
        maxEntries: num(args.max_results),
        allowSecrets: options.allowSecrets,
        signal,
      }),
    find_files: (args, { signal }) =>
      findFiles(root, { pattern: str(args.pattern) ?? '*', directory: dir(args.directory), hidden: args.hidden === true, maxResults: num(args.max_results), allowSecrets: options.allowSecrets, signal }),
    read_file: async (args) => {
      const start = num(args.start_line);
      const end = num(args.end_line);
      const file = await readWorkspaceFile(root, str(args.path) ?? '', {
        maxBytes: options.maxFileBytes,
        allowSecrets: options.allowSecrets,
        cache,
        ...(start !== undefined || end !== undefined ? { range: { start: start ?? 1, ...(end !== undefined ? { end } : {}) } } : {}),
      });
      return { path: file.path, text: file.text, lines: file.lines, totalLines: file.totalLines, range: file.range, language: file.language, redactions: file.redactions };
    },
    search: async (args, { signal }) =>
      searchOutput(await (options.search ?? searchWorkspace)({ root, mode: 'literal', pattern: str(args.query) ?? '', directory: dir(args.directory), maxMatches: num(args.max_results), timeoutMs: options.searchTimeoutMs, signal })),
    grep: async (args, { signal }) =>
      searchOutput(
        await (options.search ?? searchWorkspace)({ root, mode: 'regex', pattern: str(args.pattern) ?? '', directory: dir(args.directory), glob: str(args.glob), maxMatches: num(args.max_results), timeoutMs: options.searchTimeoutMs, signal }),
      ),
    detect_stack: async (args, { signal }) => {
      const target = await resolveInsideRoot(root, str(args.directory) ?? '.', { allowSecrets: options.allowSecrets });
      if (target.type !== 'directory') {
        throw new QuarryError('input_invalid', `"${target.relative}" is a file; stack detection looks at a directory.`, { suggestion: 'Ask about the directory that holds it.' });
      }
      return options.detectStack(target.absolute, signal);
    },
    fetch_url: (args, { signal }) => options.fetchUrl(str(args.url) ?? '', signal),
    find_relevant_code: async (args, { signal }) => {
      if (!options.findRelevantCode) {
        throw new QuarryError('unavailable', 'Ranking the code for a question needs task-aware retrieval, which this caller does not provide.', {
          suggestion: 'Ask through the interpret job (quarry ask, the gateway or MCP), or search for a name the code uses.',
        });
      }
      return options.findRelevantCode({ task: str(args.task) ?? '', limit: num(args.max_results) ?? RELEVANT_CODE_LISTED }, signal);
    },
  };
}
