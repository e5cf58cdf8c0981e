import { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  JOB_CONTRACTS,
  type IndexState,
  type JobInput,
  type JobKind,
  type JobResult,
  detectResultSchema,
  fetchResultSchema,
  interpretResultSchema,
  mapResultSchema,
  mentionsResultSchema,
  packResultSchema,
  scanResultSchema,
  symbolsResultSchema,
  contextResultSchema,
} from '@quarry/contracts';
import { summarizeMentions } from '@quarry/mentions';
import { formatAnswer, formatContextSummary, formatFetched, formatMap, formatPack, formatScanSummary, formatServices, formatSymbols } from '@quarry/render';
import type { QuarryBackend } from './backend';
import type { ListAnswer } from './paged-answer';
import { chooseRepository, describeFields, repositoryFields, toolInputFrom } from './repository-argument';
import { defineTool, withPagingArguments, type ToolSpec } from './tool-spec';
import type { ToolsetName } from './toolsets';

/**
 * How a job's result is cut into pages: the items of a list field (or of the result itself, a
 * list), or the lines of a text field.
 */
type JobPages = { list: string; unit: string } | { list: 'self'; unit: string } | { text: string };

interface JobToolSpec<K extends JobKind, O extends z.ZodObject> {
  name: string;
  kind: K;
  title: string;
  toolset: ToolsetName;
  description: string;
  whenToUse: string;
  example: Record<string, unknown>;
  /** A description for every field of the kind's input contract (`root` becomes `repository`). */
  fields: Record<string, string>;
  output: O;
  annotations: ToolAnnotations;
  /** The result as the agent reads it, and as data matching `output`. */
  present(result: JobResult<K>): { text: string | string[]; structured: z.infer<O> };
  /** The answer can outgrow a window: where its items are (the tool then takes maxTokens and cursor). */
  pages?: JobPages;
  /** What the result reads its repository from, for the answer's index state. */
  reads?: IndexState['read'];
}

/**
 * A tool that runs one job kind: its input is the kind's contract (`root` as `repository`), it
 * relays the job's progress, and cancelling the call cancels the job. A paged one hands out
 * cursors naming the job: the next page reads the job's stored result back (a gateway keeps it
 * in Postgres), or runs the job again where it is gone (a restarted `quarry mcp`) and continues
 * only if the items before the page are still the same.
 */
function jobTool<K extends JobKind, O extends z.ZodObject>(spec: JobToolSpec<K, O>): ToolSpec {
  const contract = JOB_CONTRACTS[spec.kind].input as z.ZodObject;
  const readsRepository = 'root' in contract.shape;
  const input = readsRepository ? toolInputFrom(contract, spec.fields) : describeFields(contract.strict(), spec.fields);
  return defineTool({
    name: spec.name,
    title: spec.title,
    toolset: spec.toolset,
    description: spec.description,
    whenToUse: spec.whenToUse,
    example: spec.example,
    input: spec.pages ? withPagingArguments(input) : input,
    output: spec.output,
    annotations: spec.annotations,
    paged: spec.pages !== undefined,
    jobKind: spec.kind,
    async run(args, context) {
      const { backend, signal, progress } = context;
      const { repository, ref, ...given } = args as Record<string, unknown> & { repository?: string; ref?: string };
      // A paged tool's maxTokens and cursor are the answer's; pack_repository's maxTokens is its job's.
      const { maxTokens: _maxTokens, cursor: _cursor, ...paged } = given;
      const rest = spec.pages ? paged : given;
      const fields = readsRepository ? repositoryFields(chooseRepository(repository, backend.defaultRepository), context.cursor?.commit ?? ref) : undefined;
      const jobInput = { ...rest, ...fields } as JobInput<K>;
      const kept = context.cursor?.job ? await keptResult(backend, context.cursor.job, spec.kind) : undefined;
      const { jobId, result } =
        kept ??
        (await backend.runJob(spec.kind, jobInput, {
          signal,
          onProgress: (report) => progress?.report(report),
          onJob: (id) => progress?.announce(`queued as job ${id}`),
        }));
      // The commit the job read, when its result names one (`source`: a resolved repository).
      const named = (result as { source?: unknown }).source;
      const source = named && typeof named === 'object' ? (named as { commit?: string; git?: string }) : undefined;
      const index = fields && spec.reads ? await backend.indexState?.(fields, { commit: source?.commit, read: spec.reads, signal }) : undefined;
      const pinned = source?.git ? source.commit : undefined;
      if (!spec.pages) return { ...spec.present(result), jobId, ...(index ? { index } : {}) };
      return { ...pagesOf(spec, result, spec.pages), jobId, ...(pinned ? { commit: pinned } : {}), ...(index ? { index } : {}) };
    },
  });
}

