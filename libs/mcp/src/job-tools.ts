import { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  JOB_CONTRACTS,
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
} from '@quarry/contracts';
import { summarizeMentions } from '@quarry/mentions';
import { formatAnswer, formatFetched, formatMap, formatPack, formatScanSummary, formatServices, formatSymbols } from '@quarry/render';
import { chooseRepository, describeFields, repositoryFields, toolInputFrom } from './repository-argument';
import { defineTool, type ToolSpec } from './tool-spec';

interface JobToolSpec<K extends JobKind, O extends z.ZodObject> {
  name: string;
  kind: K;
  title: string;
  description: string;
  /** A description for every field of the kind's input contract (`root` becomes `repository`). */
  fields: Record<string, string>;
  output: O;
  annotations: ToolAnnotations;
  /** The result as the agent reads it, and as data matching `output`. */
  present(result: JobResult<K>): { text: string | string[]; structured: z.infer<O> };
}

/**
 * A tool that runs one job kind: its input is the kind's contract (`root` as `repository`), it
 * relays the job's progress, and cancelling the call cancels the job.
 */
function jobTool<K extends JobKind, O extends z.ZodObject>(spec: JobToolSpec<K, O>): ToolSpec {
  const contract = JOB_CONTRACTS[spec.kind].input as z.ZodObject;
  const readsRepository = 'root' in contract.shape;
  const input = readsRepository ? toolInputFrom(contract, spec.fields) : describeFields(contract.strict(), spec.fields);
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input,
    output: spec.output,
    annotations: spec.annotations,
    jobKind: spec.kind,
    async run(args, { backend, signal, progress }) {
      const { repository, ref, ...rest } = args as Record<string, unknown> & { repository?: string; ref?: string };
      const jobInput = (readsRepository ? { ...rest, ...repositoryFields(chooseRepository(repository, backend.defaultRepository), ref) } : rest) as JobInput<K>;
      const { jobId, result } = await backend.runJob(spec.kind, jobInput, {
        signal,
        onProgress: (report) => progress?.report(report),
        onJob: (id) => progress?.announce(`queued as job ${id}`),
      });
      return { ...spec.present(result), jobId };
    },
  });
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
/** Reaches addresses the caller names (URLs), through the fetch guards. */
const OPEN_WORLD: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: true };

export const JOB_TOOLS: readonly ToolSpec[] = [
  jobTool({
    name: 'expand_mentions',
    kind: 'mentions',
    title: 'Expand @-mentions in a prompt',
    description:
      'Expand the @-mentions in a prompt into an augmented prompt with the referenced content inlined: @path (a file), @path#L10-20 (those lines), @dir/ (a listing), @search:"text" (literal search), @grep:"regex" (RE2 search), @url:https://… (the page as text, SSRF-guarded), @symbol:Name or @symbol:Class.method (the definitions\' code, ranked). Returns the augmented prompt, then an account of what loaded and what failed, with suggestions for each failure (e.g. the closest existing path).',
    fields: {
      prompt: 'The text containing @-mentions, e.g. "Review @src/app.ts#L10-40 against @docs/api.md".',
      budget: 'Size cap of the augmented prompt: {"maxBytes": N} (default 200000); the largest items are cut first and the account says what was cut.',
    },
    output: mentionsResultSchema,
    annotations: OPEN_WORLD,
    present: (result) => ({ text: [result.augmentedPrompt, summarizeMentions(result)], structured: result }),
  }),
  jobTool({
    name: 'detect_stack',
    kind: 'detect',
    title: 'Detect the tech stack',
    description:
      'Detect the tech stack of every service in a repository: language, build system and package manager, framework, runtime and its version, build and start commands, cache directories, and the monorepo layout (workspaces, turborepo, nx, cargo/go/uv workspaces…). Use it to learn how to build, test or run a project.',
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
    description:
      'Scan a whole repository (gitignore-aware): files, bytes and lines per language, the largest files, files per top-level directory, what was skipped (binary, ignored, symlinks), real token counts (o200k_base) per language and directory, the number of definitions, and the stack of every service. Long-running on large trees the first time (every file is tokenized and parsed; later scans of any commit reuse each unchanged file\'s index): it returns when the scan is done, sends progress notifications if you pass a progressToken, and cancelling the call cancels the scan.',
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
    description:
      'Fetch an http(s) URL and return it as readable text (HTML converted to text with headings, lists and links kept; JSON pretty-printed). Guarded against SSRF: private, loopback, link-local and cloud-metadata addresses are refused at every redirect; 2xx text-like content only, 1 MiB cap, 15 s deadline; answers are cached for 24 hours.',
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
    description:
      'Answer a question about a repository asked in plain words ("which files mention fetchUser in the api folder?", "show lines 10-20 of src/app.ts", "what framework is this?"): it plans up to 5 read-only steps over list, find, read, search, grep, detect and fetch (the server\'s LLM first when it has one, rules otherwise) and runs them. Returns the plan and each step\'s output. When you know exactly what you want, the specific tools are faster.',
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
    description:
      'Find definitions in a repository from a tree-sitter parse (TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C, C++, C#, Ruby, PHP): with a name (`parseConfig`, `Server.start`, `Ns::fn`) its definitions ranked (exact case first, then the most used), each with path, 1-based line, line range, kind and signature; a name that is not defined fails with symbol_not_found and the closest defined names. Without a name, every definition in the files `path` selects. Faster and more precise than grep for "where is X defined"; use @symbol:X in expand_mentions to get the code itself.',
    fields: {
      name: 'The symbol: `Name`, `Class.method`, `Ns::Class::method` or `App\\Models\\User`. Leave it out to list every definition (narrow with path).',
      path: 'Only files matching this glob, relative to the repository root (fast-glob semantics: `src/**/*.ts`, `**/*.go`).',
      limit: 'The most definitions returned (default 1000).',
    },
    output: symbolsResultSchema,
    annotations: READ_ONLY,
    present: (result) => ({ text: formatSymbols(result), structured: result }),
  }),
  jobTool({
    name: 'repo_map',
    kind: 'map',
    title: 'Map a repository within a token budget',
    description:
      'A map of a repository that fits a token budget: the most important files with their key definitions\' signatures and line numbers, ranked by PageRank over the graph of which files use names defined in which (as Aider\'s repo map), personalised toward the files or symbols you focus on. The text never exceeds the budget (exact o200k_base count). Use it to orient in an unfamiliar repository before reading files; follow up with read_file or @symbol:.',
    fields: {
      tokens: 'The budget in tokens (default 2048, 1 to 1,000,000).',
      focus: 'Files (paths relative to the repository) or symbol names to rank toward, e.g. ["src/server.ts", "parseConfig"].',
      encoding: 'Tokenizer: o200k_base (default, GPT-4o and later) or cl100k_base (GPT-4).',
    },
    output: mapResultSchema,
    annotations: READ_ONLY,
    present: (result) => ({ text: formatMap(result), structured: result }),
  }),
  jobTool({
    name: 'pack_repository',
    kind: 'pack',
    title: 'Pack a repository into one document',
    description:
      'Pack a repository (or the files the globs select) into one LLM-ready document — a directory tree, then every text file with its token count — written as a stored artifact (streamed: any size, even the Linux tree). Secrets are redacted and credential files (.env, keys) left out. Returns token totals per language and directory and where the document is (GET /v1/jobs/{id}/artifact on a server); the document itself is not returned inline. Use repo_map for an overview that fits a context window.',
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
