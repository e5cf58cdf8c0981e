import { z } from 'zod';
import { BUILT_KINDS, JOB_CONTRACTS, JOB_KINDS, jobViewSchema, mentionsParseRequestSchema, quarryErrorSchema, searchAnswerSchema, searchInputSchema } from '@quarry/contracts';
import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * The OpenAPI document, generated from the same zod schemas that validate requests, so the docs
 * cannot drift from the code.
 */
export function buildOpenApiDocument(): OpenAPIObject {
  const schema = (s: z.ZodType) => z.toJSONSchema(s, { unrepresentable: 'any', io: 'input' }) as Record<string, unknown>;
  const error = { description: 'Typed error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  const job = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Job' } } } };
  const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const submitVariants = JOB_KINDS.map((kind) => ({
    type: 'object',
    title: kind,
    description: BUILT_KINDS.includes(kind) ? `${kind} job` : `${kind} job (not available yet: refused with 422 kind_not_available)`,
    properties: { kind: { const: kind }, input: { $ref: `#/components/schemas/${kind}Input` } },
    required: ['kind', 'input'],
  }));
  const components: Record<string, unknown> = { Error: schema(quarryErrorSchema), Job: schema(jobViewSchema) };
  for (const kind of JOB_KINDS) {
    components[`${kind}Input`] = schema(JOB_CONTRACTS[kind].input);
    components[`${kind}Result`] = schema(JOB_CONTRACTS[kind].result);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Quarry',
      version: '1',
      description:
        'Repository context for AI coding agents. Submit a job, then watch it on socket.io namespace /events ' +
        '(emit `subscribe {jobId}`; receive job.snapshot, job.progress, job.status, job.completed | job.failed | job.cancelled). ' +
        'With API keys configured send `Authorization: Bearer <key>`.',
    },
    components: { schemas: components as never, securitySchemes: { key: { type: 'http', scheme: 'bearer' } } },
    security: [{ key: [] }],
    paths: {
      '/v1/jobs': {
        post: {
          summary: 'Submit a job',
          requestBody: { required: true, content: { 'application/json': { schema: { oneOf: submitVariants } } } as never },
          responses: { '202': { description: 'Stored and queued', ...job }, '400': error, '401': error, '403': error, '404': error, '413': error, '422': error },
        },
        get: {
          summary: 'List jobs, newest first',
          parameters: [
            { name: 'kind', in: 'query', schema: { type: 'string', enum: [...JOB_KINDS] } },
            { name: 'status', in: 'query', schema: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
            { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'nextCursor of the previous page' },
          ],
          responses: { '200': { description: '{items, nextCursor}' }, '400': error, '401': error },
        },
      },
      '/v1/jobs/batch': {
        post: {
          summary: 'Submit several jobs at once (at most QUARRY_BATCH_MAX_JOBS, default 500); each item is checked on its own',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', required: ['jobs'], properties: { jobs: { type: 'array', minItems: 1, items: { oneOf: submitVariants } } } } } } as never,
          },
          responses: {
            '202': { description: '{accepted, rejected, items: [{index, ok: true, job} | {index, ok: false, error: {kind, message, suggestion?}}]}, in request order' },
            '400': { description: 'Malformed body (typed error), or no item accepted: kind batch_rejected with the same items' },
            '401': error,
            '413': error,
          },
        },
      },
      '/v1/jobs/{id}': { get: { summary: 'A job with its status, progress, result or error', parameters: [idParam] as never, responses: { '200': { description: 'The job', ...job }, '404': error } } },
      '/v1/jobs/{id}/artifact': {
        get: {
          summary: "A pack job's document, streamed (XML, Markdown or plain text)",
          parameters: [idParam] as never,
          responses: { '200': { description: 'The document' }, '404': error },
        },
      },
      '/v1/jobs/{id}/events': { get: { summary: "The job's history", parameters: [idParam] as never, responses: { '200': { description: '[{at, type, data}]' }, '404': error } } },
      '/v1/jobs/{id}/cancel': { post: { summary: 'Cancel a queued or running job', parameters: [idParam] as never, responses: { '200': { description: 'Cancelled', ...job }, '404': error, '409': error } } },
      '/v1/jobs/{id}/retry': { post: { summary: 'Run a failed or cancelled job again', parameters: [idParam] as never, responses: { '202': { description: 'Queued again', ...job }, '404': error, '409': error } } },
      '/v1/mentions/parse': {
        post: {
          summary: "The typed parse of a prompt's mentions (spans, syntax errors with fix-its), synchronously; nothing is loaded",
          requestBody: { required: true, content: { 'application/json': { schema: schema(mentionsParseRequestSchema) } } as never },
          responses: { '200': { description: '{mentions:[{kind, raw, span, path?, range?, query?, pattern?, url?}], errors:[{kind, raw, span, message, suggestion?}]}' }, '400': error, '401': error },
        },
      },
      '/v1/search': {
        post: {
          summary: 'Search a repository inside QUARRY_WORKSPACE_ROOTS for a fixed string or an RE2 regex, answered at once; total = the sum of `rg -c`',
          requestBody: { required: true, content: { 'application/json': { schema: schema(searchInputSchema) } } as never },
          responses: {
            '200': { description: '{total, files, indexed, filesSearched, skipped, timedOut, truncated, hits, counts?}', content: { 'application/json': { schema: schema(searchAnswerSchema) } } as never },
            '400': error,
            '401': error,
            '403': error,
            '404': error,
          },
        },
      },
      '/health': { get: { summary: 'Liveness', security: [], responses: { '200': { description: 'ok' } } } },
      '/ready': { get: { summary: 'Readiness (Redis and Postgres)', security: [], responses: { '200': { description: 'ready' }, '503': { description: 'not ready' } } } },
      '/metrics': { get: { summary: 'Prometheus metrics', security: [], responses: { '200': { description: 'text exposition format' } } } },
    },
  };
}
