import { QuarryError } from '@quarry/contracts';
import type { LlmClient } from '@quarry/llm';
import { DEFAULT_AI_TIMEOUT_MS, planWithAi, plannerClient } from './ai-planner';
import { resolveReferences, type References } from './deixis';
import { executePlan, type ExecuteProgress, type ToolHost } from './executor';
import { normalizePlan, type NormalizedPlan, type NormalizeOptions } from './normalize';
import { toRelative } from './path-resolution';
import type { InterpretResult, PlanStep, QueryContext } from './plan';
import { checkQuery } from './query-input';
import { planWithRules } from './rules';
import { defaultToolRegistry, type ToolRegistry } from './tools';
import { workspaceViewOf, type WorkspaceView } from './workspace-view';

export interface InterpretOptions {
  query: string;
  context?: QueryContext;
  /** Absolute, already-validated workspace root. */
  root: string;
  /** The workspace as seen once for this job; walked from `root` when absent. */
  view?: WorkspaceView;
  llm?: LlmClient;
  /** auto: AI first, rules when it fails; off: rules only; only: AI or a typed error. */
  ai?: 'auto' | 'off' | 'only';
  /** Run the plan (true) or only return it. */
  execute?: boolean;
  /** The tools; required when `execute` is true. */
  host?: ToolHost;
  registry?: ToolRegistry;
  /** Budget of the AI call, retries included (5 s). */
  aiTimeoutMs?: number;
  approve?: (step: PlanStep) => boolean | Promise<boolean>;
  signal?: AbortSignal;
  onProgress?: (progress: ExecuteProgress) => void;
}

/** A query → a validated plan (AI first, rules as the fallback) → its results. */
export async function interpretQuery(options: InterpretOptions): Promise<InterpretResult> {
  checkQuery(options.query);
  const registry = options.registry ?? defaultToolRegistry();
  const ai = options.ai ?? 'auto';
  options.signal?.throwIfAborted();
  options.onProgress?.({ done: 0, total: 1, stage: 'planning' });
  const view = options.view ?? (await workspaceViewOf(options.root, options.signal));
  const { context, references } = prepareContext(options.query, options.context, options.root);
  const normalizeOptions = { root: options.root, view, registry, cwd: context.cwd, references };

  let planned: NormalizedPlan | undefined;
  let source: InterpretResult['source'] = 'ai';
  let fallbackReason: string | undefined;
  if (ai !== 'off') {
    const attempt = await tryAi(options, { view, registry, context, references });
    if ('plan' in attempt) {
      planned = normalizePlan(attempt.plan, normalizeOptions);
      if (attempt.plan.needs_tools && planned.plan.tools.length === 0) fallbackReason = 'every step of the AI plan was dropped';
    } else {
      fallbackReason = attempt.failure;
    }
    if (fallbackReason && ai === 'only') {
      throw new QuarryError('llm_unavailable', `The AI planner gave no usable plan: ${fallbackReason}`, {
        suggestion: 'Check QUARRY_LLM_BASE_URL and the model, or ask with ai "auto" to fall back to the rules.',
        permanent: false,
      });
    }
  }
  if (!planned || fallbackReason) {
    const dropped = planned?.dropped ?? [];
    planned = planByRules(options.query, normalizeOptions);
    // Both planners may refuse the same step for the same reason: record it once.
    const seen = new Set(dropped.map((entry) => `${entry.tool}\0${entry.reason}`));
    planned.dropped = [...dropped, ...planned.dropped.filter((entry) => !seen.has(`${entry.tool}\0${entry.reason}`))];
    source = 'rules';
    if (fallbackReason) planned.plan.notes = [`AI planner not used: ${fallbackReason}`, planned.plan.notes].filter(Boolean).join('; ');
  }

  const { plan, dropped } = planned;
  const result: InterpretResult = { plan, source, dropped, results: [] };
  if (options.execute === false || plan.clarification || !plan.needs_tools) return result;
  if (!options.host) throw new TypeError('interpretQuery: execute needs a tool host');
  result.results = await executePlan(plan.tools, {
    registry,
    host: options.host,
    signal: options.signal,
    approve: options.approve,
    onProgress: options.onProgress,
  });
  return result;
}

/** The rule fallback end to end, synchronous: plan with the pattern registry, then normalize. */
export function planByRules(query: string, options: NormalizeOptions & { references: References }): NormalizedPlan {
  return normalizePlan(planWithRules(query, { references: options.references, view: options.view }), options);
}

/** Context paths made root-relative and the query's deictic words resolved against them. */
export function prepareContext(query: string, context: QueryContext | undefined, root: string): { context: QueryContext; references: References } {
  const relative = relativeContext(context, root);
  return { context: relative, references: resolveReferences(query, relative) };
}

type AiAttempt = { plan: Awaited<ReturnType<typeof planWithAi>> } | { failure: string };

async function tryAi(
  options: InterpretOptions,
  request: { view: WorkspaceView; registry: ToolRegistry; context: QueryContext; references: References },
): Promise<AiAttempt> {
  if (!options.llm) return { failure: 'no LLM is configured' };
  try {
    const llm = plannerClient(options.llm, options.aiTimeoutMs ?? DEFAULT_AI_TIMEOUT_MS);
    return { plan: await planWithAi(llm, { query: options.query, ...request, signal: options.signal }) };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof QuarryError) return { failure: `${error.kind}: ${error.message}` };
    return { failure: `internal: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Context paths made root-relative; one outside the root is ignored rather than trusted. */
function relativeContext(context: QueryContext | undefined, root: string): QueryContext {
  const relative: QueryContext = {};
  for (const key of ['cwd', 'activeFile', 'lastFile', 'lastDir'] as const) {
    const value = context?.[key];
    if (!value) continue;
    const where = toRelative(value, root);
    if (where.ok) relative[key] = where.path;
  }
  return relative;
}
