import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QuarryErrorBody, isQuarryError } from '@quarry/contracts';
import { jobUri } from './resource-uris';

/** What a tool hands back before it becomes an MCP result. */
export interface ToolOutput {
  /** What an agent reads: the augmented prompt, numbered lines, search hits, a summary. */
  text: string | string[];
  /** The result as data, matching the tool's outputSchema. */
  structured: Record<string, unknown>;
  /** The job that produced it, linked as a `quarry://jobs/{id}` resource. */
  jobId?: string;
}

export function toolSuccess(output: ToolOutput): CallToolResult {
  const texts = Array.isArray(output.text) ? output.text : [output.text];
  const content: CallToolResult['content'] = texts.map((text) => ({ type: 'text' as const, text }));
  if (output.jobId) {
    content.push({
      type: 'resource_link',
      uri: jobUri(output.jobId),
      name: `job ${output.jobId}`,
      description: 'The job with its status, input and full result',
      mimeType: 'application/json',
    });
  }
  return { content, structuredContent: output.structured, ...(output.jobId ? { _meta: { 'quarry/jobId': output.jobId } } : {}) };
}

/**
 * A failure as a tool result, never a protocol error: `isError` with Quarry's typed
 * `{kind, message, suggestion}` as the text, so the model reads what to fix and a program can
 * parse it.
 */
export function toolFailure(body: QuarryErrorBody): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** Any thrown value as a typed error body; what is not a QuarryError is reported as `internal`. */
export function errorBodyOf(error: unknown): QuarryErrorBody {
  if (isQuarryError(error)) return error.toBody();
  return { kind: 'internal', message: 'The tool failed unexpectedly.', suggestion: 'Try again; if it persists, check the Quarry logs.' };
}