/** A job's stored result, when the job is still kept and is of this kind; else undefined (run it again). */
async function keptResult<K extends JobKind>(backend: QuarryBackend, jobId: string, kind: K): Promise<{ jobId: string; result: JobResult<K> } | undefined> {
  try {
    const job = await backend.getJob(jobId);
    return job.kind === kind && job.status === 'succeeded' && job.result ? { jobId, result: job.result as JobResult<K> } : undefined;
  } catch {
    return undefined;
  }
}

/** The result's items as a list answer: sliced in the result, presented as the whole would be. */
function pagesOf<K extends JobKind, O extends z.ZodObject>(spec: JobToolSpec<K, O>, result: JobResult<K>, pages: JobPages): ListAnswer<unknown> {
  const record = result as Record<string, unknown>;
  if ('list' in pages) {
    const whole = pages.list === 'self';
    const items = (whole ? result : record[pages.list]) as unknown[];
    return {
      paged: true,
      kind: 'list',
      unit: pages.unit,
      items,
      build: (slice) => spec.present((whole ? slice.items : { ...record, [pages.list]: slice.items }) as JobResult<K>),
    };
  }
  const lines = splitText(record[pages.text] as string);
  return {
    paged: true,
    kind: 'list',
    unit: 'line',
    items: lines,
    textOf: (line) => line as string,
    build: (slice) => spec.present({ ...record, [pages.text]: slice.items.join('\n') } as JobResult<K>),
  };
}

/** A document's lines, a line longer than a page could hold cut into parts (joined again by the next line break on the page). */
function splitText(text: string): string[] {
  if (text === '') return [];
  return text.split('\n').flatMap((line) => {
    if (line.length <= DOCUMENT_LINE_CHARACTERS) return [line];
    const parts: string[] = [];
    for (let at = 0; at < line.length; at += DOCUMENT_LINE_CHARACTERS) parts.push(line.slice(at, at + DOCUMENT_LINE_CHARACTERS));
    return parts;
  });
}

/** Lines of a paged document longer than this are cut: even the smallest budget holds one part. */
const DOCUMENT_LINE_CHARACTERS = 1_000;

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
/** Reaches addresses the caller names (URLs), through the fetch guards. */
const OPEN_WORLD: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: true };

