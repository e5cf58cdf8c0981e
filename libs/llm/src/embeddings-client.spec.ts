import { embeddingSettingsFromEnv } from './settings';
import { EmbeddingsClient } from './embeddings-client';
import { FakeEmbeddingsServer } from './testing';

/* The embeddings client against a real HTTP server on 127.0.0.1: vectors, batches and every fault typed. */

let server: FakeEmbeddingsServer;
beforeAll(async () => {
  server = await FakeEmbeddingsServer.start({ dimensions: 16 });
});
afterEach(() => server.reset());
afterAll(() => server.close());

const client = (options: { timeoutMs?: number; batchSize?: number; maxRetries?: number; dimensions?: number; apiKey?: string } = {}) =>
  new EmbeddingsClient({ baseUrl: server.baseUrl, model: 'fake-embed', retryBaseMs: 5, timeoutMs: 1_000, ...options });

describe('EmbeddingsClient', () => {
  it('answers one vector per text, in order, in batches, asking for floats', async () => {
    const texts = ['rate limiter', 'login retries', 'token bucket', 'password hash', 'rate limit'];
    const vectors = await client({ batchSize: 2, apiKey: 'sk-test' }).embed(texts);
    expect(vectors.map((vector) => Array.from(vector))).toEqual(texts.map((text) => Array.from(Float32Array.from(server.vectorOf(text)))));
    expect(server.requests.map((request) => request.body.input)).toEqual([texts.slice(0, 2), texts.slice(2, 4), texts.slice(4)]);
    expect(server.requests[0].body).toMatchObject({ model: 'fake-embed', encoding_format: 'float' });
    expect(server.requests[0].body.dimensions).toBeUndefined();
    expect(server.requests[0].headers.authorization).toBe('Bearer sk-test');
  });

  it('sends the dimensions asked for, and no Authorization header without a key', async () => {
    await client({ dimensions: 16 }).embed(['x y z']);
    expect(server.requests[0].body.dimensions).toBe(16);
    expect(server.requests[0].headers.authorization).toBeUndefined();
  });

  it('retries a 429, honouring Retry-After within the budget', async () => {
    server.fail(429, { 'retry-after-ms': '20' });
    const vectors = await client({ maxRetries: 1 }).embed(['rate limiter']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['a 429 that persists', () => server.fail(429).fail(429), 'llm_unavailable', /unavailable after 2 attempts: HTTP 429/],
    ['a 500', () => server.fail(500).fail(500), 'llm_unavailable', /HTTP 500/],
    ['a 401', () => server.fail(401), 'llm_unavailable', /refused the request \(HTTP 401/],
    ['a server that hangs', () => server.hang(2_000).hang(2_000), 'llm_unavailable', /did not answer within 300 ms/],
    ['one vector too few', () => server.wrongCount(), 'llm_invalid_output', /answered 1 vectors for 2 texts/],
    ['no data list', () => server.replyRaw({ object: 'list' }), 'llm_invalid_output', /without a data list/],
    ['a vector of strings', () => server.replyRaw({ data: [{ index: 0, embedding: ['a'] }, { index: 1, embedding: [1] }] }), 'llm_invalid_output', /not a list of finite numbers/],
    ['vectors of two sizes', () => server.replyRaw({ data: [{ index: 0, embedding: [1, 2] }, { index: 1, embedding: [1, 2, 3] }] }), 'llm_invalid_output', /vectors of 3 and 2 numbers/],
    ['an index twice', () => server.replyRaw({ data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [1] }] }), 'llm_invalid_output', /index 0 for 2 texts/],
  ])('%s → %s', async (name, script, kind, message) => {
    script();
    // Only the hanging server needs a short timeout; the others get one a busy machine never reaches.
    const error = await client({ timeoutMs: name === 'a server that hangs' ? 300 : 10_000, maxRetries: 1 })
      .embed(['rate limiter', 'login'])
      .then(
        () => undefined,
        (caught) => caught,
      );
    expect(error).toMatchObject({ kind });
    expect(error.message).toMatch(message);
    expect(error.suggestion).toMatch(/QUARRY_EMBEDDINGS/);
  });

  it('rejects with the caller\'s reason when aborted', async () => {
    server.hang(2_000);
    const controller = new AbortController();
    const pending = client().embed(['x'], controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('embeddingSettingsFromEnv', () => {
  it('is off without a base URL, and reads every setting with one', () => {
    expect(embeddingSettingsFromEnv({})).toBeUndefined();
    expect(
      embeddingSettingsFromEnv({ QUARRY_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1', QUARRY_EMBEDDINGS_MODEL: 'nomic-embed-text', QUARRY_EMBEDDINGS_DIMENSIONS: '256', QUARRY_EMBEDDINGS_BATCH: '32' }),
    ).toMatchObject({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', dimensions: 256, batchSize: 32, timeoutMs: 10_000 });
  });

  it('names each bad setting by its variable', () => {
    expect(() => embeddingSettingsFromEnv({ QUARRY_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1' })).toThrow(/QUARRY_EMBEDDINGS_MODEL: must name a model/);
    expect(() => embeddingSettingsFromEnv({ QUARRY_EMBEDDINGS_BASE_URL: 'ftp://x', QUARRY_EMBEDDINGS_MODEL: 'm' })).toThrow(/QUARRY_EMBEDDINGS_BASE_URL: must use http or https/);
    expect(() => embeddingSettingsFromEnv({ QUARRY_EMBEDDINGS_BASE_URL: 'http://h/v1', QUARRY_EMBEDDINGS_MODEL: 'm', QUARRY_EMBEDDINGS_DIMENSIONS: 'abc' })).toThrow(/QUARRY_EMBEDDINGS_DIMENSIONS/);
  });
});
