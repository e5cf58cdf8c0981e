import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  QuarryError,
  WORKSPACE_TOOL_CONTRACTS,
  type WorkspaceToolInput,
  type WorkspaceToolName,
  type WorkspaceToolResult,
} from '@quarry/contracts';
import { formatBytes } from '@quarry/contracts/format';
import { DEFAULT_MAX_ENTRIES } from '@quarry/workspace';
import { staleCursor } from './answer-cursor';
import type { ListAnswer, PageSlice, StreamAnswer } from './paged-answer';
import { chooseRepository, repositoryFields, toolInputFrom } from './repository-argument';
import { defineTool, withPagingArguments, type ToolAnswer, type ToolContext, type ToolSpec } from './tool-spec';
import type { ToolsetName } from './toolsets';
import type { WorkspaceAnswer } from './workspace-operations';

/** A workspace tool's call, resolved: the operation's input and where the page starts. */
interface WorkspaceCall<T extends WorkspaceToolName> {
  input: WorkspaceToolInput<T>;
  context: ToolContext;
}

interface WorkspaceToolSpec<T extends WorkspaceToolName> {
  name: T;
  title: string;
  toolset: ToolsetName;
  description: string;
  whenToUse: string;
  example: Record<string, unknown>;
  fields: Record<string, string>;
  /** Reads what the page needs and says how its items read. */
  answer(call: WorkspaceCall<T>, read: (input: WorkspaceToolInput<T>, atLeast?: number) => Promise<WorkspaceAnswer<T>>): Promise<ToolAnswer>;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * A tool over one workspace operation: the operation's contract (`root`/`source` as `repository`
 * and `ref`), answered at once, a page at a time. A continuation of a git URL reads the commit
 * its first page read, whatever the ref names now.
 */
function workspaceTool<T extends WorkspaceToolName>(spec: WorkspaceToolSpec<T>): ToolSpec {
  const contract = WORKSPACE_TOOL_CONTRACTS[spec.name];
  return defineTool({
    name: spec.name,
    title: spec.title,
    toolset: spec.toolset,
    description: spec.description,
    whenToUse: spec.whenToUse,
    example: spec.example,
    input: withPagingArguments(toolInputFrom(contract.input, spec.fields)),
    output: contract.result,
    annotations: READ_ONLY,
    paged: true,
    async run(args, context) {
      const { repository, ref, maxTokens: _maxTokens, cursor: _cursor, ...rest } = args as Record<string, unknown> & { repository?: string; ref?: string };
      const fields = repositoryFields(chooseRepository(repository, context.backend.defaultRepository), context.cursor?.commit ?? ref);
      const input = { ...rest, ...fields } as WorkspaceToolInput<T>;
      const answer = await spec.answer({ input, context }, (given, atLeast) => context.backend.runWorkspaceTool(spec.name, given, context.signal, atLeast ? { atLeast } : {}));
      return answer;
    },
  });
}

/** What every workspace answer adds: the commit it read, said at the end of the text too. */
function atCommit(text: string, result: { commit?: string }): string {
  return result.commit ? `${text}\n(at commit ${result.commit})` : text;
}

/** The repository's index state for the answer, when the backend can tell it. */
async function indexOf(context: ToolContext, input: WorkspaceToolInput<WorkspaceToolName>, result: { commit?: string }, read: 'index' | 'files') {
  const { root, source } = input as { root?: string; source?: { git: string; ref?: string } };
  const repository = root !== undefined ? { root } : { source: source! };
  return context.backend.indexState?.(repository, { commit: result.commit, read, signal: context.signal });
}

