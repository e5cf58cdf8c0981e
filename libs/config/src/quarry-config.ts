import { z } from 'zod';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
// The settings module alone: importing the library's index would load the openai client into every process.
import { embeddingSettingsFromEnv, LlmConfigError, LlmSettings, llmSettingsFromEnv, type EmbeddingSettings } from '@quarry/llm/settings';
import { BUILT_KINDS, JOB_KINDS, JobKind } from '@quarry/contracts';

const flag = z
  .enum(['0', '1', 'true', 'false', 'yes', 'no', ''])
  .transform((value) => value === '1' || value === 'true' || value === 'yes');

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Every setting Quarry reads from the environment, with its default. Validated once at boot. */
const envSchema = z.object({
  QUARRY_DATABASE_URL: z.string().url().optional(),
  QUARRY_REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  QUARRY_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]+$/).default('quarry'),
  QUARRY_HOST: z.string().min(1).default('127.0.0.1'),
  QUARRY_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  QUARRY_WORKSPACE_ROOTS: z.string().optional(),
  QUARRY_WORKER_QUEUES: z.string().optional(),
  QUARRY_WORKER_CONCURRENCY: positiveInt(4),
  QUARRY_SHARD_CONCURRENCY: positiveInt(1),
  QUARRY_SHARD_MAX_FILES: positiveInt(4_000),
  QUARRY_SHARD_MAX_BYTES: positiveInt(32 * 1024 * 1024),
  QUARRY_SEARCH_INDEX: flag.default(true),
  /** Read by the code index itself (libs/code-index/src/native.ts, in every shard thread); here so that a bad value stops the process. */
  QUARRY_NATIVE: flag.default(true),
  QUARRY_ALLOW_ANONYMOUS: flag.default(false),
  QUARRY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  QUARRY_JOB_LOCK_MS: positiveInt(30_000),
  QUARRY_STALLED_INTERVAL_MS: positiveInt(30_000),
  QUARRY_MAX_STALLED_COUNT: z.coerce.number().int().min(0).max(100).default(1),
  QUARRY_RECONCILE_INTERVAL_MS: positiveInt(60_000),
  QUARRY_RECONCILE_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  QUARRY_SHUTDOWN_TIMEOUT_MS: positiveInt(30_000),
  QUARRY_MAX_BODY_BYTES: positiveInt(1_048_576),
  QUARRY_BATCH_MAX_JOBS: z.coerce.number().int().min(1).max(10_000).default(500),
  QUARRY_FETCH_ALLOW: z.string().default(''),
  QUARRY_FETCH_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(60_000).default(15_000),
  QUARRY_FETCH_MAX_BYTES: z.coerce.number().int().min(1_024).max(16_777_216).default(1_048_576),
  QUARRY_FETCH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(86_400_000),
  QUARRY_FETCH_RATE_PER_SECOND: z.coerce.number().positive().max(1_000).default(5),
  QUARRY_FETCH_DOMAIN_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  QUARRY_DETECTION_MODE: z.enum(['full', 'static', 'llm-only']).default('full'),
  QUARRY_CONTEXT_RERANK_TOP: z.coerce.number().int().min(0).max(50).default(0),
  QUARRY_CONTEXT_SEMANTIC_FILES: z.coerce.number().int().min(1).max(5_000).default(100),
  QUARRY_EMBEDDINGS_BUDGET_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  QUARRY_ALLOW_SECRET_FILES: flag.default(false),
  QUARRY_MAX_FILE_BYTES: z.coerce.number().int().min(1_024).max(100 * 1024 * 1024).default(1024 * 1024),
  QUARRY_SEARCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  QUARRY_MENTIONS_MAX_URLS: z.coerce.number().int().min(0).max(100).default(10),
  QUARRY_DATA_DIR: z.string().min(1).optional(),
  QUARRY_GIT_CACHE_BYTES: z.coerce.number().int().min(1_048_576).default(20 * 1024 ** 3),
  QUARRY_GIT_MAX_BYTES: z.coerce.number().int().min(1_024).default(4 * 1024 ** 3),
  QUARRY_GIT_MAX_FILES: z.coerce.number().int().min(1).default(1_000_000),
  QUARRY_GIT_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(15 * 60_000),
  QUARRY_GIT_CREDENTIALS: z.string().default(''),
  QUARRY_ARTIFACT_DIR: z.string().optional(),
  QUARRY_ARTIFACT_TTL_MS: z.coerce.number().int().min(60_000).default(86_400_000),
});

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/quarry';

