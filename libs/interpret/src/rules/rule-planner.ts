import type { References } from '../deixis';
import type { Plan } from '../plan';
import type { WorkspaceView } from '../workspace-view';
import { parseFrame } from './frame';
import { INTENT_RULES, type IntentRule, type RuleInput } from './intents';
import { cleanQuery } from './text';

export interface RulePlanOptions {
  references?: References;
  view?: WorkspaceView;
  /** Rules to use instead of the built-in registry (tests, extensions). */
  rules?: readonly IntentRule[];
}

/**
 * The deterministic planner: clean the query, read it as object × location × filters (frame.ts),
 * try the intents in order, first match wins. No I/O, so it stays well under a millisecond.
 */
export function planWithRules(query: string, options: RulePlanOptions = {}): Plan {
  const text = cleanQuery(query);
  const references = options.references ?? {};
  const input: RuleInput = { query: query.replace(/\s+/g, ' ').trim(), text, lower: text.toLowerCase(), references, view: options.view, frame: parseFrame(text, references, options.view) };
  for (const rule of options.rules ?? INTENT_RULES) {
    const outcome = rule.match(input);
    if (outcome === undefined) continue;
    if (outcome === 'none') return { needs_tools: false, tools: [], rationale: `rules: ${rule.name} needs no tool` };
    return { needs_tools: true, tools: [outcome], rationale: `rules: ${rule.name} → ${outcome.name}` };
  }
  return { needs_tools: false, tools: [], rationale: 'rules: no pattern matched; answering without tools' };
}
