import * as path from 'node:path';
import type { DroppedStep, Plan, PlanStep } from './plan';
import type { References } from './deixis';
import { resolvePath, toRelative } from './path-resolution';
import { requiredArgs, TOOL_CAPS, type ToolRegistry, type ToolSpec } from './tools';
import type { WorkspaceView } from './workspace-view';

/**
 * Whoever wrote a plan — a model or the rules — it goes through here before anything runs: tools
 * must exist, paths must stay inside the root and should exist, arguments must fit the tool, and
 * caps hold. Repairs are noted, refusals land in `dropped` with a reason.
 */

export interface NormalizeOptions {
  root: string;
  view: WorkspaceView;
  registry: ToolRegistry;
  /** Root-relative current directory, tried before fuzzy matching. */
  cwd?: string;
  /** Deictic words of the query, for clarification questions. */
  references?: References;
}

/** Why a step cannot run as it is, asked back to the user when the plan's confidence is low. */
export interface ArgumentIssue {
  step: number;
  arg: string;
  kind: 'missing' | 'ambiguous';
  choices: string[];
}

export interface NormalizedPlan {
  plan: Plan;
  dropped: DroppedStep[];
  issues: ArgumentIssue[];
}

/** Below this, a plan with a missing or ambiguous argument asks instead of running. */
export const CLARIFY_BELOW = 0.5;
/** A step whose path had to be guessed among equals is no surer than this. */
const AMBIGUOUS_CONFIDENCE = 0.45;
/** A step that lacks a required argument cannot run, however sure its planner was. */
const MISSING_CONFIDENCE = 0.3;

export function normalizePlan(plan: Plan, options: NormalizeOptions): NormalizedPlan {
  const dropped: DroppedStep[] = [];
  const issues: ArgumentIssue[] = [];
  const notes: string[] = plan.notes ? [plan.notes] : [];
  const steps: PlanStep[] = [];

  for (const original of plan.tools) {
    const tool = options.registry.get(original.name);
    if (!tool) {
      dropped.push({ tool: original.name, reason: `unknown tool "${original.name}"; known tools: ${options.registry.names().join(', ')}` });
      continue;
    }
    if (steps.length >= TOOL_CAPS.maxSteps) {
      dropped.push({ tool: tool.name, reason: `a plan runs at most ${TOOL_CAPS.maxSteps} steps` });
      continue;
    }
    const outcome = normalizeStep(original, tool, options, steps.length);
    if ('dropped' in outcome) {
      dropped.push({ tool: tool.name, reason: outcome.dropped });
      continue;
    }
    notes.push(...outcome.notes);
    issues.push(...outcome.issues);
    steps.push(outcome.step);
  }

  const normalized: Plan = {
    needs_tools: plan.needs_tools && steps.length > 0,
    tools: steps,
    rationale: plan.rationale,
    ...(notes.length > 0 ? { notes: notes.join('; ') } : {}),
  };
  const question = clarificationFor(normalized, issues, options);
  if (question) normalized.clarification = question;
  return { plan: normalized, dropped, issues };
}

type StepOutcome = { step: PlanStep; notes: string[]; issues: ArgumentIssue[] } | { dropped: string };

