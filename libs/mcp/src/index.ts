/**
 * @quarry/mcp — Quarry as a Model Context Protocol server: one tool table (derived from the
 * contracts) and the quarry:// resources, answered by an injected backend — in this process
 * (`quarry mcp`) or through the gateway's jobs service (Streamable HTTP at /mcp).
 */
export type { QuarryBackend, RunOptions } from './backend';
export type { McpEndpoint, CallContext } from './endpoint';
export { BackendEndpoint, RESOURCE_NOT_FOUND, type BackendEndpointOptions } from './backend-endpoint';
export { createQuarryMcpServer, type QuarryServerOptions } from './quarry-mcp-server';
export { QUARRY_TOOLS, ToolTable } from './tool-table';
export { describeTool, type ToolSpec, type ToolContext } from './tool-spec';
export { WorkspaceOperations, type WorkspaceOperationsOptions } from './workspace-operations';
export { InProcessJobs, KEPT_JOBS, type JobWork } from './in-process-jobs';
export { ProgressRelay, PROGRESS_INTERVAL_MS, type ProgressNotice } from './progress-relay';
export { toolFailure, toolSuccess, errorBodyOf, type ToolOutput } from './tool-result';
export { jobUri, repoFileUri, parseResourceUri, JOB_URI_TEMPLATE, REPO_FILE_URI_TEMPLATE, type ResourceAddress } from './resource-uris';
export { repositoryArgument, chooseRepository } from './repository-argument';
