import { BUILT_KINDS } from '@quarry/contracts';
import { ConfigError, DEFAULT_DATABASE_URL, isLoopbackHost, loadConfig } from './quarry-config';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({}, '/srv/here');
    expect(config).toMatchObject({
      databaseUrl: DEFAULT_DATABASE_URL,
      databaseConfigured: false,
      redisUrl: 'redis://127.0.0.1:6379',
      queuePrefix: 'quarry',
      host: '127.0.0.1',
      port: 3000,
      workspaceRoots: ['/srv/here'],
      workerQueues: [...BUILT_KINDS],
      workerConcurrency: 4,
      allowAnonymous: false,
      detectionMode: 'full',
    });
  });

  it('reads the detection mode and refuses an unknown one', () => {
    expect(loadConfig({ QUARRY_DETECTION_MODE: 'static' }).detectionMode).toBe('static');
    expect(() => loadConfig({ QUARRY_DETECTION_MODE: 'guess' })).toThrow(/QUARRY_DETECTION_MODE/);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      QUARRY_DATABASE_URL: 'postgresql://u@db:5432/q',
      QUARRY_PORT: '8080',
      QUARRY_WORKSPACE_ROOTS: '/a, /b/c',
      QUARRY_WORKER_QUEUES: 'scan',
      QUARRY_WORKER_CONCURRENCY: '8',
      QUARRY_ALLOW_ANONYMOUS: '1',
    });
    expect(config).toMatchObject({ databaseConfigured: true, port: 8080, workspaceRoots: ['/a', '/b/c'], workerConcurrency: 8, allowAnonymous: true });
    expect(loadConfig({ QUARRY_FETCH_ALLOW: '127.0.0.1/32, ::1/128', QUARRY_FETCH_TIMEOUT_MS: '60000' }).fetch).toMatchObject({
      allow: ['127.0.0.1/32', '::1/128'],
      timeoutMs: 60_000,
      maxBytes: 1_048_576,
      cacheTtlMs: 86_400_000,
    });
  });

  it.each([
    [{ QUARRY_PORT: 'eighty' }, /QUARRY_PORT/],
    [{ QUARRY_PORT: '70000' }, /QUARRY_PORT/],
    [{ QUARRY_REDIS_URL: 'not a url' }, /QUARRY_REDIS_URL/],
    [{ QUARRY_WORKER_CONCURRENCY: '0' }, /QUARRY_WORKER_CONCURRENCY/],
    [{ QUARRY_LOG_LEVEL: 'loud' }, /QUARRY_LOG_LEVEL/],
    [{ QUARRY_QUEUE_PREFIX: 'has space' }, /QUARRY_QUEUE_PREFIX/],
    [{ QUARRY_WORKSPACE_ROOTS: 'relative/dir' }, /not an absolute path/],
    [{ QUARRY_WORKER_QUEUES: 'scan,sacn' }, /unknown queue "sacn"/],
    [{ QUARRY_FETCH_ALLOW: '127.0.0.1/32,10.0.0.0/99' }, /QUARRY_FETCH_ALLOW: "10.0.0.0\/99" is not a CIDR/],
    [{ QUARRY_FETCH_TIMEOUT_MS: '120000' }, /QUARRY_FETCH_TIMEOUT_MS/],
  ])('refuses %p', (env, message) => {
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(message);
  });

  it('reads the LLM endpoint, or none', () => {
    expect(loadConfig({}).llm).toBeUndefined();
    expect(loadConfig({ QUARRY_LLM_BASE_URL: 'http://127.0.0.1:11434/v1', QUARRY_LLM_MODEL: 'qwen2.5-coder' }).llm).toMatchObject({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5-coder',
    });
    expect(() => loadConfig({ QUARRY_LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })).toThrow(ConfigError);
    expect(() => loadConfig({ QUARRY_LLM_BASE_URL: 'not a url', QUARRY_LLM_MODEL: 'm' })).toThrow(/QUARRY_LLM_BASE_URL/);
  });

  it("reads retrieval's optional layers: off by default, the embeddings endpoint and the rerank when set", () => {
    expect(loadConfig({})).toMatchObject({ embeddings: undefined, context: { rerankTop: 0, semanticFiles: 100, embeddingsBudgetMs: 20_000 } });
    const config = loadConfig({
      QUARRY_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:8080/v1',
      QUARRY_EMBEDDINGS_MODEL: 'bge-small',
      QUARRY_LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
      QUARRY_LLM_MODEL: 'qwen2.5-coder',
      QUARRY_CONTEXT_RERANK_TOP: '15',
      QUARRY_CONTEXT_SEMANTIC_FILES: '200',
      QUARRY_EMBEDDINGS_BUDGET_MS: '5000',
    });
    expect(config.embeddings).toMatchObject({ baseUrl: 'http://127.0.0.1:8080/v1', model: 'bge-small' });
    expect(config.context).toEqual({ rerankTop: 15, semanticFiles: 200, embeddingsBudgetMs: 5000 });
  });

  it.each([
    [{ QUARRY_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:8080/v1' }, /QUARRY_EMBEDDINGS_MODEL/],
    [{ QUARRY_CONTEXT_RERANK_TOP: '10' }, /QUARRY_CONTEXT_RERANK_TOP: a rerank asks the chat model, and QUARRY_LLM_BASE_URL is not set/],
    [{ QUARRY_CONTEXT_RERANK_TOP: '500', QUARRY_LLM_BASE_URL: 'http://h/v1', QUARRY_LLM_MODEL: 'm' }, /QUARRY_CONTEXT_RERANK_TOP/],
    [{ QUARRY_CONTEXT_SEMANTIC_FILES: '0' }, /QUARRY_CONTEXT_SEMANTIC_FILES/],
  ])("refuses retrieval's layers set wrong: %p", (env, message) => {
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(message);
  });

  it('knows loopback hosts', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
    expect(isLoopbackHost('192.0.2.1')).toBe(false);
  });
});
