import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  READ_FILE_MAX_LINES,
  WORKSPACE_TOOL_CONTRACTS,
  type WorkspaceToolInput,
  type WorkspaceToolName,
  type WorkspaceToolResult,
} from '@quarry/contracts';
import { humanBytes } from '@quarry/render';
import { chooseRepository, repositoryFields, toolInputFrom } from './repository-argument';
import { defineTool, type ToolSpec } from './tool-spec';

interface WorkspaceToolSpec<T extends WorkspaceToolName> {
  name: T;
  title: string;
  description: string;
  fields: Record<string, string>;
  render(result: WorkspaceToolResult<T>, input: WorkspaceToolInput<T>): string;
}

/** Every workspace tool reads a directory or a git URL; said once, after each description. */
const BY_URL = 'The repository is a directory, or a git URL with an optional ref (branch, tag or commit): for a URL the answer names the commit it read.';

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A tool over one workspace operation: the operation's contract (`root`/`source` as `repository` and `ref`), answered at once. */
function workspaceTool<T extends WorkspaceToolName>(spec: WorkspaceToolSpec<T>): ToolSpec {
  const contract = WORKSPACE_TOOL_CONTRACTS[spec.name];
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: `${spec.description} ${BY_URL}`,
    input: toolInputFrom(contract.input, spec.fields),
    output: contract.result,
    annotations: READ_ONLY,
    async run(args, { backend, signal }) {
      const { repository, ref, ...rest } = args as Record<string, unknown> & { repository?: string; ref?: string };
      const input = { ...rest, ...repositoryFields(chooseRepository(repository, backend.defaultRepository), ref) } as WorkspaceToolInput<T>;
      const result = await backend.runWorkspaceTool(spec.name, input, signal);
      const text = spec.render(result, input);
      return { text: result.commit ? `${text}\n(at commit ${result.commit})` : text, structured: result as Record<string, unknown> };
    },
  });
}

const plural = (count: number, word: string) => `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;

export const WORKSPACE_TOOLS: readonly ToolSpec[] = [
  workspaceTool({
    name: 'read_file',
    title: 'Read a file',
    description: `Read a file of a repository, or a range of its lines. Returns the lines with their 1-based line numbers, at most ${READ_FILE_MAX_LINES.toLocaleString('en-US')} per call (when more follow, the answer says so; call again with startLine). Credentials in the file are redacted. Refuses binary files and paths outside the repository; a missing path comes back as file_not_found with the closest existing paths.`,
    fields: {
      path: 'The file, relative to the repository root (e.g. "src/app.ts"), or its absolute path inside the repository.',
      startLine: 'First line to return, 1-based (default 1).',
      endLine: `Last line to return, inclusive (default: the end of the file, at most ${READ_FILE_MAX_LINES.toLocaleString('en-US')} lines after startLine).`,
    },
    render: (result) => {
      const width = String(result.endLine).length;
      const span = result.lines.length ? `lines ${result.startLine}-${result.endLine}` : 'empty';
      const header = `${result.path} (${span}${result.totalLines !== undefined ? ` of ${result.totalLines}` : ''})`;
      const body = result.lines.map((line) => `${String(line.number).padStart(width)}\t${line.text}`);
      const more = result.truncated ? [`… more lines follow; call read_file with startLine ${result.endLine + 1} to continue.`] : [];
      return [header, ...body, ...more].join('\n');
    },
  }),
  workspaceTool({
    name: 'list_directory',
    title: 'List a directory',
    description:
      'List a directory of a repository the way git sees it (ignored files and .git left out; directories are those holding at least one file): sub-directories first (with a trailing /), then files with their sizes. Set recursive to see the tree below it, 4 levels deep. At most 200 entries; totalEntries counts them all.',
    fields: {
      path: 'The directory, relative to the repository root (or absolute, inside it); "." (default) is the root.',
      recursive: 'List everything below the directory (up to 4 levels) instead of its direct children (default false).',
      pattern: 'Only entries whose name matches this glob, e.g. "*.ts"; with a "/" it matches paths below the directory.',
    },
    render: (result) => {
      const lines = result.entries.map((entry) => (entry.type === 'directory' ? `${entry.path}/` : `${entry.path}  ${humanBytes(entry.size ?? 0)}`));
      if (result.truncated) lines.push(`… ${result.totalEntries - result.entries.length} more (${plural(result.totalEntries, 'entry')} in all)`);
      return lines.length ? lines.join('\n') : `${result.path || '.'} is empty (or holds only ignored files)`;
    },
  }),
  workspaceTool({
    name: 'find_files',
    title: 'Find files by name or glob',
    description:
      'Find files anywhere in a repository (recursive, gitignore-aware) by a plain name ("config.json"), a path tail ("api/index.ts") or a glob ("**/*.test.ts", "src/{a,b}.ts"). Shallowest paths first. When nothing matches exactly, names are compared ignoring case and the answer says so.',
    fields: {
      pattern: 'A file name, a path tail or a glob.',
      directory: 'Only look below this directory, relative to the repository root (default: the whole repository).',
      maxResults: 'Paths returned at most (default 100); total counts every match.',
    },
    render: (result, input) => {
      if (result.total === 0) return `no files match "${input.pattern}"`;
      const lines = [...result.matches];
      if (result.caseInsensitive) lines.unshift(`(no exact match; these match "${input.pattern}" ignoring case)`);
      if (result.truncated) lines.push(`… ${result.total - result.matches.length} more (${plural(result.total, 'match')} in all)`);
      return lines.join('\n');
    },
  }),
  workspaceTool({
    name: 'search_text',
    title: 'Search the text of a repository',
    description:
      'Search the text files of a repository (gitignore-aware; binary and very large files skipped) for a literal string, case-insensitive, or with regex: true for an RE2 regular expression, case-sensitive unless it starts with (?i) (RE2 has no lookaround or backreferences). Returns matching lines as path:line: text, the first maxResults by path and line; totalMatches counts every matching line.',
    fields: {
      pattern: 'The text to find, or with regex: true the regular expression.',
      regex: 'Treat pattern as an RE2 regular expression instead of literal text (default false).',
      directory: 'Only search below this directory, relative to the repository root (default: the whole repository).',
      glob: 'Only files matching this glob: "*.ts" matches names at any depth, "src/**/*.tsx" matches paths.',
      maxResults: 'Matching lines returned at most (default 50).',
      contextLines: 'Lines shown before and after each match (default 0, at most 20).',
    },
    render: (result) => {
      const lines: string[] = [];
      for (const match of result.matches) {
        match.before.forEach((text, index) => lines.push(`${match.path}-${match.line - match.before.length + index}- ${text}`));
        lines.push(`${match.path}:${match.line}: ${match.text}`);
        match.after.forEach((text, index) => lines.push(`${match.path}-${match.line + index + 1}- ${text}`));
      }
      const notes = [
        `${plural(result.totalMatches, 'matching line')} in ${plural(result.filesMatched, 'file')} (${plural(result.filesSearched, 'file')} searched)`,
        result.truncated ? `first ${result.matches.length} shown` : undefined,
        result.timedOut ? 'the time budget ran out: counts cover only the files searched before it' : undefined,
      ].filter(Boolean);
      lines.push(`(${notes.join('; ')})`);
      return lines.join('\n');
    },
  }),
];
