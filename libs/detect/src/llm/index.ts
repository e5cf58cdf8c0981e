export { StackOracle, serviceAnswerSchema, workspaceAnswerSchema, type Asked, type OracleOptions, type ServiceAnswer, type StructuredCompleter, type WorkspaceAnswer } from './stack-oracle';
export {
  FOREIGN_WORKSPACE_FILES, LLM_REJECT_BELOW, LLM_WARN_BELOW, LlmBuildSystem, LlmFramework, LlmLanguage, LlmOrchestrator, LlmRuntime,
  judge, llmFallbacks, normaliseId,
} from './llm-detectors';