export interface QuarryConfig {
  databaseUrl: string;
  /** False when the database URL is the built-in default (so `quarry up` may start an embedded one). */
  databaseConfigured: boolean;
  redisUrl: string;
  queuePrefix: string;
  host: string;
  port: number;
  workspaceRoots: string[];
  workerQueues: JobKind[];
  workerConcurrency: number;
  /** Scan shards this worker runs at once (they are CPU- and disk-bound: one per core is plenty). */
  shardConcurrency: number;
  /** A scan's shard closes at this many files or bytes, whichever comes first. */
  shardLimits: { maxFiles: number; maxBytes: number };
  /** QUARRY_SEARCH_INDEX (default on): scans of git commits build the trigram index searches use. */
  searchIndex: boolean;
  allowAnonymous: boolean;
  logLevel: z.infer<typeof envSchema>['QUARRY_LOG_LEVEL'];
  jobLockMs: number;
  stalledIntervalMs: number;
  /** How many times a job may lose its worker (crash, kill -9) and be run again before it fails as job_stalled. */
  maxStalledCount: number;
  reconcileIntervalMs: number;
  reconcileGraceMs: number;
  shutdownTimeoutMs: number;
  maxBodyBytes: number;
  /** Most jobs one POST /v1/jobs/batch may carry. */
  batchMaxJobs: number;
  /** The OpenAI-compatible endpoint (QUARRY_LLM_*), or undefined when none is configured. */
  llm: LlmSettings | undefined;
  /** Stack detection mode when a request names none (QUARRY_DETECTION_MODE); full without an LLM runs static. */
  detectionMode: 'full' | 'static' | 'llm-only';
  /** The OpenAI-compatible embeddings endpoint (QUARRY_EMBEDDINGS_*), or undefined: retrieval's semantic layer is then off. */
  embeddings: EmbeddingSettings | undefined;
  /** Retrieval's optional layers. */
  context: {
    /** Spans the chat model (QUARRY_LLM_*) reranks (QUARRY_CONTEXT_RERANK_TOP); 0 = no rerank. */
    rerankTop: number;
    /** The lexical ranking's first files whose chunks the semantic layer embeds and fuses (QUARRY_CONTEXT_SEMANTIC_FILES). */
    semanticFiles: number;
    /** How long one query may spend embedding chunks not embedded before (QUARRY_EMBEDDINGS_BUDGET_MS); past it, lexical ranking and a warning. */
    embeddingsBudgetMs: number;
  };
  /**
   * Where pack jobs write their documents and the gateway serves them from (QUARRY_ARTIFACT_DIR,
   * default `.quarry/artifacts` under the working directory): workers and gateway must share it.
   */
  artifactDir: string;
  /** How long a pack's document is kept (QUARRY_ARTIFACT_TTL_MS, default a day): older ones are removed when a pack starts. */
  artifactTtlMs: number;
  /** How workspace files and searches are loaded for mentions and tool plans. */
  files: {
    /** Let `.env*`, keys and `.ssh/` be read by name (contents are still redacted). */
    allowSecrets: boolean;
    maxFileBytes: number;
    searchTimeoutMs: number;
    /** URL mentions fetched per prompt. */
    maxUrls: number;
  };
  /** QUARRY_DATA_DIR: this process's own state (the git cache); default `.quarry/` in the working directory. */
  dataDir: string;
  /** Repositories by URL (@quarry/snapshot). */
  git: {
    cacheBytes: number;
    maxBytes: number;
    maxFiles: number;
    timeoutMs: number;
    /** By host, from QUARRY_GIT_CREDENTIALS (`host=user:token,host2=token`). Never logged. */
    credentials: ReadonlyMap<string, { username: string; password: string }>;
  };
  fetch: {
    /** CIDRs operators explicitly allow despite the address policy (e.g. an internal docs host). */
    allow: string[];
    timeoutMs: number;
    maxBytes: number;
    cacheTtlMs: number;
    ratePerSecond: number;
    domainConcurrency: number;
  };
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment; throws ConfigError with one line per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): QuarryConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  return {
    databaseUrl: e.QUARRY_DATABASE_URL ?? DEFAULT_DATABASE_URL,
    databaseConfigured: e.QUARRY_DATABASE_URL !== undefined,
    redisUrl: e.QUARRY_REDIS_URL,
    queuePrefix: e.QUARRY_QUEUE_PREFIX,
    host: e.QUARRY_HOST,
    port: e.QUARRY_PORT,
    workspaceRoots: parseRoots(e.QUARRY_WORKSPACE_ROOTS, cwd),
    artifactDir: path.resolve(cwd, e.QUARRY_ARTIFACT_DIR ?? path.join('.quarry', 'artifacts')),
    artifactTtlMs: e.QUARRY_ARTIFACT_TTL_MS,
    workerQueues: parseQueues(e.QUARRY_WORKER_QUEUES),
    workerConcurrency: e.QUARRY_WORKER_CONCURRENCY,
    shardConcurrency: e.QUARRY_SHARD_CONCURRENCY,
    shardLimits: { maxFiles: e.QUARRY_SHARD_MAX_FILES, maxBytes: e.QUARRY_SHARD_MAX_BYTES },
    searchIndex: e.QUARRY_SEARCH_INDEX,
    allowAnonymous: e.QUARRY_ALLOW_ANONYMOUS,
    logLevel: e.QUARRY_LOG_LEVEL,
    jobLockMs: e.QUARRY_JOB_LOCK_MS,
    stalledIntervalMs: e.QUARRY_STALLED_INTERVAL_MS,
    maxStalledCount: e.QUARRY_MAX_STALLED_COUNT,
    reconcileIntervalMs: e.QUARRY_RECONCILE_INTERVAL_MS,
    reconcileGraceMs: e.QUARRY_RECONCILE_GRACE_MS,
    shutdownTimeoutMs: e.QUARRY_SHUTDOWN_TIMEOUT_MS,
    maxBodyBytes: e.QUARRY_MAX_BODY_BYTES,
    batchMaxJobs: e.QUARRY_BATCH_MAX_JOBS,
    llm: parseLlm(env),
    detectionMode: e.QUARRY_DETECTION_MODE,
    embeddings: parseEmbeddings(env),
    context: { rerankTop: parseRerankTop(e.QUARRY_CONTEXT_RERANK_TOP, env), semanticFiles: e.QUARRY_CONTEXT_SEMANTIC_FILES, embeddingsBudgetMs: e.QUARRY_EMBEDDINGS_BUDGET_MS },
    files: {
      allowSecrets: e.QUARRY_ALLOW_SECRET_FILES,
      maxFileBytes: e.QUARRY_MAX_FILE_BYTES,
      searchTimeoutMs: e.QUARRY_SEARCH_TIMEOUT_MS,
      maxUrls: e.QUARRY_MENTIONS_MAX_URLS,
    },
    dataDir: path.resolve(cwd, e.QUARRY_DATA_DIR ?? '.quarry'),
    git: {
      cacheBytes: e.QUARRY_GIT_CACHE_BYTES,
      maxBytes: e.QUARRY_GIT_MAX_BYTES,
      maxFiles: e.QUARRY_GIT_MAX_FILES,
      timeoutMs: e.QUARRY_GIT_TIMEOUT_MS,
      credentials: parseGitCredentials(e.QUARRY_GIT_CREDENTIALS),
    },
    fetch: {
      allow: parseCidrs(e.QUARRY_FETCH_ALLOW),
      timeoutMs: e.QUARRY_FETCH_TIMEOUT_MS,
      maxBytes: e.QUARRY_FETCH_MAX_BYTES,
      cacheTtlMs: e.QUARRY_FETCH_CACHE_TTL_MS,
      ratePerSecond: e.QUARRY_FETCH_RATE_PER_SECOND,
      domainConcurrency: e.QUARRY_FETCH_DOMAIN_CONCURRENCY,
    },
  };
}

