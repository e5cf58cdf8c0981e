import { BlobIndexer } from '@quarry/code-index';
import { contextResultSchema } from '@quarry/contracts';
import { EmbeddingsClient, LlmClient } from '@quarry/llm';
import { FakeChatServer, FakeEmbeddingsServer } from '../../../llm/src/testing';
import { retrieveContext, type RetrieveOptions } from '../retrieve';
import { corpusOf } from '../testing/corpus-of';
import type { ContextCorpus } from '../corpus/context-corpus';
import { MemoryChunkEmbeddingStore } from './chunk-embeddings';

/*
 * The optional layers against real HTTP servers on 127.0.0.1: embeddings from a server speaking
 * the OpenAI embeddings protocol (deterministic vectors: texts sharing words point the same way),
 * a rerank from one speaking chat completions (scripted answers), and every fault they can have —
 * down, slow, 429, 500, malformed — falling back to the lexical ranking with a warning.
 */

const FILES: Record<string, string> = {
  'app/sessions.py': [
    'def expire_idle_sessions(store, now):',
    '    """Logs out every session idle for longer than its timeout."""',
    '    for session in store.sessions():',
    '        if now - session.last_seen > session.timeout:',
    '            store.logout(session)',
    '',
  ].join('\n'),
  'app/tokens.py': [
    'def refresh_token(token, clock):',
    '    """A new access token before the old one expires."""',
    '    if token.expires_at - clock.now() < 60:',
    '        return token.renew()',
    '    return token',
    '',
  ].join('\n'),
  'app/timeouts.py': ['DEFAULT_TIMEOUT = 30', '', '', 'def timeout_for(request):', '    return request.timeout or DEFAULT_TIMEOUT', ''].join('\n'),
  'app/views.py': ['from app.sessions import expire_idle_sessions', '', '', 'def index(request):', '    return "ok"', ''].join('\n'),
};
const TASK = 'Users stay logged in forever: idle sessions never time out';

let indexer: BlobIndexer;
let corpus: ContextCorpus;
let read: (path: string) => Promise<string>;
let embeddings: FakeEmbeddingsServer;
let chat: FakeChatServer;

beforeAll(async () => {
  indexer = await BlobIndexer.create();
  ({ corpus, read } = corpusOf(indexer, FILES));
  embeddings = await FakeEmbeddingsServer.start({ dimensions: 32 });
  chat = await FakeChatServer.start();
});
afterEach(() => {
  embeddings.reset();
  chat.reset();
});
afterAll(async () => {
  await embeddings.close();
  await chat.close();
});

const embedder = (options: { timeoutMs?: number; maxRetries?: number } = {}) => new EmbeddingsClient({ baseUrl: embeddings.baseUrl, model: 'fake-embed', retryBaseMs: 5, timeoutMs: 500, maxRetries: 1, ...options });
const semantic = (store = new MemoryChunkEmbeddingStore(), options: { budgetMs?: number; timeoutMs?: number } = {}): NonNullable<RetrieveOptions['semantic']> => ({
  embedder: embedder({ timeoutMs: options.timeoutMs }),
  store,
  candidateFiles: 10,
  budgetMs: options.budgetMs ?? 5_000,
});
const retrieve = async (options: Partial<RetrieveOptions> = {}, task = TASK) => contextResultSchema.parse(await retrieveContext(corpus, { task, tokens: 2_000 }, { readText: read, ...options }));
const ranked = (result: { files: { path: string }[] }) => result.files.map((file) => file.path);