const plural = (count: number, word: string) => `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;

/** One line of a file, or a part of a line too long for a page (then `column` says where it starts). */
interface LinePiece {
  number: number;
  text: string;
  column?: number;
  /** The line goes on after this piece. */
  continues?: boolean;
}

/** Where a read_file page starts: a line, and within a split line the column. */
interface FilePosition {
  line: number;
  column: number;
}

function filePosition(value: unknown): FilePosition | undefined {
  const position = value as FilePosition | undefined;
  if (!position || !Number.isInteger(position.line) || position.line < 1 || !Number.isInteger(position.column) || position.column < 1) return undefined;
  return position;
}

/** A line longer than this many characters is cut into parts, so one line never outgrows a page. */
function pieceCharacters(maxTokens: number): number {
  return Math.max(250, Math.min(2_000, Math.floor(maxTokens / 4)));
}

function piecesOf(lines: { number: number; text: string }[], from: FilePosition, size: number): LinePiece[] {
  const pieces: LinePiece[] = [];
  for (const line of lines) {
    const start = line.number === from.line ? from.column - 1 : 0;
    if (start === 0 && line.text.length <= size) {
      pieces.push({ number: line.number, text: line.text });
      continue;
    }
    let at = start;
    do {
      pieces.push({ number: line.number, text: line.text.slice(at, at + size), ...(at > 0 ? { column: at + 1 } : {}), ...(at + size < line.text.length ? { continues: true } : {}) });
      at += size;
    } while (at < line.text.length);
  }
  return pieces;
}

const renderPiece = (piece: LinePiece, width: number) => `${(piece.column ? `${piece.number}:${piece.column}` : String(piece.number)).padStart(width)}\t${piece.text}`;

export const WORKSPACE_TOOLS: readonly ToolSpec[] = [
  workspaceTool({
    name: 'read_file',
    title: 'Read a file',
    toolset: 'files',
    description:
      'A file of a repository, or a range of its lines, each with its 1-based number (a very long line is split as line:column). Credentials are redacted; binary files and paths outside the repository are refused; a missing path is file_not_found naming the closest.',
    whenToUse: 'Use it to read code you found; a file larger than maxTokens comes in pages (continue with cursor).',
    example: { path: 'src/app.ts', startLine: 40, endLine: 120 },
    fields: {
      path: 'The file, relative to the repository (or absolute, inside it).',
      startLine: 'First line, 1-based (default 1).',
      endLine: 'Last line, inclusive (default: the end).',
    },
    async answer({ input, context }, read) {
      const start = filePosition(context.cursor?.at) ?? { line: input.startLine ?? 1, column: 1 };
      if (context.cursor && !filePosition(context.cursor.at)) throw new QuarryError('cursor_invalid', 'The cursor does not hold a position in a file.', { suggestion: 'Pass nextCursor exactly as read_file gave it.' });
      const result = await readWindow(input, start, read).catch((error: unknown) => {
        // A continuation past the end: the file got shorter since the cursor was handed out.
        if (context.cursor && error instanceof QuarryError && error.kind === 'range_invalid') throw staleCursor('read_file', 'file');
        throw error;
      });
      const lines = piecesOf(result.lines, start, pieceCharacters(context.maxTokens));
      const stream: StreamAnswer<LinePiece> = {
        paged: true,
        kind: 'stream',
        unit: 'line',
        items: lines,
        total: input.endLine !== undefined && result.totalLines !== undefined ? Math.min(input.endLine, result.totalLines) : (input.endLine ?? result.totalLines),
        moreAfter: result.truncated,
        ordinalOf: (piece) => piece.number,
        positionAfter: (piece): FilePosition => (piece.continues ? { line: piece.number, column: (piece.column ?? 1) + piece.text.length } : { line: piece.number + 1, column: 1 }),
        version: result.version ?? `lines:${result.path}`,
        commit: result.commit,
        textOf: (piece) => renderPiece(piece, 6),
        describeRest: (slice) => restOfFile(slice, result),
        build: (slice) => {
          const shown = slice.items;
          const width = Math.max(...shown.map((piece) => (piece.column ? `${piece.number}:${piece.column}` : String(piece.number)).length), 1);
          const span = shown.length ? `lines ${shown[0].number}-${shown[shown.length - 1].number}` : result.lines.length ? 'no lines' : 'empty';
          const header = `${result.path} (${span}${result.totalLines !== undefined ? ` of ${result.totalLines}` : ''})`;
          const structured: WorkspaceToolResult<'read_file'> = {
            ...(result.commit ? { commit: result.commit } : {}),
            path: result.path,
            ...(result.language ? { language: result.language } : {}),
            startLine: shown.length ? shown[0].number : 0,
            endLine: shown.length ? shown[shown.length - 1].number : 0,
            ...(result.totalLines !== undefined ? { totalLines: result.totalLines } : {}),
            lines: shown.map((piece) => ({ number: piece.number, text: piece.text, ...(piece.column ? { column: piece.column } : {}) })),
            truncated: slice.more,
            // Counted over what this read covered: the page's share is not known per line.
            redactions: result.redactions,
            ...(result.version ? { version: result.version } : {}),
          };
          return { text: atCommit([header, ...shown.map((piece) => renderPiece(piece, width))].join('\n'), result), structured };
        },
      };
      return { ...stream, index: await indexOf(context, input, result, 'files') };
    },
  }),
  workspaceTool({
    name: 'list_directory',
    title: 'List a directory',
    toolset: 'files',
    description:
      'A directory as git sees it (ignored files and .git left out; a directory is listed when it holds a file): sub-directories first (with a trailing /), then files with sizes. recursive lists 4 levels down; totalEntries counts them all.',
    whenToUse: 'Use it to see how a repository or a folder is laid out before reading files.',
    example: { path: 'src', recursive: true },
    fields: {
      path: 'The directory (default ".", the root).',
      recursive: 'List 4 levels down, not just the children (default false).',
      pattern: 'Only names matching this glob ("*.ts"); with a "/", paths below.',
    },
    async answer({ input, context }, read) {
      const at = listPosition(context);
      const result = await read(input, at + DEFAULT_MAX_ENTRIES);
      type Entry = WorkspaceToolResult<'list_directory'>['entries'][number];
      const render = (entry: Entry) => (entry.type === 'directory' ? `${entry.path}/` : `${entry.path}  ${formatBytes(entry.size ?? 0)}`);
      const list: ListAnswer<Entry> = {
        paged: true,
        kind: 'list',
        unit: 'entry',
        items: result.entries,
        total: result.totalEntries,
        perPage: DEFAULT_MAX_ENTRIES,
        commit: result.commit,
        textOf: render,
        build: (slice) => {
          const lines = slice.items.map(render);
          const text = lines.length ? lines.join('\n') : `${result.path || '.'} is empty (or holds only ignored files)`;
          return { text: atCommit(text, result), structured: { ...result, entries: slice.items, truncated: slice.more } };
        },
      };
      return { ...list, index: await indexOf(context, input, result, 'files') };
    },
  }),
  workspaceTool({
    name: 'find_files',
    title: 'Find files by name or glob',
    toolset: 'files',
    description:
      'Files anywhere in a repository (gitignore-aware) by a plain name ("config.json"), a path tail ("api/index.ts") or a glob ("**/*.test.ts"), shallowest first. With no exact match, names are compared ignoring case and the answer says so.',
    whenToUse: 'Faster than listing directories when you know (part of) a name.',
    example: { pattern: '**/*.test.ts', directory: 'src' },
    fields: {
      pattern: 'A file name, a path tail or a glob.',
      directory: 'Only below this directory (default: everywhere).',
      maxResults: 'Paths per page (default 100); total counts all.',
    },
    async answer({ input, context }, read) {
      const at = listPosition(context);
      const result = await read(input, at + input.maxResults);
      const list: ListAnswer<string> = {
        paged: true,
        kind: 'list',
        unit: 'path',
        items: result.matches,
        total: result.total,
        perPage: input.maxResults,
        commit: result.commit,
        textOf: (path) => path,
        build: (slice) => {
          if (result.total === 0) return { text: atCommit(`no files match "${input.pattern}"`, result), structured: { ...result } };
          const lines = [...slice.items];
          if (result.caseInsensitive) lines.unshift(`(no exact match; these match "${input.pattern}" ignoring case)`);
          return { text: atCommit(lines.join('\n'), result), structured: { ...result, matches: slice.items, truncated: slice.more } };
        },
      };
      return { ...list, index: await indexOf(context, input, result, 'files') };
    },
  }),
  workspaceTool({
    name: 'search_text',
    title: 'Search the text of a repository',
    toolset: 'search',
    description:
      'Matching lines of a repository\'s text files as path:line: text (gitignore-aware; binary and very large files skipped): a literal string, case-insensitive, or with regex: true an RE2 regex, case-sensitive unless it starts with (?i) (no lookaround, no backreferences). By path and line; totalMatches counts every matching line.',
    whenToUse: 'Use it as grep: counts as rg -c does, answers from a trigram index (a scanned commit\'s; a checkout\'s HEAD, built on its first search) in milliseconds, and sees files you just edited.',
    example: { pattern: 'parseConfig(', glob: '*.ts', contextLines: 2 },
    fields: {
      pattern: 'The text to find (or the regex).',
      regex: 'pattern is an RE2 regex (default false: literal).',
      directory: 'Only below this directory (default: everywhere).',
      glob: 'Only these files: "*.ts" by name at any depth, "src/**/*.tsx" by path.',
      maxResults: 'Matches per page (default 50); all are counted.',
      contextLines: 'Lines around each match (default 0, max 20).',
    },
    async answer({ input, context }, read) {
      const at = listPosition(context);
      const result = await read(input, at + input.maxResults);
      type Match = WorkspaceToolResult<'search_text'>['matches'][number];
      const render = (match: Match) =>
        [
          ...match.before.map((text, index) => `${match.path}-${match.line - match.before.length + index}- ${text}`),
          `${match.path}:${match.line}: ${match.text}`,
          ...match.after.map((text, index) => `${match.path}-${match.line + index + 1}- ${text}`),
        ].join('\n');
      const { indexed, ...contract } = result;
      const list: ListAnswer<Match> = {
        paged: true,
        kind: 'list',
        unit: 'match',
        items: result.matches,
        total: result.totalMatches,
        perPage: input.maxResults,
        commit: result.commit,
        textOf: render,
        build: (slice) => {
          const notes = [
            `${plural(result.totalMatches, 'matching line')} in ${plural(result.filesMatched, 'file')} (${plural(result.filesSearched, 'file')} searched${indexed ? ', through the index' : ''})`,
            result.timedOut ? 'the time budget ran out: counts cover only the files searched before it' : undefined,
          ].filter(Boolean);
          const text = [...slice.items.map(render), `(${notes.join('; ')})`].join('\n');
          return { text: atCommit(text, result), structured: { ...contract, matches: slice.items, truncated: slice.more } };
        },
      };
      return { ...list, index: await indexOf(context, input, result, indexed ? 'index' : 'files') };
    },
  }),
];

/** A list page's first ordinal: the cursor's (checked against the items by the pager), else 0. */
function listPosition(context: ToolContext): number {
  const at = context.cursor?.at;
  if (at === undefined) return 0;
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0) {
    throw new QuarryError('cursor_invalid', 'The cursor does not hold a position in a list.', { suggestion: 'Pass nextCursor exactly as the previous answer gave it.' });
  }
  return at;
}

/**
 * A window of the file from `start`: as the operation reads it (up to READ_FILE_MAX_LINES lines),
 * or, when those lines are over the byte cap of one read (very long lines in a large file),
 * fewer lines at a time.
 */
async function readWindow(
  input: WorkspaceToolInput<'read_file'>,
  start: FilePosition,
  read: (input: WorkspaceToolInput<'read_file'>) => Promise<WorkspaceAnswer<'read_file'>>,
): Promise<WorkspaceAnswer<'read_file'>> {
  const windows = [undefined, 200, 20, 1];
  for (const [attempt, lines] of windows.entries()) {
    const endLine = lines === undefined ? input.endLine : Math.min(input.endLine ?? Number.MAX_SAFE_INTEGER, start.line + lines - 1);
    try {
      const result = await read({ ...input, startLine: start.line, ...(endLine !== undefined ? { endLine } : {}) });
      if (lines === undefined) return result;
      // A window narrower than asked: more lines follow unless the file (or the asked range) ends in it.
      const last = result.lines.at(-1)?.number ?? start.line - 1;
      const end = Math.min(input.endLine ?? Number.MAX_SAFE_INTEGER, result.totalLines ?? Number.MAX_SAFE_INTEGER);
      return { ...result, truncated: last < end };
    } catch (error) {
      if (!(error instanceof QuarryError) || error.kind !== 'file_too_large' || attempt === windows.length - 1) throw error;
    }
  }
  throw new Error('unreachable');
}

function restOfFile(slice: PageSlice<LinePiece>, result: WorkspaceToolResult<'read_file'>): string {
  const lastShown = slice.items.at(-1);
  const from = lastShown ? (lastShown.continues ? lastShown.number : lastShown.number + 1) : slice.first || result.startLine;
  const to = result.totalLines;
  const part = lastShown?.continues ? ` (line ${lastShown.number} from column ${(lastShown.column ?? 1) + lastShown.text.length})` : '';
  return to !== undefined ? `lines ${from.toLocaleString('en-US')}-${to.toLocaleString('en-US')}${part}` : `line ${from.toLocaleString('en-US')} on${part} (a file over the size cap: its length is not counted)`;
}
