import { z } from 'zod';

/**
 * The tools a plan may call. One registry feeds the AI prompt (descriptions), the structured-output
 * schema (tool names, argument types), the normalizer (which arguments are paths, which are
 * required) and the executor (the approval gate reads `mutates`).
 */

/** Limits every plan is held to, whoever wrote it. */
export const TOOL_CAPS = {
  /** Hits a search or grep step may ask for. */
  maxResults: 200,
  /** Lines one read_file step may span. */
  readSpanLines: 2_000,
  /** Steps one plan may run. */
  maxSteps: 5,
} as const;

/** How an argument is treated by the normalizer. */
export type ArgRole = 'file' | 'directory' | 'glob' | 'url' | 'text' | 'number' | 'flag';

export interface ToolSpec {
  name: string;
  /** One or two sentences: what the tool does and when to choose it (sent to the model). */
  description: string;
  /** Arguments as the executor receives them: optional ones are `.optional()`. */
  args: z.ZodObject;
  /** What each argument is, so paths are checked and globs are not. */
  roles: Record<string, ArgRole>;
  /** True for tools that change anything; such steps run only when the caller approves them. */
  mutates: boolean;
}

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const relativePath = z.string().min(1).max(4096);
const glob = z.string().min(1).max(1_000);
const line = z.number().int().min(1);
const maxResults = z.number().int().min(1);

export const READ_ONLY_TOOLS: readonly ToolSpec[] = [
  {
    name: 'list_files',
    description:
      'List what is in one directory (names, sizes, modification times): also the tool for "how big is" / "when was … modified" about a file (its directory, pattern = its name). Set recursive only when the user asks for everything under it, the whole tree, the project structure or "recursively". pattern filters names by extension or glob, e.g. "*.ts". Hidden (dot) entries are left out unless hidden is true ("ls -a", "including hidden files"); for only the hidden ones add pattern ".*". max_results caps the entries ("first 10 files").',
    args: z.object({ directory: relativePath, recursive: z.boolean().optional(), pattern: glob.optional(), hidden: z.boolean().optional(), max_results: maxResults.optional() }),
    roles: { directory: 'directory', recursive: 'flag', pattern: 'glob', hidden: 'flag', max_results: 'number' },
    mutates: false,
  },
  {
    name: 'find_files',
    description:
      'Find files by name or glob anywhere below a directory (always recursive): "find", "locate", "where is <file name>", "files with X in the name" (*X*), "files ending in .lock" (*.lock). Hidden (dot) files are left out unless hidden is true or the pattern starts with a dot. max_results caps the paths returned.',
    args: z.object({ pattern: glob, directory: relativePath.optional(), hidden: z.boolean().optional(), max_results: maxResults.optional() }),
    roles: { pattern: 'glob', directory: 'directory', hidden: 'flag', max_results: 'number' },
    mutates: false,
  },
  {
    name: 'read_file',
    description: 'Show a file, or a range of its lines: "lines a-b", "line n", "first N lines", "from line n". Lines are 1-based and inclusive.',
    args: z.object({ path: relativePath, start_line: line.optional(), end_line: line.optional() }),
    roles: { path: 'file', start_line: 'number', end_line: 'number' },
    mutates: false,
  },
  {
    name: 'search',
    description:
      'Plain-text search across files, for words, identifiers or phrases, even with "." or "()" in them: "where is X defined/used", "which files mention/contain X", "are there any X", "how many times does X appear". max_results caps the matches ("first 5").',
    args: z.object({ query: z.string().min(1).max(1_000), directory: relativePath.optional(), max_results: maxResults.optional() }),
    roles: { query: 'text', directory: 'directory', max_results: 'number' },
    mutates: false,
  },
  {
    name: 'grep',
    description:
      'Regular-expression search (RE2 syntax). Use it when the user says grep or regex, gives a regular expression or an anchor (^, $, "lines starting with"), or restricts the search to a file type (glob such as "*.ts"). max_results caps the matches.',
    args: z.object({ pattern: glob, directory: relativePath.optional(), glob: glob.optional(), max_results: maxResults.optional() }),
    roles: { pattern: 'text', directory: 'directory', glob: 'glob', max_results: 'number' },
    mutates: false,
  },
  {
    name: 'detect_stack',
    description: 'Detect the languages, frameworks, build system and commands of a project directory: "what language/framework is this", "how do I build/run this".',
    args: z.object({ directory: relativePath }),
    roles: { directory: 'directory' },
    mutates: false,
  },
  {
    name: 'find_relevant_code',
    description:
      'Rank the code an open question about this repository touches (task-aware retrieval over names, messages, text and the reference graph) and return the best files and definition-sized spans with their code: "where is rate limiting handled?", "which code handles login retries?", "how does the app authenticate users?". task = the question as asked. When the question names an exact identifier, string or file to find, search or find_files is better; questions about the world in general need no tools. max_results caps the files and spans listed.',
    args: z.object({ task: z.string().min(1).max(4_000), max_results: maxResults.optional() }),
    roles: { task: 'text', max_results: 'number' },
    mutates: false,
  },
  {
    name: 'fetch_url',
    description: 'Fetch an http(s) URL the user gave, verbatim, and return its text.',
    args: z.object({ url: z.string().min(1).max(8_192) }),
    roles: { url: 'url' },
    mutates: false,
  },
];

export class ToolRegistry {
  private readonly tools = new Map<string, ToolSpec>();
  /** Argument name → the zod type every tool declaring it agrees on (the plan schema has one slot per name). */
  private readonly argTypes = new Map<string, z.ZodType>();

  constructor(tools: readonly ToolSpec[] = READ_ONLY_TOOLS) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool. Names are unique; an argument name shared by two tools must mean the same type. */
  register(tool: ToolSpec): this {
    if (!NAME.test(tool.name)) throw new TypeError(`Tool name "${tool.name}" must match ${NAME}`);
    if (this.tools.has(tool.name)) throw new TypeError(`Tool "${tool.name}" is already registered`);
    for (const [arg, type] of Object.entries(tool.args.shape)) {
      if (!tool.roles[arg]) throw new TypeError(`Tool "${tool.name}": argument "${arg}" has no role`);
      const base = unwrapOptional(type as z.ZodType);
      const known = this.argTypes.get(arg);
      if (known && JSON.stringify(z.toJSONSchema(known)) !== JSON.stringify(z.toJSONSchema(base))) {
        throw new TypeError(`Tool "${tool.name}": argument "${arg}" has a different type than in another tool`);
      }
      if (!known) this.argTypes.set(arg, base);
    }
    this.tools.set(tool.name, tool);
    return this;
  }

  get(name: string): ToolSpec | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  list(): ToolSpec[] {
    return [...this.tools.values()];
  }

  /** Every argument name across the registry with its (non-optional) type, for the plan schema. */
  argumentTypes(): ReadonlyMap<string, z.ZodType> {
    return this.argTypes;
  }
}

/** Names of a tool's arguments that must be present. */
export function requiredArgs(tool: ToolSpec): string[] {
  return Object.entries(tool.args.shape)
    .filter(([, type]) => !(type as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
}

function unwrapOptional(type: z.ZodType): z.ZodType {
  return type instanceof z.ZodOptional ? (type.unwrap() as z.ZodType) : type;
}

/** The registry of the read-only tools (issue 6's seven and issue 30's find_relevant_code; a fresh one, so callers may add their own). */
export function defaultToolRegistry(): ToolRegistry {
  return new ToolRegistry(READ_ONLY_TOOLS);
}
