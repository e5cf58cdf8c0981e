import { contextResultSchema } from '../../libs/contracts/src';
import { FakeChatServer, FakeEmbeddingsServer } from '../../libs/llm/src/testing';
import { parseEmbeddingSettings, parseLlmSettings } from '../../libs/llm/src';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * Retrieval's optional layers in the worker, on real Redis and Postgres, against real HTTP
 * servers on 127.0.0.1: chunk vectors from an OpenAI-compatible embeddings server stored in
 * Postgres and reused by the next job; a chat-model rerank; and an endpoint that is down or
 * rate-limited making the job answer with the lexical ranking and a warning, never fail.
 */

jest.setTimeout(60_000);

describe('context jobs with embeddings and a rerank configured', () => {
  let embeddings: FakeEmbeddingsServer;
  let chat: FakeChatServer;
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    embeddings = await FakeEmbeddingsServer.start({ dimensions: 32 });
    chat = await FakeChatServer.start();
    root = makeTree({
      'src/sessions.ts': 'export function expireIdleSessions(store: Store, now: number) {\n  for (const session of store.sessions()) if (now - session.lastSeen > session.timeout) store.logout(session);\n}\n',
      'src/tokens.ts': 'export function refreshToken(token: Token, now: number) {\n  return token.expiresAt - now < 60 ? token.renew() : token;\n}\n',
      'src/server.ts': "import { expireIdleSessions } from './sessions';\n\nexport function tick(store: Store) {\n  expireIdleSessions(store, Date.now());\n}\n",
    });
    stack = await TestStack.start({
      workspaceRoots: [root],
      embeddings: parseEmbeddingSettings({ baseUrl: embeddings.baseUrl, model: `fake-embed-${Date.now()}`, timeoutMs: 1_000, maxRetries: 1, retryBaseMs: 5 }),
      llm: parseLlmSettings({ baseUrl: chat.baseUrl, model: 'fake-chat', timeoutMs: 1_000, maxRetries: 1, retryBaseMs: 5 }),
      context: { rerankTop: 2, semanticFiles: 100, embeddingsBudgetMs: 5_000 },
    });
  });
  afterAll(async () => {
    await stack.close();
    await embeddings.close();
    await chat.close();
  });
  afterEach(() => {
    embeddings.reset();
    chat.reset();
  });

  const context = async (task: string) => {
    const { status, body } = await stack.submit('context', { root, task });
    expect(status).toBe(202);
    const job = await stack.waitForStatus(body.id, ['succeeded', 'failed']);
    expect(job.status).toBe('succeeded');
    return contextResultSchema.parse(job.result);
  };

  it('embeds the chunks once into Postgres, fuses them, and has the chat model order the top spans', async () => {
    chat.reply({ ranking: [2, 1] });
    const first = await context('idle sessions never time out');
    expect(first.warnings).toEqual([]);
    expect(first.layers).toMatchObject({ embeddings: { status: 'used', files: 3, embedded: first.stats.chunks }, rerank: { status: 'used', spans: 2 } });
    expect(first.spans[0].why.map((entry) => entry.signal)).toEqual(expect.arrayContaining(['semantic', 'rerank']));
    const stored = await stack.prisma.$queryRawUnsafe<{ count: bigint }[]>('SELECT count(*) AS count FROM chunk_embeddings WHERE dimensions = 32');
    expect(Number(stored[0].count)).toBeGreaterThanOrEqual(first.stats.chunks);

    embeddings.reset();
    chat.reply({ ranking: [1, 2] });
    const second = await context('where do sessions expire?');
    expect(second.layers?.embeddings).toMatchObject({ status: 'used', embedded: 0 });
    expect(embeddings.requests.map((request) => request.body.input.length)).toEqual([1]);
  });

  it('answers with the lexical ranking and a warning when both endpoints fail', async () => {
    embeddings.fail(429, { 'retry-after': '0' }).fail(429, { 'retry-after': '0' });
    chat.fail(503).fail(503);
    const result = await context('who logs out idle sessions');
    expect(result.layers).toMatchObject({ embeddings: { status: 'fell_back' }, rerank: { status: 'fell_back' } });
    expect(result.warnings).toEqual([expect.stringMatching(/^The semantic layer was not used \(.*HTTP 429.*\): the ranking is lexical\.$/), expect.stringMatching(/^The rerank was not used \(.*HTTP 503.*\)/)]);
    expect(result.files[0].path).toBe('src/sessions.ts');
    expect(result.context).toContain('expireIdleSessions');
  });
});
