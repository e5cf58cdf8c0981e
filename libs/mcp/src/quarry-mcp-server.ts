import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_ANSWER_TOKENS, MAX_ANSWER_TOKENS } from '@quarry/contracts';
import type { CallContext, McpEndpoint } from './endpoint';
import { JOB_URI_TEMPLATE, REPO_FILE_URI_TEMPLATE } from './resource-uris';
import { ToolTable } from './tool-table';

export interface QuarryServerOptions {
  endpoint: McpEndpoint;
  version: string;
  /** What tools/list shows; the tool table by default. */
  tools?: ToolTable;
  /** Said to the model in the server's instructions. */
  defaultRepository?: string;
}

/**
 * An MCP server (the SDK's low-level Server: Quarry writes its own JSON Schemas and answers a
 * bad argument with a typed tool error instead of the SDK's message) whose tools and resources
 * are answered by `endpoint`. Connect it to a stdio or a Streamable HTTP transport.
 */
export function createQuarryMcpServer(options: QuarryServerOptions): Server {
  const tools = options.tools ?? new ToolTable();
  const server = new Server(
    { name: 'quarry', title: 'Quarry', version: options.version },
    { capabilities: { tools: {}, resources: {} }, instructions: instructions(options.defaultRepository) },
  );
  const listed = tools.list();
  const context = (extra: { signal: AbortSignal; _meta?: { progressToken?: string | number }; sendNotification: Server['notification'] }): CallContext => {
    const token = extra._meta?.progressToken;
    return {
      signal: extra.signal,
      ...(token === undefined
        ? {}
        : { sendProgress: (notice) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...notice } }) }),
    };
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    options.endpoint.callTool(request.params.name, request.params.arguments ?? {}, context(extra)),
  );
  server.setRequestHandler(ListResourcesRequestSchema, (_request, extra) => options.endpoint.listResources(context(extra)));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      { uriTemplate: JOB_URI_TEMPLATE, name: 'job', title: 'A Quarry job', description: 'A job (yours only): status, input, progress, and its result or typed error.', mimeType: 'application/json' },
      {
        uriTemplate: REPO_FILE_URI_TEMPLATE,
        name: 'repository file',
        title: 'A file of a repository',
        description:
          'A text file; {source} is the repository\'s absolute path or git URL, percent-encoded as one segment (e.g. %2Fhome%2Fme%2Fproject or https%3A%2F%2Fgithub.com%2Fowner%2Frepo.git), {path} the file relative to it, and for a URL ?ref= the branch, tag or commit (default: the remote\'s default branch).',
        mimeType: 'text/plain',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => options.endpoint.readResource(request.params.uri, context(extra)));
  return server;
}

function instructions(defaultRepository: string | undefined): string {
  const repository = defaultRepository
    ? `Tools that read a repository take "repository" (an absolute path); without it they use ${defaultRepository}.`
    : 'Tools that read a repository take "repository", the absolute path of the repository.';
  return [
    'Quarry gives repository context: read files with line numbers, list, find and search them, navigate code (references, definitions, callers and callees, the impact of a change and the tests to run), detect the tech stack, scan a whole repository, expand @-mentions into an augmented prompt, fetch URLs safely, and answer plain-language questions.',
    repository,
    'Paths inside a repository are relative to its root. Failures come back as tool errors whose text is {"kind", "message", "suggestion"}: follow the suggestion.',
    `Answers fit maxTokens (default ${DEFAULT_ANSWER_TOKENS}, at most ${MAX_ANSWER_TOKENS}): a longer one is cut at a line and gives structuredContent.nextCursor; call the same tool with the same arguments and "cursor" for the rest.`,
    'structuredContent.index names the commit read, the files edited since it (seen at once) and how much of the index is built.',
    'Each job-backed call links its job as a quarry://jobs/{id} resource. More tools: start the server with --toolsets all (or /mcp?toolsets=all).',
  ].join(' ');
}
