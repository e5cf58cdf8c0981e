import type { CallToolResult, ListResourcesResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ProgressNotice } from './progress-relay';

/** One call as the server received it. */
export interface CallContext {
  /** Aborted when the client cancels the request (or the connection closes). */
  signal: AbortSignal;
  /** Sends a progress notification for this call; present only when the client sent a progressToken. */
  sendProgress?: (notice: ProgressNotice) => Promise<void>;
}

/**
 * What answers the server's tool and resource requests: the tool table over a backend (in this
 * process or in the gateway), or a forwarder to a gateway's /mcp (`quarry mcp --server`). Tool
 * failures come back as results with `isError`; resource failures as MCP errors carrying the
 * typed error in `data`.
 */
export interface McpEndpoint {
  callTool(name: string, args: Record<string, unknown>, call: CallContext): Promise<CallToolResult>;
  listResources(call: CallContext): Promise<ListResourcesResult>;
  readResource(uri: string, call: CallContext): Promise<ReadResourceResult>;
}
