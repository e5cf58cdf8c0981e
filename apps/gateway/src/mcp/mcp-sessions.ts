import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { QUARRY_CONFIG, QuarryConfig, Logger, packageVersion } from '@quarry/config';
import type { BlobIndexStore } from '@quarry/code-index';
import { QuarryError } from '@quarry/contracts';
import { BlobCodeIndexRepository, JobRepository, SearchIndexRepository } from '@quarry/db';
import { BackendEndpoint, IndexStates, ToolTable, searchIndexStateOf, WorkspaceOperations, createQuarryMcpServer, parseToolsets } from '@quarry/mcp';
import { snapshotProviderFor, type SnapshotProvider } from '@quarry/snapshot';
import { snapshotSearch } from '@quarry/search-index';
import { RepositorySearch } from '../search/search.controller';
import { FileCache, resolveWorkspaceRoot } from '@quarry/workspace';
import { Principal, ownerFilter } from '../auth/principal';
import { JobEventsEmitter } from '../events/job-events.emitter';
import { GATEWAY_LOGGER } from '../gateway.tokens';
import { JobsService } from '../jobs/jobs.service';
import { GatewayNavigation } from '../navigation/navigation.controller';
import { GatewayBackend } from './gateway-backend';
import { StoredIndexCoverage } from './stored-index-coverage';

/** A session unused this long is closed (its client starts a new one when it comes back). */
export const MCP_SESSION_IDLE_MS = 60 * 60_000;
/** Sessions one gateway keeps; past it the longest idle one is closed. */
export const MAX_MCP_SESSIONS = 1_000;

interface Session {
  transport: StreamableHTTPServerTransport;
  principal: Principal;
  lastSeen: number;
}

/**
 * The Streamable HTTP sessions of this gateway. A session is an MCP server (the shared tool
 * table over a GatewayBackend) bound to the API key that opened it: a request naming the
 * session with another key is answered as if the session did not exist. Sessions live in this
 * process — the MCP cancellation of a running tool is a separate request that must reach the
 * same server — so behind a load balancer route `/mcp` by its `Mcp-Session-Id` header.
 */
@Injectable()
export class McpSessions implements OnApplicationShutdown {
  private readonly sessions = new Map<string, Session>();
  private readonly operations: WorkspaceOperations;
  /** The file tools' git URLs, read here: this gateway's own cache under QUARRY_DATA_DIR, built as a worker builds its own. */
  private readonly snapshots: SnapshotProvider;
  private readonly version = packageVersion();
  private readonly sweeper: NodeJS.Timeout;
  /** The repositories' states every answer reports, shared by the sessions (a directory is watched once). */
  private readonly states: IndexStates;
  private readonly tools = new ToolTable();

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    private readonly jobs: JobsService,
    private readonly emitter: JobEventsEmitter,
    repositories: RepositorySearch,
    @Inject(BlobCodeIndexRepository) codeIndex: BlobIndexStore,
    searchIndex: SearchIndexRepository,
    jobRows: JobRepository,
    private readonly navigation: GatewayNavigation,
  ) {
    this.snapshots = snapshotProviderFor(config);
    this.operations = new WorkspaceOperations({
      resolveRoot: (root) => resolveWorkspaceRoot(root, this.config.workspaceRoots),
      snapshots: this.snapshots,
      // search_text on an indexed commit: the commits opened by POST /v1/search serve it too.
      searcherFor: async (snapshot, signal) => (await snapshotSearch(snapshot, repositories.commits, signal)).search,
      // search_text of a checkout: its HEAD's index (built here on first use) with the edits beside it.
      localSearcherFor: (root) => repositories.localSearcher(root),
      ...config.files,
      fileCache: new FileCache(),
    });
    const coverage = new StoredIndexCoverage(codeIndex, searchIndex, async () => (await jobRows.list({ kind: 'scan', status: 'running', limit: 50 })).items);
    this.states = new IndexStates(
      {
        // The working trees the searches watch: one watcher per directory in this gateway.
        workingTree: (root) => repositories.snapshots.workingTree(root),
        headOf: (root) => repositories.snapshots.headOf(root),
        coverage: (target) => coverage.coverage(target),
        searchIndex: (root, commit) => searchIndexStateOf(repositories.checkouts.status(root), commit),
      },
      (error) => this.logger.debug({ err: error }, 'index state unavailable'),
    );
    this.sweeper = setInterval(() => this.closeIdle(Date.now() - MCP_SESSION_IDLE_MS), 60_000);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Serves one HTTP request of the MCP endpoint for an authenticated caller. */
  async handle(request: Request, response: Response, principal: Principal): Promise<void> {
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (!session || ownerFilter(session.principal) !== ownerFilter(principal)) {
        return jsonRpcError(response, 404, -32001, 'Session not found: start a new one with an initialize request.');
      }
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, response, request.body);
    }
    if (request.method !== 'POST' || !isInitializeRequest(request.body)) {
      return jsonRpcError(response, 400, -32000, 'Bad request: send an initialize request first, then the Mcp-Session-Id header it returns.');
    }
    // The session's toolsets are chosen when it opens: /mcp?toolsets=files,search (a typed 400 for an unknown one).
    const toolsets = parseToolsets(toolsetsParameter(request.query.toolsets));
    const transport = await this.open(principal, this.tools.withToolsets(toolsets));
    await transport.handleRequest(request, response, request.body);
  }

  private async open(principal: Principal, tools: ToolTable): Promise<StreamableHTTPServerTransport> {
    if (this.sessions.size >= MAX_MCP_SESSIONS) this.closeLongestIdle();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, principal, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    const backend = new GatewayBackend(principal, this.jobs, this.emitter, this.operations, this.config, this.navigation.ports, this.states);
    const endpoint = new BackendEndpoint(backend, { tools, onInternalError: (error, tool) => this.logger.error({ err: error, tool }, 'MCP tool failed') });
    const server = createQuarryMcpServer({ endpoint, tools, version: this.version, defaultRepository: backend.defaultRepository });
    server.onerror = (error) => this.logger.debug({ err: error }, 'MCP protocol error');
    await server.connect(transport);
    return transport;
  }

  private closeIdle(before: number): void {
    for (const session of [...this.sessions.values()]) if (session.lastSeen < before) void session.transport.close();
  }

  private closeLongestIdle(): void {
    const oldest = [...this.sessions.values()].sort((a, b) => a.lastSeen - b.lastSeen)[0];
    if (oldest) void oldest.transport.close();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((session) => session.transport.close().catch(() => undefined)));
    await this.snapshots.close();
  }
}

/** `?toolsets=a,b` or `?toolsets=a&toolsets=b`, as Express parses them; anything else is no choice. */
function toolsetsParameter(value: unknown): string | string[] | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  if (value !== undefined) throw new QuarryError('toolset_unknown', 'toolsets must be a comma-separated list of toolset names.', { suggestion: '/mcp?toolsets=files,search' });
  return undefined;
}

function jsonRpcError(response: Response, status: number, code: number, message: string): void {
  response.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}
