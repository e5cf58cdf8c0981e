/**
 * @quarry/interpret — a natural-language question about a workspace → a validated tool plan
 * (AI first, rule fallback) → the tools run through a host the caller provides.
 */
export { interpretQuery, planByRules, prepareContext, type InterpretOptions } from './interpret';
export { checkQuery } from './query-input';
export { planWithAi, plannerClient, systemPrompt, DEFAULT_AI_TIMEOUT_MS, type AiPlanRequest } from './ai-planner';
export { planWithRules, cleanQuery, INTENT_RULES, type IntentRule, type RuleInput, type RuleOutcome, type RulePlanOptions } from './rules';
export { normalizePlan, CLARIFY_BELOW, type NormalizeOptions, type NormalizedPlan, type ArgumentIssue } from './normalize';
export { executePlan, bounded, DEFAULT_MAX_OUTPUT_BYTES, type ToolHost, type ToolFunction, type ExecuteOptions, type ExecuteProgress } from './executor';
export { ToolRegistry, READ_ONLY_TOOLS, TOOL_CAPS, defaultToolRegistry, requiredArgs, type ToolSpec, type ArgRole } from './tools';
export { aiPlanSchema, planFromAi, PLAN_SCHEMA_NAME, type Plan, type PlanStep, type DroppedStep, type QueryContext, type InterpretResult, type StepResult, type AiPlan } from './plan';
export { resolveReferences, type Reference, type References } from './deixis';
export { toRelative, resolvePath, type Resolution } from './path-resolution';
export { FileListView, workspaceViewOf, type WorkspaceView } from './workspace-view';
export { workspaceTools, type WorkspaceToolsOptions } from './workspace-tools';
