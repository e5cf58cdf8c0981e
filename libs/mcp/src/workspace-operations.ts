import { createHash } from 'node:crypto';
import * as path from 'node:path';
import {
  QuarryError,
  READ_FILE_MAX_LINES,
  WORKSPACE_TOOL_CONTRACTS,
  type WorkspaceToolInput,
  type WorkspaceToolName,
  type WorkspaceToolResult,
} from '@quarry/contracts';
import { searchWorkspace, type SearchFunction } from '@quarry/search';
import { sourceOf, type Snapshot, type SnapshotProvider } from '@quarry/snapshot';
import { DEFAULT_MAX_ENTRIES, FileCache, findFiles, isInside, listDirectory, readWorkspaceFile, resolveInsideRoot, type WorkspaceFile } from '@quarry/workspace';

export interface WorkspaceOperationsOptions {
  /** The real path of a repository the caller may read, or a typed error (path_outside_root, root_not_found…). */
  resolveRoot(root: string): Promise<string>;
  /**
   * How a git URL is read: this process's snapshot provider (its cache under QUARRY_DATA_DIR,
   * fetched through the SSRF guard). Without one, a URL is refused.
   */
  snapshots?: SnapshotProvider;
  allowSecrets?: boolean;
  maxFileBytes?: number;
  searchTimeoutMs?: number;
  fileCache?: FileCache;
  /**
   * How a git URL's working tree is searched: through its commit's trigram index when a scan built
   * one (@quarry/search-index's snapshotSearch), else every file is read.
   */
  searcherFor?: (snapshot: Snapshot, signal: AbortSignal) => Promise<SearchFunction>;
  /**
   * How a local directory (a real path `resolveRoot` admitted) is searched: through its HEAD's
   * trigram index with the working tree's edits read beside it, once that index is built
   * (@quarry/search-index's CheckoutIndexes); undefined: every file is read.
   */
  localSearcherFor?: (root: string, signal: AbortSignal) => Promise<SearchFunction | undefined>;
}

/** How a call reads beyond its contract: what paging needs. */
export interface WorkspaceReadOptions {
  /**
   * For the listing tools (search_text, find_files, list_directory): return at least this many
   * items from the first, past the input's maxResults cap, so that a page deep in the list can
   * be cut from them (and the items before it checked unchanged).
   */
  atLeast?: number;
}

/** A workspace operation's result, with what the answer says of how it was read. */
export type WorkspaceAnswer<T extends WorkspaceToolName> = WorkspaceToolResult<T> & {
  /** search_text: the commit's trigram index answered (otherwise every file in scope was read). */
  indexed?: boolean;
};

type Operation<T extends WorkspaceToolName> = (
  root: string,
  input: WorkspaceToolInput<T>,
  signal: AbortSignal,
  options: WorkspaceReadOptions & { search?: SearchFunction; commit?: string },
) => Promise<WorkspaceAnswer<T>>;

/**
 * The four read-only workspace operations over the workspace and search libraries: safe paths,
 * gitignore-aware walks, redacted reads, RE2 in worker threads. Both backends use it; they differ
 * only in which repositories `resolveRoot` admits.
 */
export class WorkspaceOperations {
  private readonly cache: FileCache;

  constructor(private readonly options: WorkspaceOperationsOptions) {
    this.cache = options.fileCache ?? new FileCache();
  }

  async run<T extends WorkspaceToolName>(name: T, rawInput: WorkspaceToolInput<T>, signal: AbortSignal, options: WorkspaceReadOptions = {}): Promise<WorkspaceAnswer<T>> {
    const parsed = WORKSPACE_TOOL_CONTRACTS[name].input.parse(rawInput) as WorkspaceToolInput<T>;
    signal.throwIfAborted();
    const operation = this.operations[name] as Operation<T>;
    const source = sourceOf(parsed);
    if ('path' in source) {
      const root = await this.options.resolveRoot(source.path);
      const search = name === 'search_text' ? await this.options.localSearcherFor?.(root, signal) : undefined;
      return operation(root, withRelativePaths(parsed, [source.path, root]), signal, search ? { ...options, search } : options);
    }
    // A git URL: its ref pinned to a commit now, and read from that commit's working tree in the
    // cache, as the mentions and interpret jobs read one.
    const { snapshots } = this.options;
    if (!snapshots) {
      throw new QuarryError('input_invalid', 'This server reads repositories by path only.', { suggestion: 'Pass the repository as an absolute path.' });
    }
    const pinned = await snapshots.resolve(source, signal);
    const snapshot = await snapshots.open(pinned, signal);
    try {
      const [root, search] = await Promise.all([snapshot.workingTree(signal), name === 'search_text' ? this.options.searcherFor?.(snapshot, signal) : undefined]);
      return { ...(await operation(root, withRelativePaths(parsed, [root]), signal, { ...options, search, commit: pinned.commit })), commit: pinned.commit } as WorkspaceAnswer<T>;
    } finally {
      snapshot.close();
    }
  }