describe('the semantic layer', () => {
  it('embeds the candidate chunks once, fuses their cosine with the lexical ranking by rank, and says so', async () => {
    const lexical = await retrieve();
    const store = new MemoryChunkEmbeddingStore();
    const result = await retrieve({ semantic: semantic(store) });
    expect(result.warnings).toEqual([]);
    expect(result.layers?.embeddings).toMatchObject({ status: 'used', files: corpus.fileCount, chunks: corpus.chunkCount, embedded: corpus.chunkCount });
    expect(embeddings.textsEmbedded).toBe(corpus.chunkCount + 1);
    expect(store.size).toBe(corpus.chunkCount);
    expect(result.files[0].path).toBe('app/sessions.py');
    expect(result.files[0].why.find((entry) => entry.signal === 'semantic')?.notes[0]).toMatch(/^cosine 0\.\d{3}, semantic rank \d$/);
    expect(result.spans[0].why.map((entry) => entry.signal)).toContain('semantic');
    expect(new Set(ranked(result))).toEqual(new Set(ranked(lexical)));

    // A second question on the same tree embeds only itself.
    embeddings.reset();
    const again = await retrieve({ semantic: semantic(store) }, 'where do sessions expire?');
    expect(again.layers?.embeddings).toMatchObject({ status: 'used', embedded: 0 });
    expect(embeddings.requests.map((request) => request.body.input.length)).toEqual([1]);
  });

  it('re-embeds only the chunks an edit changed', async () => {
    const store = new MemoryChunkEmbeddingStore();
    await retrieve({ semantic: semantic(store) });
    const edited = corpusOf(indexer, { ...FILES, 'app/timeouts.py': FILES['app/timeouts.py'].replace('30', '45') });
    embeddings.reset();
    const result = contextResultSchema.parse(await retrieveContext(edited.corpus, { task: TASK, tokens: 2_000 }, { readText: edited.read, semantic: semantic(store) }));
    expect(result.layers?.embeddings?.embedded).toBe(1);
  });

  it('orders the candidates by reciprocal rank fusion: a file second in both lists beats one first in one and last in the other', async () => {
    // The task shares its words with the tokens module only: semantically it ranks first there.
    const task = 'refresh access token renew before expires clock';
    const lexical = await retrieve({}, task);
    const fused = await retrieve({ semantic: semantic() }, task);
    const semanticRank = (path: string) => Number(/semantic rank (\d+)/.exec(fused.files.find((file) => file.path === path)!.why.find((entry) => entry.signal === 'semantic')!.notes[0])![1]);
    const rrf = (path: string) => 1 / (60 + ranked(lexical).indexOf(path) + 1) + 1 / (60 + semanticRank(path));
    expect(ranked(fused)).toEqual([...ranked(fused)].sort((a, b) => rrf(b) - rrf(a)));
    expect(fused.files.map((file) => file.score)).toEqual(ranked(fused).map((path) => Math.round(rrf(path) * 10_000) / 10_000));
  });

  describe('falls back to the lexical ranking, with a warning, when the endpoint', () => {
    it.each([
      ['answers 500', () => embeddings.fail(500).fail(500), /HTTP 500/],
      ['answers 429 past its retries', () => embeddings.fail(429).fail(429), /HTTP 429/],
      ['hangs', () => embeddings.hang(3_000).hang(3_000), /did not answer within 300 ms/],
      ['answers one vector too few', () => embeddings.fail(200, {}, { data: [] }), /answered 0 vectors for 1 texts/],
      ['answers garbage, twice', () => embeddings.fail(200, {}, '<html>gateway</html>').fail(200, {}, '<html>gateway</html>'), /embeddings endpoint/],
      ['fails after the task was embedded', () => embeddings.replyRaw({ data: [{ index: 0, embedding: new Array(32).fill(0.5) }] }).fail(503).fail(503), /HTTP 503/],
    ])('%s', async (_name, script, reason) => {
      const lexical = await retrieve();
      script();
      const result = await retrieve({ semantic: semantic(new MemoryChunkEmbeddingStore(), { timeoutMs: 300 }) });
      expect(result.files).toEqual(lexical.files);
      expect(result.spans).toEqual(lexical.spans);
      expect(result.context).toBe(lexical.context);
      expect(result.layers?.embeddings?.status).toBe('fell_back');
      expect(result.warnings).toEqual([expect.stringMatching(/^The semantic layer was not used \(.*\): the ranking is lexical\.$/)]);
      expect(result.warnings[0]).toMatch(reason);
    });

    it('is down (nothing listens)', async () => {
      const closed = await FakeEmbeddingsServer.start();
      const baseUrl = closed.baseUrl;
      await closed.close();
      const result = await retrieve({ semantic: { ...semantic(), embedder: new EmbeddingsClient({ baseUrl, model: 'm', timeoutMs: 500, maxRetries: 0 }) } });
      expect(result.layers?.embeddings?.status).toBe('fell_back');
      expect(result.warnings[0]).toMatch(/connection refused/);
    });

    it('is too slow for the query budget: what was embedded is kept for the next question', async () => {
      embeddings.slow(150);
      const store = new MemoryChunkEmbeddingStore();
      const result = await retrieve({ semantic: semantic(store, { budgetMs: 100, timeoutMs: 1_000 }) });
      expect(result.layers?.embeddings?.status).toBe('fell_back');
      expect(result.warnings[0]).toMatch(/Embedding stopped at its 100 ms budget with 0 of \d+ new chunks embedded/);
    });
  });

  it("stops when the caller aborts, with the caller's reason", async () => {
    embeddings.hang(3_000);
    const controller = new AbortController();
    const pending = retrieve({ semantic: semantic(undefined, { timeoutMs: 2_000 }), signal: controller.signal });
    setTimeout(() => controller.abort(new Error('cancelled by the user')), 30);
    await expect(pending).rejects.toThrow('cancelled by the user');
  });
});

