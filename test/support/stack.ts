import type { INestApplicationContext, Type } from '@nestjs/common';
import IORedis from 'ioredis';
import type { JobStatus } from '../../libs/contracts/src';
import type { QuarryConfig } from '../../libs/config/src';
import { ApiKeyRepository, Database, JobRepository, PrismaClient, createDatabase } from '../../libs/db/src';
import { connectEvents, type EventsSocket } from './events-socket';
import { RunningGateway, startGateway } from '../../apps/gateway/src/main';
import { startWorker } from '../../apps/worker/src/main';
import { HANDLES_JOB } from '../../apps/worker/src/job-handler';
import { PROCESSORS } from '../../apps/worker/src/worker.module';
import { testConfig } from './test-env';

export type { EventsSocket };

/** A gateway (real HTTP on a free port) and optionally a worker, in this process, on real Redis and Postgres. */
export class TestStack {
  gateway!: RunningGateway;
  worker: INestApplicationContext | undefined;
  readonly prisma: PrismaClient;
  readonly jobs: JobRepository;
  readonly keys: ApiKeyRepository;
  private readonly sockets: EventsSocket[] = [];

  private readonly database: Database;

  constructor(readonly config: QuarryConfig) {
    this.database = createDatabase(config.databaseUrl, 2);
    this.prisma = this.database.prisma;
    this.jobs = new JobRepository(this.prisma, this.database.pool);
    this.keys = new ApiKeyRepository(this.prisma);
  }

  /** The configuration a stack gets before overrides (for building nested overrides). */
  static defaults(): QuarryConfig {
    return testConfig();
  }

  static async start(overrides: Partial<QuarryConfig> = {}, options: { worker?: boolean; processors?: Type[] } = {}): Promise<TestStack> {
    const stack = new TestStack(testConfig(overrides));
    stack.gateway = await startGateway(stack.config, { shutdownHooks: false });
    if (options.worker !== false) await stack.startWorker(options.processors);
    return stack;
  }

  get url(): string {
    return this.gateway.url;
  }

  /** `processors` replace the default handlers of the same kinds; other kinds keep theirs. */
  async startWorker(processors?: Type[]): Promise<void> {
    const kindOf = (processor: Type) => Reflect.getMetadata(HANDLES_JOB, processor) as string;
    const replaced = new Set((processors ?? []).map(kindOf));
    const all = [...(processors ?? []), ...PROCESSORS.filter((processor) => !replaced.has(kindOf(processor)))];
    this.worker = await startWorker(this.config, { processors: all, shutdownHooks: false });
  }

  /** Stops the gateway and starts another on the same Redis and Postgres (its URL may change). */
  async restartGateway(): Promise<void> {
    await this.gateway.close();
    this.gateway = await startGateway(this.config, { shutdownHooks: false });
  }

  async stopWorker(): Promise<void> {
    await this.worker?.close();
    this.worker = undefined;
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const response = await fetch(this.url + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: response.status, body: parsed };
  }

  submit(kind: string, input: unknown, headers: Record<string, string> = {}) {
    return this.request('POST', '/v1/jobs', { kind, input }, headers);
  }

  /** A socket.io client on /events; closed with the stack. */
  async connect(token?: string): Promise<EventsSocket> {
    const socket = await connectEvents(this.url, token);
    this.sockets.push(socket);
    return socket;
  }

  async waitForStatus(id: string, statuses: JobStatus[], timeoutMs = 20_000) {
    return waitFor(async () => {
      const job = await this.jobs.find(id);
      return job && statuses.includes(job.status) ? job : undefined;
    }, timeoutMs, `job ${id} to reach ${statuses.join('|')}`);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.disconnect();
    await closeStep('stopping the worker', () => this.stopWorker());
    await closeStep('closing the gateway', () => this.gateway?.close());
    await closeStep("closing the test's database pool", () => this.database.close());
    await closeStep('deleting the queue keys', () => deleteQueueKeys(this.config));
  }
}

/**
 * A teardown step that hangs fails with its name, well inside jest's 60 s hook timeout: a CI log
 * then says what hung instead of "Exceeded timeout of 60000 ms for a hook".
 */
async function closeStep(what: string, step: () => Promise<unknown> | undefined, limitMs = 25_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`TestStack.close: ${what} did not finish in ${limitMs} ms`)), limitMs);
  });
  try {
    await Promise.race([step(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until `check` returns a value, or fails with what it was waiting for. */
export async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Removes this test's BullMQ keys (its own prefix only). */
export async function deleteQueueKeys(config: QuarryConfig): Promise<void> {
  const redis = new IORedis(config.redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${config.queuePrefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
