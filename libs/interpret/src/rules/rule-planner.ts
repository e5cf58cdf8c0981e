import type { References } from '../deixis';
import type { Plan } from '../plan';
import type { WorkspaceView } from '../workspace-view';
import { INTENT_RULES, type IntentRule } from './intents';
import { cleanQuery } from './text';

export interface RulePlanOptions {
  references?: References;
  view?: WorkspaceView;
  /** Rules to use instead of the built-in registry (tests, extensions). */
  rules?: readonly IntentRule[];
}

/**
 * The deterministic planner: clean the query, try the pattern registry in order, first match
 * wins. No I/O and no allocation beyond the query's size, so it stays well under a millisecond.
 */
export function planWithRules(query: string, options: RulePlanOptions = {}): Plan {
  const text = cleanQuery(query);
  const input = { text, lower: text.toLowerCase(), references: options.references ?? {}, view: options.view };
  for (const rule of options.rules ?? INTENT_RULES) {
    const outcome = rule.match(input);
    if (outcome === undefined) continue;
    if (outcome === 'none') return { needs_tools: false, tools: [], rationale: `rules: ${rule.name} needs no tool` };
    return { needs_tools: true, tools: [outcome], rationale: `rules: ${rule.name} → ${outcome.name}` };
  }
  return { needs_tools: false, tools: [], rationale: 'rules: no pattern matched; answering without tools' };
}
