export { planWithRules, type RulePlanOptions } from './rule-planner';
export { INTENT_RULES, type IntentRule, type RuleInput, type RuleOutcome } from './intents';
export { cleanQuery } from './text';