export const JOB_TOOLS: readonly ToolSpec[] = [
  jobTool({
    name: 'find_relevant_code',
    kind: 'context',
    title: 'Find the code a task touches',
    toolset: 'context',
    description:
      'Given a task in plain text (an issue, a question, a failing test\'s output, a stack trace): the files and functions it most likely touches, ranked with why (frames, names and paths in the task, BM25 over code chunks, the call graph), and their code with paths and line numbers within a token budget.',
    whenToUse: 'Call it first on a task in an unfamiliar repository: one call instead of several greps.',
    example: { task: 'TypeError: unsupported operand in parse_duration when the unit is missing' },
    pages: { text: 'context' },
    reads: 'index',
    fields: {
      task: 'The task: an issue, a question, a stack trace or test output (up to 64 KiB).',
      tokens: 'Tokens of code returned, best spans first (default 8000).',
      focus: 'Paths you are working on: ranked up and followed through the graph.',
      limit: 'Files and spans listed (default 20).',
      encoding: 'Tokenizer: o200k_base (default) or cl100k_base.',
    },
    output: contextResultSchema,
    annotations: READ_ONLY,
    present: (result) => ({ text: [formatContextSummary(result), result.context], structured: result }),
  }),
  jobTool({
    name: 'expand_mentions',
    kind: 'mentions',
    title: 'Expand @-mentions in a prompt',
    toolset: 'context',
    description:
      'A prompt with its @-mentions inlined: @path, @path#L10-20, @dir/, @search:"text", @grep:"regex", @url:https://…, @symbol:Class.method (the definitions\' code), @refs:Name (its uses by file), @codebase or @context:"task" (the code retrieval ranks for the prompt or the task). Then what loaded and what failed, each failure with a suggestion.',
    whenToUse: 'Use it to gather several files, ranges and searches in one call.',
    example: { prompt: 'Review @src/app.ts#L10-40 against @docs/api.md' },
    pages: { text: 'augmentedPrompt' },
    reads: 'files',
    fields: {
      prompt: 'Text with @-mentions, e.g. "Review @src/app.ts#L10-40".',
      budget: 'Cap of the augmented prompt: {"maxBytes": N} (default 200000); the largest items are cut first.',
    },
    output: mentionsResultSchema,
    annotations: OPEN_WORLD,
    present: (result) => ({ text: [result.augmentedPrompt, summarizeMentions(result)], structured: result }),
  }),
  jobTool({
    name: 'detect_stack',
    kind: 'detect',
    title: 'Detect the tech stack',
    toolset: 'jobs',
    description:
      'The stack of every service in a repository: language, build system and package manager, framework, runtime and version, build and start commands, caches, the monorepo layout.',
    whenToUse: 'Use it to learn how to build, test or run a project.',
    example: { mode: 'static' },
    pages: { list: 'self', unit: 'service' },
    reads: 'files',
    fields: {
      mode: 'full (default): deterministic detectors, then the LLM (if the server has one) for what they do not recognise; static: detectors only; llm-only: the LLM only.',
    },
    output: z.object({ services: detectResultSchema }),
    annotations: READ_ONLY,
    present: (services) => ({ text: formatServices(services), structured: { services } }),
  }),
  jobTool({
    name: 'scan_repository',
    kind: 'scan',
    title: 'Scan a whole repository',
    toolset: 'jobs',
    description:
      'A whole repository measured (gitignore-aware): files, bytes, lines and o200k tokens per language and directory, the largest files, what was skipped, definitions, the stack of every service; it also builds the indexes later answers read. Long on a large tree the first time (later scans reuse each unchanged file); sends progress with a progressToken; cancelling the call cancels it.',
    whenToUse: 'Run it once on a large repository so searches and symbol look-ups answer from the index.',
    example: { codeIndex: true },
    reads: 'files',
    fields: {
      codeIndex: 'Also count tokens and find definitions (default true); false counts files, bytes and lines only, much faster on a repository never scanned before.',
    },
    output: scanResultSchema,
    annotations: READ_ONLY,
    present: (result) => ({
      text: result.stack?.length ? [formatScanSummary(result), formatServices(result.stack)] : formatScanSummary(result),
      structured: result,
    }),
  }),
  jobTool({
    name: 'fetch_url',
    kind: 'fetch',
    title: 'Fetch a URL as text',
    toolset: 'web',
    description:
      'An http(s) URL as readable text (HTML to text with headings, lists and links; JSON pretty-printed). Private, loopback, link-local and metadata addresses are refused at every redirect; text-like content only, 1 MiB, 15 s; cached 24 hours.',
    whenToUse: 'Use it to read documentation or an issue page the task links to.',
    example: { url: 'https://nodejs.org/api/fs.html' },
    pages: { text: 'text' },
    fields: {
      url: 'The http:// or https:// URL, exactly as given.',
      force: 'Ignore the cache and fetch the page again (default false).',
    },
    output: fetchResultSchema,
    annotations: OPEN_WORLD,
    present: (result) => ({ text: formatFetched(result), structured: result }),
  }),
  jobTool({
    name: 'ask',
    kind: 'interpret',
    title: 'Ask a question about a repository',
    toolset: 'jobs',
    description:
      'A question in plain words ("which files mention fetchUser in the api folder?", "what framework is this?") planned into up to 5 read-only steps (list, find, read, search, grep, detect, fetch, find_relevant_code for open questions such as "where is rate limiting handled?"; the server\'s LLM when it has one, rules otherwise) and run: the plan and each step\'s output.',
    whenToUse: 'When you know exactly what you want, the specific tools are faster.',
    example: { query: 'which files mention fetchUser in the api folder?' },
    reads: 'files',
    fields: {
      query: 'The question, in plain words.',
      context: 'Editor context that resolves "this file", "here", "that folder": {cwd, activeFile, lastFile, lastDir}, paths relative to the repository.',
      execute: 'Run the plan (default true); false returns only the plan.',
      ai: 'auto (default): the LLM planner when the server has one, else the rules; off: rules only; only: the LLM or fail with llm_unavailable.',
    },
    output: interpretResultSchema,
    annotations: OPEN_WORLD,
    present: (result) => ({ text: formatAnswer(result), structured: result }),
  }),
  jobTool({
    name: 'find_symbol',
    kind: 'symbols',
    title: 'Find where a symbol is defined',
    toolset: 'search',
    description:
      'Definitions from a tree-sitter parse (TypeScript, JavaScript, Python, Go, Rust, Java, C, C++, C#, Ruby, PHP): a name\'s definitions ranked (exact case first, then most used) with path, line, range, kind and signature; an unknown name is symbol_not_found with the closest names. Without a name, every definition in the files path selects.',
    whenToUse: 'Faster and more precise than grep for "where is X defined"; sees files you just edited.',
    example: { name: 'Server.start' },
    pages: { list: 'definitions', unit: 'definition' },
    reads: 'index',
    fields: {
      name: 'Name, Class.method or Ns::fn; leave it out to list every definition in path.',
      path: 'Only files matching this glob ("src/**/*.ts").',
      limit: 'Definitions at most (default 1000).',
    },
    output: symbolsResultSchema,
    annotations: READ_ONLY,
    // The limit's cut is said on every page; what the page leaves out the pager says.
    present: (result) => ({
      text: formatSymbols({ ...result, truncated: false }) + (result.truncated ? `\n(limit cut the list: ${result.total.toLocaleString('en-US')} definitions matched; raise limit or narrow path)` : ''),
      structured: result,
    }),
  }),
  jobTool({
    name: 'repo_map',
    kind: 'map',
    title: 'Map a repository within a token budget',
    toolset: 'context',
    description:
      'The most important files with their key definitions\' signatures and lines, ranked by PageRank over which files use names defined in which (as Aider\'s repo map), personalised toward what you focus on; never over the budget (exact o200k count).',
    whenToUse: 'Use it to orient in an unfamiliar repository before reading files.',
    example: { tokens: 2048, focus: ['src/server.ts'] },
    pages: { text: 'text' },
    reads: 'index',
    fields: {
      tokens: 'The map\'s budget in tokens (default 2048).',
      focus: 'Paths or symbol names to rank toward.',
      encoding: 'Tokenizer: o200k_base (default) or cl100k_base.',
    },
    output: mapResultSchema,
    annotations: READ_ONLY,
    present: (result) => ({ text: formatMap(result), structured: result }),
  }),
  jobTool({
    name: 'pack_repository',
    kind: 'pack',
    title: 'Pack a repository into one document',
    toolset: 'jobs',
    description:
      'The repository (or what the globs select) as one LLM-ready document, a tree then every text file with its tokens, written as a stored artifact (any size); secrets redacted, credential files left out. Returns token totals and where the document is, not the document.',
    whenToUse: 'Use it to hand a repository to another model; repo_map fits a window instead.',
    example: { include: ['src/**'], compress: true },
    reads: 'index',
    fields: {
      style: 'xml (default), markdown or plain.',
      include: 'Only files matching these globs (fast-glob semantics), e.g. ["src/**", "*.md"].',
      ignore: 'Leave out files matching these globs (a directory pattern drops everything under it), e.g. ["**/test/**"].',
      compress: 'Keep signatures, replace function bodies with { … } (default false).',
      maxTokens: 'Stop adding files once this many tokens are packed; the rest are listed as omitted.',
      encoding: 'Tokenizer for the counts: o200k_base (default) or cl100k_base.',
    },
    output: packResultSchema,
    annotations: READ_ONLY,
    present: (result) => ({ text: formatPack(result), structured: result }),
  }),
];
