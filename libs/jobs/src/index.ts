/**
 * @quarry/jobs — one home for each job kind. A use case per kind (`kinds/`, run through
 * `runUseCase`) takes the kind's ports and returns the contract's result; the worker's
 * processors, the CLI's in-process commands and both MCP backends only build ports and call it.
 * The worker builds its ports from Postgres and Redis; the CLI and `quarry mcp` use InProcessPorts
 * (`@quarry/jobs/in-process`, the light entry point).
 */
export { runUseCase, USE_CASES, type UseCase } from './use-cases';
export type { JobRun, SourcePins } from './job-run';
export type * from './ports';
export { RepositorySessions, type RepositoryInput } from './repository-sessions';
export { CodeIndexReader, titleOf, type CodeIndexReadOptions } from './code-index-reader';
export { StackDetector } from './stack-detector';
export { threadShards } from './thread-shards';
export { InProcessPorts } from './in-process-ports';
export { navigate, checkRequest as checkNavigationRequest } from './navigation';
export { NavigationIndexes } from './navigation-indexes';
export { artifactDirectory } from './artifact-directory';
export { retrievalLayers, type RetrievalLayers } from './retrieval-layers';
