import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { isQuarryError, type QuarryError } from '@quarry/contracts';
import { LlmClient } from './llm-client';
import type { LlmClientOptions } from './settings';
import { FakeChatServer } from './testing';

// The shape detection will ask for: a guess with a confidence and a reason.
const stackSchema = z.object({
  language: z.string(),
  build_system: z.string().nullable(),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
});
const ask = { system: 'You identify software stacks.', user: 'Files: build.zig, src/main.zig', schema: stackSchema, schemaName: 'stack_guess' };
const zig = { language: 'zig', build_system: 'zig build', confidence: 0.9, reasoning: 'build.zig at the root' };

let server: FakeChatServer;

beforeAll(async () => {
  server = await FakeChatServer.start();
});
afterEach(() => {
  // A test that leaves scripts behind asserted less than it meant to.
  expect(server.pending).toBe(0);
  server.reset();
});
afterAll(async () => {
  await server.close();
});

function client(options: Partial<LlmClientOptions> = {}): LlmClient {
  return new LlmClient({ baseUrl: server.baseUrl, model: 'test-model', timeoutMs: 800, retryBaseMs: 10, ...options });
}

async function rejection(promise: Promise<unknown>): Promise<QuarryError> {
  try {
    await promise;
  } catch (error) {
    if (isQuarryError(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('LlmClient.complete', () => {
  it('returns a validated structured answer', async () => {
    server.reply(zig, { model: 'served-model', usage: { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 } });
    const answer = await client().complete(ask);
    expect(answer).toEqual({
      value: zig,
      model: 'served-model',
      usage: { promptTokens: 30, completionTokens: 12, totalTokens: 42 },
      raw: JSON.stringify(zig),
      attempts: 1,
    });
  });

  it('sends model, temperature 0, system + user messages and a strict json_schema', async () => {
    server.reply(zig);
    await client().complete(ask);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.body).toMatchObject({
      model: 'test-model',
      temperature: 0,
      messages: [
        { role: 'system', content: ask.system },
        { role: 'user', content: ask.user },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'stack_guess',
          strict: true,
          schema: { type: 'object', additionalProperties: false, required: ['language', 'build_system', 'confidence', 'reasoning'] },
        },
      },
    });
    expect(request.body.stream).toBeUndefined();
    // No key configured: no Authorization header at all (local servers need none).
    expect(request.headers.authorization).toBeUndefined();
  });

  it('sends the API key as a bearer token when one is set', async () => {
    server.reply(zig);
    await client({ apiKey: 'sk-quarry-test' }).complete(ask);
    expect(server.requests[0].headers.authorization).toBe('Bearer sk-quarry-test');
  });

  it('accepts JSON inside a ```json fence from servers that ignore response_format', async () => {
    server.replyText(`Sure! Here is the answer:\n\`\`\`json\n${JSON.stringify(zig, null, 2)}\n\`\`\``);
    const answer = await client().complete(ask);
    expect(answer.value).toEqual(zig);
    expect(answer.raw).toContain('```json');
  });

  it('passes a low-confidence answer through: the confidence policy belongs to the caller', async () => {
    server.reply({ ...zig, confidence: 0.3 });
    expect((await client().complete(ask)).value.confidence).toBe(0.3);
  });

  it('turns malformed JSON into llm_invalid_output quoting the answer, without retrying', async () => {
    server.malformed();
    const error = await rejection(client().complete(ask));
    expect(error.kind).toBe('llm_invalid_output');
    expect(error.permanent).toBe(true);
    expect(error.message).toMatch(/stack_guess is not JSON/);
    expect(error.message).toContain('"{\\"language\\": \\"rust\\"');
    expect(server.requests).toHaveLength(1);
  });

  it('turns a schema mismatch into llm_invalid_output naming the path', async () => {
    server.reply({ ...zig, confidence: 'very high' });
    const error = await rejection(client().complete(ask));
    expect(error.kind).toBe('llm_invalid_output');
    expect(error.message).toMatch(/does not match stack_guess at confidence: /);
    expect(error.message).toContain('very high');
  });

  it('treats a refusal, no choices and an empty answer as llm_invalid_output', async () => {
    server.refuse('I cannot help with that.');
    expect((await rejection(client().complete(ask))).message).toMatch(/refused to answer stack_guess: "I cannot help with that\."/);
    server.replyRaw({ id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [] });
    expect((await rejection(client().complete(ask))).message).toMatch(/has no choices/);
    server.replyText('   ');
    const empty = await rejection(client().complete(ask));
    expect([empty.kind, empty.message]).toEqual(['llm_invalid_output', expect.stringMatching(/is empty/)]);
  });

  it('says when a bad answer was cut off at the token limit', async () => {
    server.replyText('{"language": "zig", "reas', { finishReason: 'length' });
    expect((await rejection(client().complete(ask))).message).toMatch(/cut off at the token limit/);
  });

  it('retries a 429 after the Retry-After the server asked for, and counts the attempts', async () => {
    server.fail(429, { error: { message: 'slow down' } }, { 'retry-after-ms': '150' }).reply(zig);
    const started = Date.now();
    const answer = await client({ retryBaseMs: 1 }).complete(ask);
    expect(answer.value).toEqual(zig);
    expect(answer.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('retries a 429 with Retry-After: 0 on the exponential backoff floor', async () => {
    server.fail(429, undefined, { 'retry-after': '0' }).reply(zig);
    expect((await client().complete(ask)).attempts).toBe(2);
  });

  it('gives up at once when Retry-After is beyond the timeout budget', async () => {
    server.fail(429, { error: { message: 'quota' } }, { 'retry-after': '30' });
    const started = Date.now();
    const error = await rejection(client().complete(ask));
    expect(error.kind).toBe('llm_unavailable');
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/HTTP 429: quota; the next retry \(in 30000 ms\) would pass the 800 ms budget/);
    expect(Date.now() - started).toBeLessThan(500);
    expect(server.requests).toHaveLength(1);
  });

  it('reports llm_unavailable after maxRetries when the server keeps answering 429', async () => {
    for (let i = 0; i < 3; i += 1) server.fail(429, { error: { message: 'rate limited' } }, { 'retry-after': '0' });
    const error = await rejection(client({ maxRetries: 2 }).complete(ask));
    expect(error.kind).toBe('llm_unavailable');
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/unavailable after 3 attempts: HTTP 429: rate limited/);
    expect(server.requests).toHaveLength(3);
  });

  it('retries a 500', async () => {
    server.fail(500, { error: { message: 'model loading' } }).fail(503).reply(zig);
    const answer = await client().complete(ask);
    expect(answer.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a configuration error (404 model) and marks it permanent', async () => {
    server.fail(404, { error: { message: 'model "test-model" not found, try pulling it first' } });
    const error = await rejection(client().complete(ask));
    expect(error.kind).toBe('llm_unavailable');
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('model "test-model" not found');
    expect(error.suggestion).toMatch(/serves the model "test-model"/);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a hanging server as llm_unavailable within the timeout', async () => {
    server.hang(5_000);
    const started = Date.now();
    const error = await rejection(client({ timeoutMs: 300 }).complete(ask));
    const elapsed = Date.now() - started;
    expect(error.kind).toBe('llm_unavailable');
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/did not answer within 300 ms/);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(300 + 400);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused connection as llm_unavailable after its retries', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = new LlmClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 800, retryBaseMs: 10, maxRetries: 1 });
    const started = Date.now();
    const error = await rejection(refused.complete(ask));
    expect(error.kind).toBe('llm_unavailable');
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/unavailable after 2 attempts: connection refused/);
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('rejects promptly with the signal reason when the caller aborts mid-request', async () => {
    server.reply(zig, { delayMs: 2_000 });
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    setTimeout(() => controller.abort(reason), 50);
    const started = Date.now();
    await expect(client({ timeoutMs: 5_000 }).complete({ ...ask, signal: controller.signal })).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('rejects promptly when aborted during a retry wait, and at once when already aborted', async () => {
    server.fail(503, undefined, { 'retry-after': '3' });
    const controller = new AbortController();
    setTimeout(() => controller.abort('stop'), 50);
    const started = Date.now();
    await expect(client({ timeoutMs: 5_000 }).complete({ ...ask, signal: controller.signal })).rejects.toBe('stop');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(server.requests).toHaveLength(1);

    await expect(client().complete({ ...ask, signal: AbortSignal.abort('before') })).rejects.toBe('before');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a schema name OpenAI would refuse before sending anything', async () => {
    await expect(client().complete({ ...ask, schemaName: 'stack guess!' })).rejects.toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });
});
