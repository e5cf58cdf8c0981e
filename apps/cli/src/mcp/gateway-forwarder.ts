import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type CallToolResult,
  type ListResourcesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { QuarryError, isQuarryError, quarryErrorSchema, type QuarryErrorBody } from '@quarry/contracts';
import { ToolTable, toolFailure, type CallContext, type McpEndpoint } from '@quarry/mcp';

/** A forwarded call waits as long as its job runs; the job's own limits and cancellation bound it. */
const FORWARDED_CALL_TIMEOUT_MS = 6 * 60 * 60_000;

/**
 * `quarry mcp --server URL`: the stdio server answers with the gateway's /mcp (Streamable HTTP,
 * the same tool table, run as jobs of the API key's owner). It adds the local default repository
 * (`--root`) to calls that name none, relays progress and cancellation, and reconnects when the
 * gateway forgot the session (a restart). A gateway that does not answer is a tool error, not a
 * dead server: the agent is told what to fix.
 */
export class GatewayForwarder implements McpEndpoint {
  private client: Promise<Client> | undefined;
  private readonly endpoint: URL;

  constructor(
    server: string,
    private readonly key: string | undefined,
    private readonly version: string,
    private readonly defaultRepository?: string,
    private readonly tools = new ToolTable(),
  ) {
    this.endpoint = new URL('/mcp', server.replace(/\/+$/, '') + '/');
    // The gateway lists what this server lists: the same toolsets.
    this.endpoint.searchParams.set('toolsets', tools.toolsets.join(','));
  }

  async callTool(name: string, args: Record<string, unknown>, call: CallContext): Promise<CallToolResult> {
    try {
      const spec = this.tools.get(name);
      const withRepository =
        this.defaultRepository !== undefined && 'repository' in spec.input.shape && args.repository === undefined ? { ...args, repository: this.defaultRepository } : args;
      return (await this.withClient((client) =>
        client.callTool({ name, arguments: withRepository }, CallToolResultSchema, {
          signal: call.signal,
          timeout: FORWARDED_CALL_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          ...(call.sendProgress ? { onprogress: (progress) => void call.sendProgress?.(progress).catch(() => undefined) } : {}),
        }),
      )) as CallToolResult;
    } catch (error) {
      return toolFailure(this.describe(error));
    }
  }

  async listResources(call: CallContext): Promise<ListResourcesResult> {
    return this.forwardResource((client) => client.listResources(undefined, { signal: call.signal }));
  }

  async readResource(uri: string, call: CallContext): Promise<ReadResourceResult> {
    return this.forwardResource((client) => client.readResource({ uri }, { signal: call.signal }));
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async forwardResource<T>(request: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await this.withClient(request);
    } catch (error) {
      if (error instanceof McpError) throw error; // the gateway's own answer, typed error in `data`
      const body = this.describe(error);
      throw new McpError(ErrorCode.InternalError, `${body.kind}: ${body.message}`, body);
    }
  }

  /** Runs `request` on the session, starting one if needed; once more on a fresh session if the gateway forgot this one. */
  private async withClient<T>(request: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await request(await this.connect());
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code === 404)) throw error;
      await this.close();
      return request(await this.connect());
    }
  }

  private connect(): Promise<Client> {
    this.client ??= (async () => {
      const client = new Client({ name: 'quarry-mcp-stdio', version: this.version });
      const transport = new StreamableHTTPClientTransport(this.endpoint, {
        requestInit: { headers: this.key ? { authorization: `Bearer ${this.key}` } : {} },
      });
      await client.connect(transport);
      return client;
    })().catch((error: unknown) => {
      this.client = undefined;
      throw error;
    });
    return this.client;
  }

  /** A failure to reach the gateway, or its refusal, as Quarry's typed error. */
  private describe(error: unknown): QuarryErrorBody {
    if (isQuarryError(error)) return error.toBody();
    if (error instanceof StreamableHTTPError) {
      const typed = typedBodyIn(error.message);
      if (typed) return typed;
      return { kind: error.code === 401 ? 'unauthorized' : 'unavailable', message: `The gateway at ${this.endpoint.origin} refused the MCP request (${error.message}).` };
    }
    if (error instanceof McpError) return { kind: 'internal', message: error.message };
    return new QuarryError('unavailable', `No Quarry answers at ${this.endpoint.origin} (${(error as Error)?.message ?? String(error)}).`, {
      suggestion: 'Start one with `quarry up` (or `npm start`), or point --server at a running gateway; without --server, `quarry mcp` runs the tools in this process.',
    }).toBody();
  }
}

/** The gateway answers HTTP-level refusals (401, 403, 413…) with Quarry's typed body; the SDK puts it in the error message. */
function typedBodyIn(message: string): QuarryErrorBody | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = quarryErrorSchema.safeParse(JSON.parse(message.slice(start)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
