import { LlmClient } from '@quarry/llm';
import type { References } from './deixis';
import { aiPlanSchema, planFromAi, PLAN_SCHEMA_NAME, type Plan, type QueryContext } from './plan';
import { TOOL_CAPS, type ToolRegistry } from './tools';
import type { WorkspaceView } from './workspace-view';

/** How long the planner waits for the model, retries included, unless told otherwise. */
export const DEFAULT_AI_TIMEOUT_MS = 5_000;
const TOP_LEVEL_SHOWN = 40;

export interface AiPlanRequest {
  query: string;
  context?: QueryContext;
  references?: References;
  view: WorkspaceView;
  registry: ToolRegistry;
  signal?: AbortSignal;
}

/**
 * One chat-completions call that turns a query into a plan. The client is built by the caller
 * (timeout 5 s and one retry for interpret: see `aiPlannerClientOptions`); failures are the
 * client's typed QuarryErrors (`llm_unavailable`, `llm_invalid_output`), left to the caller to
 * turn into the rule fallback.
 */
export async function planWithAi(llm: LlmClient, request: AiPlanRequest): Promise<Plan> {
  const schema = aiPlanSchema(request.registry);
  const { value } = await llm.complete({
    system: systemPrompt(request),
    user: request.query,
    schema,
    schemaName: PLAN_SCHEMA_NAME,
    signal: request.signal,
  });
  return planFromAi(value, request.registry);
}

const plannerClients = new WeakMap<LlmClient, Map<number, LlmClient>>();

/**
 * The same server and model as `llm`, held to the planner's policy: a short budget (retries
 * included), one retry and temperature 0 — the rules are the backup, so waiting long is worse
 * than falling back. Cached per client and budget.
 */
export function plannerClient(llm: LlmClient, timeoutMs = DEFAULT_AI_TIMEOUT_MS): LlmClient {
  const { settings } = llm;
  if (settings.timeoutMs === timeoutMs && settings.maxRetries === 1 && settings.temperature === 0) return llm;
  let byBudget = plannerClients.get(llm);
  if (!byBudget) plannerClients.set(llm, (byBudget = new Map()));
  let client = byBudget.get(timeoutMs);
  if (!client) byBudget.set(timeoutMs, (client = new LlmClient({ ...settings, timeoutMs, maxRetries: 1, temperature: 0 })));
  return client;
}

export function systemPrompt(request: Pick<AiPlanRequest, 'registry' | 'view' | 'context' | 'references'>): string {
  const tools = request.registry
    .list()
    .map((tool) => `- ${tool.name}(${Object.keys(tool.args.shape).join(', ')}): ${tool.description}`)
    .join('\n');
  const top = request.view.topLevel();
  const shown = top.slice(0, TOP_LEVEL_SHOWN).join(' ') + (top.length > TOP_LEVEL_SHOWN ? ` … (+${top.length - TOP_LEVEL_SHOWN} more)` : '');
  const context = request.context ?? {};
  const references = Object.values(request.references ?? {})
    .filter((reference) => reference !== undefined)
    .map((reference) => `"${reference.phrase}" = ${reference.value ?? '(unknown: ask which one, with low confidence)'}`);
  return [
    'You turn a developer\'s question about a code workspace into a plan of tool calls. Answer with JSON only, matching the schema.',
    'Tools (all read-only):',
    tools,
    'Rules:',
    '- Paths are relative to the workspace root. Never use absolute paths, "..", or anything outside the root.',
    '- Use only paths that exist; if unsure of a file\'s location, use find_files.',
    '- recursive only when the user asks for everything under a directory, the whole tree or the project structure.',
    '- search for plain text (keep "." and "()" literal); grep only for regular expressions, anchors, or a file-type restriction (glob).',
    '- Open questions about what this code does ("where is rate limiting handled?", "which code handles login retries?") go to find_relevant_code with the question as task; search and grep are for exact names, strings and patterns.',
    '- URLs go to fetch_url verbatim.',
    `- At most ${TOOL_CAPS.maxSteps} steps; max_results ≤ ${TOOL_CAPS.maxResults}; a read_file range spans ≤ ${TOOL_CAPS.readSpanLines} lines.`,
    '- How-to questions about tools or languages in general, and chit-chat, need no tools: needs_tools false, tools [].',
    '- Set every argument a tool does not use to null. confidence is 0-1; below 0.5 when a required argument is a guess.',
    'Workspace:',
    `- top level: ${shown || '(empty)'}`,
    `- current directory: ${context.cwd ?? '.'}`,
    `- active file: ${context.activeFile ?? '(none)'}`,
    ...(context.lastFile ? [`- last file shown: ${context.lastFile}`] : []),
    ...(context.lastDir ? [`- last directory shown: ${context.lastDir}`] : []),
    ...(references.length > 0 ? ['In this question:', ...references.map((line) => `- ${line}`)] : []),
  ].join('\n');
}