function parseRoots(value: string | undefined, cwd: string): string[] {
  if (!value || value.trim() === '') return [cwd];
  const roots = value.split(/[,:]/).map((root) => root.trim()).filter(Boolean);
  for (const root of roots) {
    if (!path.isAbsolute(root)) throw new ConfigError(`QUARRY_WORKSPACE_ROOTS: "${root}" is not an absolute path`);
  }
  return roots.map((root) => path.resolve(root));
}

function parseLlm(env: NodeJS.ProcessEnv): LlmSettings | undefined {
  try {
    return llmSettingsFromEnv(env);
  } catch (error) {
    if (error instanceof LlmConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

function parseEmbeddings(env: NodeJS.ProcessEnv): EmbeddingSettings | undefined {
  try {
    return embeddingSettingsFromEnv(env);
  } catch (error) {
    if (error instanceof LlmConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

/** A rerank asks the chat model: asking for one without a chat model configured is a mistake to say at boot. */
function parseRerankTop(top: number, env: NodeJS.ProcessEnv): number {
  if (top > 0 && !env.QUARRY_LLM_BASE_URL?.trim()) {
    throw new ConfigError('QUARRY_CONTEXT_RERANK_TOP: a rerank asks the chat model, and QUARRY_LLM_BASE_URL is not set (set it and QUARRY_LLM_MODEL, or leave the rerank off with 0)');
  }
  return top;
}

/**
 * `host=user:token` pairs, comma-separated; a bare token is sent with the user name
 * `x-access-token` (what GitHub, GitLab and Gitea accept). Errors name the host, never the secret.
 */
function parseGitCredentials(value: string): Map<string, { username: string; password: string }> {
  const credentials = new Map<string, { username: string; password: string }>();
  for (const entry of value.split(',').map((part) => part.trim()).filter(Boolean)) {
    const equals = entry.indexOf('=');
    const host = entry.slice(0, equals).trim().toLowerCase();
    const secret = entry.slice(equals + 1);
    if (equals <= 0 || secret === '' || !/^[a-z0-9.-]+(:\d+)?$/.test(host)) {
      throw new ConfigError(`QUARRY_GIT_CREDENTIALS: an entry${host ? ` for "${host}"` : ''} is not host=user:token or host=token`);
    }
    const colon = secret.indexOf(':');
    credentials.set(host, colon === -1 ? { username: 'x-access-token', password: secret } : { username: secret.slice(0, colon), password: secret.slice(colon + 1) });
  }
  return credentials;
}

function parseCidrs(value: string): string[] {
  const cidrs = value.split(',').map((cidr) => cidr.trim()).filter(Boolean);
  for (const cidr of cidrs) {
    try {
      ipaddr.parseCIDR(cidr);
    } catch {
      throw new ConfigError(`QUARRY_FETCH_ALLOW: "${cidr}" is not a CIDR such as 127.0.0.1/32 or fd00::/8`);
    }
  }
  return cidrs;
}

function parseQueues(value: string | undefined): JobKind[] {
  if (!value || value.trim() === '' || value.trim() === '*') return [...BUILT_KINDS];
  const names = value.split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of names) {
    if (!(JOB_KINDS as readonly string[]).includes(name)) {
      throw new ConfigError(`QUARRY_WORKER_QUEUES: unknown queue "${name}" (known: ${JOB_KINDS.join(', ')})`);
    }
    if (!BUILT_KINDS.includes(name as JobKind)) {
      throw new ConfigError(`QUARRY_WORKER_QUEUES: queue "${name}" has no handler yet (built: ${BUILT_KINDS.join(', ')})`);
    }
  }
  return [...new Set(names as JobKind[])];
}

/** Whether the gateway's address is reachable from other machines. */
export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || host.startsWith('127.');
}
