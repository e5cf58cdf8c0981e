import { McpError, type CallToolResult, type ListResourcesResult, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { QuarryError, closestMatch, isQuarryError, parseOrThrow, type QuarryErrorBody } from '@quarry/contracts';
import type { QuarryBackend } from './backend';
import type { CallContext, McpEndpoint } from './endpoint';
import { ProgressRelay } from './progress-relay';
import { repositoryFields } from './repository-argument';
import { jobUri, parseResourceUri } from './resource-uris';
import { answerTokenBudget } from '@quarry/contracts';
import { argumentsOf, callKey, decodeCursor } from './answer-cursor';
import { fitPage, fitWhole, isPagedAnswer } from './paged-answer';
import { errorBodyOf, toolFailure } from './tool-result';
import { ToolTable } from './tool-table';
import { answerSchema, type ToolSpec } from './tool-spec';

/** JSON-RPC error code MCP gives "resource not found". */
export const RESOURCE_NOT_FOUND = -32002;
/** Jobs `resources/list` shows. */
const LISTED_JOBS = 50;
/** A file resource larger than this is refused: read it with read_file in ranges instead. */
const MAX_RESOURCE_BYTES = 4 * 1024 * 1024;

export interface BackendEndpointOptions {
  tools?: ToolTable;
  /** Told about failures that are not QuarryErrors (bugs, outages); the client gets `internal`. */
  onInternalError?: (error: unknown, tool: string) => void;
}

/** The tool table and the resources, answered by a backend. */
export class BackendEndpoint implements McpEndpoint {
  private readonly tools: ToolTable;

  constructor(
    private readonly backend: QuarryBackend,
    private readonly options: BackendEndpointOptions = {},
  ) {
    this.tools = options.tools ?? new ToolTable();
  }

  async callTool(name: string, args: Record<string, unknown>, call: CallContext): Promise<CallToolResult> {
    const progress = call.sendProgress && new ProgressRelay((notice) => void call.sendProgress?.(notice).catch(() => undefined));
    try {
      const spec = this.tools.get(name);
      // A cursor that carries its call's arguments continues with `{"cursor": …}` alone; any argument given too must be the same.
      const given = spec.paged && typeof args.cursor === 'string' ? { ...argumentsOf(args.cursor, spec.name), ...args } : args;
      const parsed = parseArguments(spec, given) as Record<string, unknown> & { maxTokens?: number; cursor?: string };
      // Only a paged tool's maxTokens is the answer's (pack_repository's is the pack's own budget).
      const maxTokens = answerTokenBudget(spec.paged ? parsed.maxTokens : undefined);
      // The call's identity, the default repository named: a cursor continues the same call wherever it is passed.
      const key = callKey('repository' in spec.input.shape && parsed.repository === undefined ? { ...parsed, repository: this.backend.defaultRepository } : parsed);
      const cursor = spec.paged && parsed.cursor !== undefined ? decodeCursor(parsed.cursor, spec.name, key) : undefined;
      const answer = await spec.run(parsed, { backend: this.backend, signal: call.signal, progress, maxTokens, cursor });
      // The last count reaches the client before the result does, whatever the interval says.
      progress?.finish();
      const { cursor: _cursor, maxTokens: _maxTokens, ...callArguments } = given;
      const context = { tool: spec.name, call: key, maxTokens, cursor, index: answer.index, args: callArguments };
      const result = isPagedAnswer(answer) ? fitPage(answer, context) : fitWhole(answer, context);
      // Validated and stripped to the schema the client checks structuredContent against.
      const structured = answerSchema(spec).safeParse(result.structuredContent);
      if (!structured.success) throw new Error(`${name} produced a result outside its output schema: ${structured.error.message}`);
      return { ...result, structuredContent: structured.data as Record<string, unknown> };
    } catch (error) {
      if (!isQuarryError(error)) this.options.onInternalError?.(error, name);
      return toolFailure(errorBodyOf(error));
    } finally {
      progress?.stop();
    }
  }

  async listResources(): Promise<ListResourcesResult> {
    const jobs = await this.backend.listJobs(LISTED_JOBS).catch(() => []);
    return {
      resources: jobs.map((job) => ({
        uri: jobUri(job.id),
        name: `${job.kind} job ${job.id}`,
        description: `${job.kind} job, ${job.status}, created ${job.createdAt}`,
        mimeType: 'application/json',
      })),
    };
  }

  async readResource(uri: string, call: CallContext): Promise<ReadResourceResult> {
    const address = parseResourceUri(uri);
    try {
      if (!address) {
        throw new QuarryError('not_found', `"${uri}" is not a Quarry resource.`, {
          suggestion: 'Quarry resources are quarry://jobs/{id} and quarry://repo/{repository path or git URL, percent-encoded}/{file path}[?ref=REF].',
        });
      }
      if (address.type === 'job') {
        const job = await this.backend.getJob(address.id);
        return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(job, null, 2) }] };
      }
      return { contents: [{ uri, mimeType: 'text/plain', text: await this.readWholeFile(repositoryFields(address.source, address.ref), address.path, call.signal) }] };
    } catch (error) {
      const body = errorBodyOf(error);
      throw new McpError(RESOURCE_NOT_FOUND, `${body.kind}: ${body.message}`, { uri, ...body });
    }
  }

  /** A file's text through read_file, page after page (a resource is the whole file). */
  private async readWholeFile(repository: ReturnType<typeof repositoryFields>, path: string, signal: AbortSignal): Promise<string> {
    const lines: string[] = [];
    let bytes = 0;
    for (let startLine: number | undefined; ; ) {
      const page = await this.backend.runWorkspaceTool('read_file', { ...repository, path, ...(startLine ? { startLine } : {}) }, signal);
      for (const line of page.lines) {
        lines.push(line.text);
        bytes += Buffer.byteLength(line.text) + 1;
      }
      if (bytes > MAX_RESOURCE_BYTES) {
        throw new QuarryError('file_too_large', `"${path}" is larger than a resource can be (${MAX_RESOURCE_BYTES} bytes).`, {
          suggestion: 'Read it with the read_file tool, a line range at a time.',
        });
      }
      if (!page.truncated || page.lines.length === 0) break;
      startLine = page.endLine + 1;
    }
    return lines.length ? `${lines.join('\n')}\n` : '';
  }
}

/** Arguments checked against the tool's input schema; a misspelt one is named with the closest real one. */
function parseArguments(spec: ToolSpec, args: Record<string, unknown>): z.infer<ToolSpec['input']> {
  const known = Object.keys(spec.input.shape);
  const unknown = Object.keys(args).filter((name) => !known.includes(name));
  if (unknown.length) {
    const guess = closestMatch(unknown[0], known);
    const body: QuarryErrorBody = {
      kind: 'input_invalid',
      message: `arguments.${unknown[0]}: ${spec.name} has no argument "${unknown[0]}".`,
      suggestion: `${guess ? `Did you mean "${guess}"? ` : ''}Arguments: ${known.join(', ')}.`,
    };
    throw new QuarryError('input_invalid', body.message, { suggestion: body.suggestion });
  }
  return parseOrThrow(spec.input, args, 'arguments');
}
