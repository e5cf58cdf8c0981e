import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Recorded LLM answers for test suites. A request is keyed by a hash of what determines the
 * answer — the model, the messages and the response schema — so a prompt or schema change is a
 * miss (and says which fixture it wanted) rather than a stale answer. Fixtures are plain JSON
 * files, reviewable in a diff, holding the request they answer.
 *
 * Replay is the default and the only mode tests run in. Record mode (QUARRY_LLM_RECORD=1 with a
 * real QUARRY_LLM_BASE_URL) forwards each request to that endpoint and writes what came back.
 */

export interface CassetteAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface CassetteFixture {
  key: string;
  request: { model: unknown; schemaName: unknown; messages: unknown; schema: unknown };
  /** The chat-completions response body returned on replay. */
  response: unknown;
  recordedAt?: string;
  recordedFrom?: string;
}

export interface RecordTarget {
  /** The real endpoint, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  baseUrl: string;
  apiKey?: string;
  /** Sent upstream instead of the test's model name; the fixture key still uses the test's. */
  model?: string;
}

export class ReplayCassette {
  /** Fixture paths asked for and not found, in order. */
  readonly misses: string[] = [];
  /** Fixture paths served or written. */
  readonly hits: string[] = [];

  constructor(
    readonly dir: string,
    private readonly options: { record?: RecordTarget } = {},
  ) {}

  /** Replay, or record when QUARRY_LLM_RECORD is 1/true and QUARRY_LLM_BASE_URL names the real endpoint. */
  static fromEnv(dir: string, env: NodeJS.ProcessEnv = process.env): ReplayCassette {
    const record = /^(1|true|yes)$/i.test(env.QUARRY_LLM_RECORD ?? '');
    if (!record) return new ReplayCassette(dir);
    const baseUrl = env.QUARRY_LLM_BASE_URL?.trim();
    if (!baseUrl) throw new Error('QUARRY_LLM_RECORD=1 needs QUARRY_LLM_BASE_URL (the real endpoint to record from)');
    return new ReplayCassette(dir, {
      record: { baseUrl, apiKey: env.QUARRY_LLM_API_KEY?.trim() || undefined, model: env.QUARRY_LLM_MODEL?.trim() || undefined },
    });
  }

  get recording(): boolean {
    return this.options.record !== undefined;
  }

  /** The key of a chat-completions request body: sha256 of model + messages + schema, 16 hex digits. */
  static keyOf(body: unknown): string {
    return createHash('sha256').update(canonicalJson(keyMaterial(body))).digest('hex').slice(0, 16);
  }

  /** Where the fixture for a request lives: `<dir>/<schemaName>-<key>.json`. */
  fixturePath(body: unknown): string {
    const name = String(keyMaterial(body).schemaName ?? 'answer').replace(/[^A-Za-z0-9_-]/g, '_');
    return path.join(this.dir, `${name}-${ReplayCassette.keyOf(body)}.json`);
  }

  async answer(body: unknown): Promise<CassetteAnswer> {
    return this.options.record ? this.record(body, this.options.record) : this.replay(body);
  }

  private async replay(body: unknown): Promise<CassetteAnswer> {
    const file = this.fixturePath(body);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.misses.push(file);
      // 404 is not retried by the client, so a miss fails the test at once with this message.
      const message = `ReplayCassette: fixture ${path.relative(process.cwd(), file)} is missing (no recorded answer for this model + prompt + schema; record it with QUARRY_LLM_RECORD=1 QUARRY_LLM_BASE_URL=…)`;
      return { status: 404, body: { error: { message, type: 'cassette_miss', code: 'cassette_miss' } } };
    }
    this.hits.push(file);
    const fixture = JSON.parse(text) as CassetteFixture;
    return { status: 200, body: fixture.response };
  }

  private async record(body: unknown, target: RecordTarget): Promise<CassetteAnswer> {
    const upstream = { ...(body as Record<string, unknown>), ...(target.model ? { model: target.model } : {}) };
    const response = await fetch(`${target.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) },
      body: JSON.stringify(upstream),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = { error: { message: text.slice(0, 500) } };
    }
    // Only answers are recorded; a failure is passed through so the person recording sees it.
    if (response.ok) {
      const file = this.fixturePath(body);
      const fixture: CassetteFixture = {
        key: ReplayCassette.keyOf(body),
        request: keyMaterial(body),
        response: json,
        recordedAt: new Date().toISOString(),
        recordedFrom: `${target.baseUrl} (${String(upstream.model)})`,
      };
      await mkdir(this.dir, { recursive: true });
      await writeFile(file, `${JSON.stringify(fixture, null, 2)}\n`);
      this.hits.push(file);
    }
    return { status: response.status, body: json };
  }
}

/** What the answer depends on. Temperature is not in it: Quarry always asks at 0. */
function keyMaterial(body: unknown): CassetteFixture['request'] {
  const request = (body ?? {}) as Record<string, any>;
  const jsonSchema = request.response_format?.json_schema ?? {};
  const messages = Array.isArray(request.messages)
    ? request.messages.map((message: Record<string, unknown>) => ({ role: message.role, content: message.content }))
    : [];
  return { model: request.model ?? null, schemaName: jsonSchema.name ?? null, messages, schema: jsonSchema.schema ?? null };
}

/** JSON with object keys sorted, so the key does not depend on property order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
