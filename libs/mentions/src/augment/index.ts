export { augmentPrompt, DEFAULT_MAX_BYTES } from './augment-prompt';
export type { AugmentInput, AugmentResult, ContextBlock, MentionContribution, MentionOutcome, SymbolDefinitionBlock } from './types';
