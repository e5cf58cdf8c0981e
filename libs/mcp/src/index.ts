/**
 * @quarry/mcp — Quarry as a Model Context Protocol server: one tool table (derived from the
 * contracts) and the quarry:// resources, answered by an injected backend — in this process
 * (`quarry mcp`) or through the gateway's jobs service (Streamable HTTP at /mcp).
 */
export type { QuarryBackend, RunOptions, RepositoryFields, IndexStateOptions } from './backend';
export type { McpEndpoint, CallContext } from './endpoint';
export { BackendEndpoint, RESOURCE_NOT_FOUND, type BackendEndpointOptions } from './backend-endpoint';
export { createQuarryMcpServer, type QuarryServerOptions } from './quarry-mcp-server';
export { QUARRY_TOOLS, ToolTable } from './tool-table';
export { NAVIGATION_TOOLS } from './navigation-tools';
export { describeTool, modelDescription, answerSchema, pagingArguments, withPagingArguments, defineTool, type ToolSpec, type ToolContext, type ToolAnswer } from './tool-spec';
export { WorkspaceOperations, type WorkspaceOperationsOptions, type WorkspaceAnswer, type WorkspaceReadOptions } from './workspace-operations';
export { InProcessJobs, KEPT_JOBS, type JobWork } from './in-process-jobs';
export { ProgressRelay, PROGRESS_INTERVAL_MS, type ProgressNotice } from './progress-relay';
export { toolFailure, toolSuccess, errorBodyOf, type ToolOutput } from './tool-result';
export { jobUri, repoFileUri, parseResourceUri, JOB_URI_TEMPLATE, REPO_FILE_URI_TEMPLATE, type ResourceAddress } from './resource-uris';
export { repositoryArgument, chooseRepository } from './repository-argument';
export { TOOLSETS, TOOLSET_NAMES, DEFAULT_TOOLSETS, parseToolsets, isToolsetName, type ToolsetName } from './toolsets';
export { fitPage, fitWhole, answerTokens, isPagedAnswer, type PagedAnswer, type ListAnswer, type StreamAnswer, type PageSlice, type PageContext } from './paged-answer';
export { encodeCursor, decodeCursor, callKey, itemsKey, type AnswerCursor } from './answer-cursor';
export { IndexStates, searchIndexStateOf, type IndexStateSources, type IndexCoverage, type CoverageTarget, type SearchIndexState } from './index-states';
