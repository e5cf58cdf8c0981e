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
  mentionsResultSchema,
  scanResultSchema,
} from '@quarry/contracts';
import { summarizeMentions } from '@quarry/mentions';
import { formatAnswer, formatFetched, formatScanSummary, formatServices } from '@quarry/render';
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
      'Expand the @-mentions in a prompt into an augmented prompt with the referenced content inlined: @path (a file), @path#L10-20 (those lines), @dir/ (a listing), @search:"text" (literal search), @grep:"regex" (RE2 search), @url:https://… (the page as text, SSRF-guarded). Returns the augmented prompt, then an account of what loaded and what failed, with suggestions for each failure (e.g. the closest existing path).',
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
      'Scan a whole repository (gitignore-aware): files, bytes and lines per language, the largest files, files per top-level directory, what was skipped (binary, ignored, symlinks), and the stack of every service. Long-running on large trees: it returns when the scan is done, sends progress notifications if you pass a progressToken, and cancelling the call cancels the scan.',
    fields: {},
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
];
