import path from 'node:path';
import { createLogger, loadConfig } from '@quarry/config';
import { EXIT, printError } from '../cli-output';
import { localFetcher, localRoot } from './local';

export interface McpOptions {
  /** The repository tools use when a call names none (default: the current directory, in-process). */
  root?: string;
  /** A gateway to run the tools on, through its /mcp; absent → in this process. */
  server?: string;
  key?: string;
  /** `--toolsets files,search`: the toolsets listed (default: DEFAULT_TOOLSETS). */
  toolsets?: string;
  version: string;
}

/**
 * `quarry mcp`: an MCP server on stdin/stdout for desktop agents. stdout carries the protocol
 * and nothing else: console output and logs go to stderr. It ends when the client closes stdin
 * (or on SIGINT/SIGTERM), releasing what it holds.
 */
export async function mcpCommand(options: McpOptions): Promise<number> {
  keepStdoutForTheProtocol();
  const config = loadConfig();
  const logger = createLogger('quarry-mcp', config.logLevel, 2);
  const [{ createQuarryMcpServer, BackendEndpoint, ToolTable, parseToolsets }, { StdioServerTransport }] = await Promise.all([
    import('@quarry/mcp'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  let tools: import('@quarry/mcp').ToolTable;
  try {
    tools = new ToolTable().withToolsets(parseToolsets(options.toolsets));
  } catch (error) {
    // An unknown toolset: said before the protocol starts, so the agent's log shows why it ended.
    printError(error as { kind: string; message: string; suggestion?: string });
    return EXIT.usage;
  }

  let endpoint: import('@quarry/mcp').McpEndpoint;
  let defaultRepository: string | undefined;
  let release: () => Promise<void>;
  if (options.server) {
    // The gateway resolves paths on its own machine: pass --root through as given (made absolute).
    defaultRepository = options.root === undefined ? undefined : path.resolve(options.root);
    const { GatewayForwarder } = await import('../mcp/gateway-forwarder');
    const forwarder = new GatewayForwarder(options.server, options.key, options.version, defaultRepository, tools);
    endpoint = forwarder;
    release = () => forwarder.close();
  } else {
    defaultRepository = await localRoot(options.root ?? '.');
    const { InProcessBackend } = await import('../mcp/in-process-backend');
    const fetcher = await localFetcher(config);
    const backend = new InProcessBackend(config, fetcher, defaultRepository, (error) => logger.debug({ err: error }, 'index state unavailable'), logger);
    endpoint = new BackendEndpoint(backend, {
      tools,
      onInternalError: (error, tool) => logger.error({ err: error, tool }, 'tool failed'),
    });
    // The default repository is watched from now on: the first answer does not wait for its walk.
    backend.warmUp();
    release = async () => {
      await backend.close();
      await fetcher.close();
      await (await import('@quarry/search')).closeSharedSearchPool();
    };
  }

  const server = createQuarryMcpServer({ endpoint, tools, version: options.version, defaultRepository });
  server.onerror = (error) => logger.warn({ err: error }, 'MCP protocol error');
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.stdout.once('error', () => resolve()); // the client went away (EPIPE)
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.connect(transport);
  logger.info({ mode: options.server ? `gateway ${options.server}` : 'in-process', defaultRepository, toolsets: tools.toolsets }, 'quarry mcp serving on stdio');
  await ended;
  await server.close().catch(() => undefined);
  await release();
  return EXIT.ok;
}

/** Anything printed with console.log/info/debug (ours or a library's) goes to stderr, so stdout stays protocol only. */
function keepStdoutForTheProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