  private readonly operations: { [T in WorkspaceToolName]: Operation<T> } = {
    read_file: (root, input, _signal, { commit }) => this.readFile(root, input, commit),
    list_directory: async (root, input, signal, { atLeast }) => {
      const listing = await listDirectory(root, input.path, { recursive: input.recursive, pattern: input.pattern, allowSecrets: this.options.allowSecrets, signal, ...(atLeast ? { maxEntries: Math.max(atLeast, DEFAULT_MAX_ENTRIES) } : {}) });
      return { path: listing.path, entries: listing.entries, truncated: listing.truncated, totalEntries: listing.totalEntries };
    },
    find_files: (root, input, signal, { atLeast }) =>
      findFiles(root, { pattern: input.pattern, directory: input.directory, maxResults: Math.max(input.maxResults, atLeast ?? 0), allowSecrets: this.options.allowSecrets, signal }),
    search_text: async (root, input, signal, { search, atLeast }) => {
      const result: Awaited<ReturnType<SearchFunction>> = await (search ?? searchWorkspace)({
        root,
        mode: input.regex ? 'regex' : 'literal',
        pattern: input.pattern,
        directory: input.directory === '.' ? undefined : input.directory,
        glob: input.glob,
        maxMatches: Math.max(input.maxResults, atLeast ?? 0),
        contextLines: input.contextLines,
        timeoutMs: this.options.searchTimeoutMs,
        signal,
      });
      // The tool's result contract: the library's newer fields (ignoreCase, fileCounts) stay out of it.
      const { elapsedMs: _elapsed, ignoreCase: _ignoreCase, fileCounts: _fileCounts, indexed, ...rest } = result;
      return { ...rest, matches: result.matches.map(({ path, line, column, text, before, after }) => ({ path, line, column, text, before, after })), indexed: indexed ?? false };
    },
  };

  /**
   * At most READ_FILE_MAX_LINES lines per call. With no range the file is read whole (so an
   * empty file is an empty answer, not an error); a file over the size cap, or an explicit
   * range, is read as a range (streamed out of files over the cap).
   */
  private async readFile(root: string, input: WorkspaceToolInput<'read_file'>, commit: string | undefined): Promise<WorkspaceToolResult<'read_file'>> {
    const start = input.startLine ?? 1;
    if (input.endLine !== undefined && input.endLine < start) {
      throw new QuarryError('range_invalid', `endLine ${input.endLine} is before startLine ${start}.`, { suggestion: 'Give endLine ≥ startLine, or leave it out to read from startLine on.' });
    }
    const cap = start + READ_FILE_MAX_LINES - 1;
    const end = Math.min(input.endLine ?? cap, cap);
    const options = { maxBytes: this.options.maxFileBytes, allowSecrets: this.options.allowSecrets, cache: this.cache };
    let file: WorkspaceFile | undefined;
    if (input.startLine === undefined && input.endLine === undefined) {
      file = await readWorkspaceFile(root, input.path, options).catch((error: unknown) => {
        if (error instanceof QuarryError && error.kind === 'file_too_large') return undefined;
        throw error;
      });
      // Longer than one answer: read the first lines as a range, so counts (redactions) cover only them.
      if (file && file.lines > READ_FILE_MAX_LINES) file = undefined;
    }
    // The content's identity: the hash of the whole text when it was loaded whole (or is cached),
    // a commit's file is that commit's, and one over the size cap is named by its stat.
    let version = commit === undefined ? undefined : 'commit';
    if (version === undefined) {
      const whole = file ?? (await readWorkspaceFile(root, input.path, options).catch(() => undefined));
      version = whole ? `t:${shortHash(whole.sha256)}` : await statVersion(root, input.path);
    }
    file ??= await readWorkspaceFile(root, input.path, { ...options, range: { start, end } });
    const lines = splitLines(file.text).slice(0, end - start + 1);
    const last = start + lines.length - 1;
    const totalLines = file.totalLines;
    // More lines exist past what was returned, and the caller did not ask to stop there.
    const cut = input.endLine === undefined || input.endLine > last;
    const truncated = cut && (totalLines !== undefined ? totalLines > last : lines.length === READ_FILE_MAX_LINES);
    return {
      path: file.path,
      ...(file.language ? { language: file.language } : {}),
      startLine: lines.length ? start : 0,
      endLine: lines.length ? last : 0,
      ...(totalLines !== undefined ? { totalLines } : {}),
      lines: lines.map((text, index) => ({ number: start + index, text })),
      truncated,
      redactions: file.redactions,
      ...(version ? { version } : {}),
    };
  }
}

/** A file's identity from its stat, for one too large to hash on every page: any write moves its mtime or ctime. */
async function statVersion(root: string, userPath: string): Promise<string | undefined> {
  try {
    const resolved = await resolveInsideRoot(root, userPath);
    const { size, mtimeMs, ctimeMs, ino } = resolved.stats;
    return `s:${shortHash(`${size}:${mtimeMs}:${ctimeMs}:${ino}`)}`;
  } catch {
    return undefined; // the read that follows reports what is wrong with the path
  }
}

/** 96 bits of a hash, in 16 characters: what a cursor carries of a version. */
function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

/** The arguments that name a file or directory inside the repository. */
const PATH_ARGUMENTS = ['path', 'directory'] as const;

/**
 * Agents often name files by absolute path: one inside the repository (as named, or as its real
 * path) becomes relative to it. Any other absolute path is left for the workspace library to
 * refuse (path_outside_root).
 */
function withRelativePaths<I extends Record<string, unknown>>(input: I, roots: string[]): I {
  let result = input;
  for (const name of PATH_ARGUMENTS) {
    const value = input[name];
    if (typeof value !== 'string' || !path.isAbsolute(value)) continue;
    for (const root of roots) {
      if (!path.isAbsolute(root) || !isInside(root, value)) continue;
      result = { ...result, [name]: path.relative(root, value).split(path.sep).join('/') || '.' };
      break;
    }
  }
  return result;
}

/** Lines without their terminators; a final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}
