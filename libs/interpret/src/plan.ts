import { z } from 'zod';
import type { interpretResultSchema } from '@quarry/contracts';
import type { ToolRegistry } from './tools';

/** One tool call of a plan. Arguments left out are absent, never null. */
export interface PlanStep {
  name: string;
  args: Record<string, unknown>;
  /** 0–1: how sure the planner is that this step is what the user wants. */
  confidence: number;
}

export interface Plan {
  needs_tools: boolean;
  tools: PlanStep[];
  rationale: string;
  notes?: string;
  clarification?: string;
}

export interface DroppedStep {
  tool: string;
  reason: string;
}

export type InterpretResult = z.infer<typeof interpretResultSchema>;
export type StepResult = InterpretResult['results'][number];

/** Editor context a query's "this file", "here", "that folder" refer to (root-relative or absolute paths). */
export interface QueryContext {
  cwd?: string;
  activeFile?: string;
  lastFile?: string;
  lastDir?: string;
}

export const PLAN_SCHEMA_NAME = 'tool_plan';

/**
 * The plan the model must answer with. OpenAI's strict mode wants every property required and
 * every object closed, and one fixed shape for `args`: so `args` carries one nullable slot per
 * argument name in the registry, and a tool's own arguments are picked out afterwards.
 *
 * The tool name is an enum in the JSON Schema the server enforces but a plain string when zod
 * re-validates: a model that still invents a tool then loses that step (recorded in `dropped`),
 * not the whole plan.
 */
export function aiPlanSchema(registry: ToolRegistry) {
  const slots: Record<string, z.ZodType> = {};
  for (const [name, type] of registry.argumentTypes()) slots[name] = type.nullable();
  return z.object({
    needs_tools: z.boolean(),
    rationale: z.string().max(2_000),
    tools: z.array(
      z.object({
        name: z.string().meta({ enum: registry.names() }),
        args: z.object(slots),
        confidence: z.number().min(0).max(1),
      }),
    ),
  });
}

export type AiPlan = z.infer<ReturnType<typeof aiPlanSchema>>;

/** The model's answer as a Plan: null slots and slots the named tool does not take are left out. */
export function planFromAi(answer: AiPlan, registry: ToolRegistry): Plan {
  const tools = answer.tools.map((step) => {
    const own = registry.get(step.name)?.args.shape ?? {};
    const args: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(step.args as Record<string, unknown>)) {
      if (value !== null && value !== undefined && name in own) args[name] = value;
    }
    return { name: step.name, args, confidence: step.confidence };
  });
  return { needs_tools: answer.needs_tools && tools.length > 0, tools, rationale: answer.rationale };
}