function normalizeStep(original: PlanStep, tool: ToolSpec, options: NormalizeOptions, index: number): StepOutcome {
  const notes: string[] = [];
  const issues: ArgumentIssue[] = [];
  let confidence = clamp(original.confidence, 0, 1);
  const args: Record<string, unknown> = {};

  for (const [arg, value] of Object.entries(original.args)) {
    const role = tool.roles[arg];
    if (value === undefined || value === null || value === '') continue;
    if (!role) {
      notes.push(`${tool.name}: ignored unknown argument "${arg}"`);
      continue;
    }
    if (role === 'file' || role === 'directory') {
      const where = toRelative(String(value), options.root);
      if (!where.ok) return { dropped: where.reason };
      const resolution = resolvePath(where.path, role, options.view, options.cwd);
      switch (resolution.status) {
        case 'exact':
          args[arg] = resolution.path;
          break;
        case 'resolved':
          args[arg] = resolution.path;
          notes.push(`"${value}" not found; using ${resolution.path} (${resolution.how})`);
          break;
        case 'ambiguous':
          args[arg] = resolution.path;
          confidence = Math.min(confidence, AMBIGUOUS_CONFIDENCE);
          issues.push({ step: index, arg, kind: 'ambiguous', choices: resolution.choices });
          notes.push(`"${value}" matches ${resolution.choices.join(', ')}; chose ${resolution.path}`);
          break;
        case 'wrong_kind':
          if (role === 'file' && tool.name === 'read_file') {
            // "show me src/api" means its listing: a directory read as a file would only fail.
            return { step: { name: 'list_files', args: { directory: where.path }, confidence }, notes: [`${where.path} is a directory; listing it instead`], issues };
          }
          args[arg] = where.path;
          break;
        case 'missing':
          if (role === 'file' && tool.name === 'read_file') {
            const pattern = path.posix.basename(where.path);
            notes.push(`${where.path} does not exist; looking for files named ${pattern} instead`);
            return { step: { name: 'find_files', args: { pattern }, confidence }, notes, issues };
          }
          args[arg] = where.path;
          notes.push(`${where.path} does not exist in the workspace`);
          break;
      }
      continue;
    }
    if (role === 'glob') {
      const glob = String(value).trim();
      if (path.posix.isAbsolute(glob) || glob.split('/').includes('..')) return { dropped: `pattern "${glob}" reaches outside the workspace root` };
      args[arg] = glob;
      continue;
    }
    // Text to look for keeps its spaces ("^use " is not "^use"); other strings are trimmed.
    args[arg] = typeof value === 'string' && role !== 'number' && role !== 'flag' && (role !== 'text' || value.trim() === '') ? value.trim() : value;
  }

  applyCaps(args, notes);
  for (const arg of requiredArgs(tool)) {
    if (args[arg] === undefined) {
      confidence = Math.min(confidence, MISSING_CONFIDENCE);
      issues.push({ step: index, arg, kind: 'missing', choices: [] });
    }
  }
  const checked = tool.args.partial().safeParse(args);
  if (!checked.success) {
    const problem = checked.error.issues[0];
    return { dropped: `argument ${String(problem.path[0] ?? '')} is invalid: ${problem.message}` };
  }
  return { step: { name: tool.name, args, confidence }, notes, issues };
}

function applyCaps(args: Record<string, unknown>, notes: string[]): void {
  if (typeof args.max_results === 'number' && args.max_results > TOOL_CAPS.maxResults) {
    notes.push(`max_results lowered from ${args.max_results} to ${TOOL_CAPS.maxResults}`);
    args.max_results = TOOL_CAPS.maxResults;
  }
  let start = args.start_line;
  let end = args.end_line;
  if (typeof start === 'number' && typeof end === 'number' && start > end) {
    [start, end] = [end, start];
    notes.push(`line range reversed to ${start}-${end}`);
  }
  if (typeof start === 'number' && typeof end === 'number' && end - start + 1 > TOOL_CAPS.readSpanLines) {
    end = start + TOOL_CAPS.readSpanLines - 1;
    notes.push(`line range cut to ${start}-${end} (at most ${TOOL_CAPS.readSpanLines} lines at once)`);
  }
  if (start !== undefined) args.start_line = start;
  if (end !== undefined) args.end_line = end;
}

/** One specific question when the plan is unsure and cannot run as it is. */
function clarificationFor(plan: Plan, issues: readonly ArgumentIssue[], options: NormalizeOptions): string | undefined {
  if (issues.length === 0) return undefined;
  const top = Math.max(0, ...plan.tools.map((step) => step.confidence));
  if (top >= CLARIFY_BELOW) return undefined;
  const issue = issues[0];
  const step = plan.tools[issue.step];
  const role = options.registry.get(step.name)?.roles[issue.arg];
  const noun = role === 'directory' ? 'directory' : role === 'file' ? 'file' : 'text';
  if (issue.kind === 'ambiguous') return `Which ${noun} do you mean: ${orList(issue.choices)}?`;
  if (role === 'file' || role === 'directory') {
    const reference = options.references?.[role];
    const examples = role === 'file' ? options.view.files().slice(0, 3) : options.view.topLevel().filter((entry) => entry.endsWith('/')).slice(0, 3);
    const asked = reference ? `Which ${noun} do you mean by "${reference.phrase}"? The editor context does not say` : `Which ${noun} should I use for ${step.name}?`;
    return examples.length > 0 ? `${asked} (for example ${orList(examples)}).` : `${asked}.`;
  }
  return `What should ${step.name} look for (${issue.arg})?`;
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

function clamp(value: number, low: number, high: number): number {
  return Number.isFinite(value) ? Math.min(high, Math.max(low, value)) : low;
}