describe('the rerank', () => {
  const llm = () => new LlmClient({ baseUrl: chat.baseUrl, model: 'fake-chat', timeoutMs: 500, maxRetries: 1, retryBaseMs: 5 });

  it("orders the top spans as the chat model says; files follow their spans; the rest keep their place", async () => {
    const lexical = await retrieve();
    chat.reply({ ranking: [3, 1] });
    const result = await retrieve({ rerank: { chat: llm(), top: 3 } });
    expect(result.layers?.rerank).toMatchObject({ status: 'used', spans: 3 });
    const place = (span: { path: string; startLine: number }) => `${span.path}:${span.startLine}`;
    expect(result.spans.slice(0, 3).map(place)).toEqual([lexical.spans[2], lexical.spans[0], lexical.spans[1]].map(place));
    expect(result.spans.slice(3).map(place)).toEqual(lexical.spans.slice(3).map(place));
    expect(result.spans.map((span) => span.score)).toEqual(lexical.spans.map((span) => span.score));
    expect(result.spans[0].why.find((entry) => entry.signal === 'rerank')?.notes).toEqual(["the chat model's rank 1 of 3"]);
    expect(result.files[0].path).toBe(lexical.spans[2].path);
    const request = chat.requests[0].body;
    expect(request.response_format.json_schema.name).toBe('span_ranking');
    expect(request.messages[1].content).toContain(`Task:\n${TASK}`);
    expect(request.messages[1].content).toContain(`[1] ${lexical.spans[0].path}:${lexical.spans[0].startLine}-${lexical.spans[0].endLine}`);
  });

  it.each([
    ['answers 500', () => chat.fail(500).fail(500), /HTTP 500/],
    ['hangs', () => chat.hang(2_000).hang(2_000), /did not answer within 500 ms/],
    ['answers malformed JSON', () => chat.malformed().malformed(), /./],
    ['names no span', () => chat.reply({ ranking: [7, 0, -1] }), /names none of the 3 spans/],
  ])('falls back to the ranking it was given when the chat model %s', async (_name, script, reason) => {
    const lexical = await retrieve();
    script();
    const result = await retrieve({ rerank: { chat: llm(), top: 3 } });
    expect(result.spans).toEqual(lexical.spans);
    expect(result.files).toEqual(lexical.files);
    expect(result.layers?.rerank?.status).toBe('fell_back');
    expect(result.warnings).toEqual([expect.stringMatching(/^The rerank was not used \(.*\): the ranking is the lexical one\.$/)]);
    expect(result.warnings[0]).toMatch(reason);
  });
});
