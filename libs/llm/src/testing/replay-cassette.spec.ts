import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { isQuarryError } from '@quarry/contracts';
import { LlmClient } from '../llm-client';
import { FakeChatServer } from './fake-chat-server';
import { ReplayCassette, canonicalJson } from './replay-cassette';

// Checked-in recordings: the same files a detect or interpret suite would keep beside its specs.
const FIXTURES = path.join(__dirname, 'fixtures');

const planSchema = z.object({ tool: z.enum(['list_files', 'read_file']), path: z.string(), confidence: z.number() });
const ask = { system: 'Plan one tool call.', user: 'show me README.md', schema: planSchema, schemaName: 'tool_plan' };

describe('ReplayCassette', () => {
  let server: FakeChatServer;
  let cassette: ReplayCassette;

  beforeAll(async () => {
    cassette = new ReplayCassette(FIXTURES);
    server = await FakeChatServer.start({ cassette });
  });
  afterAll(async () => {
    await server.close();
  });

  const client = (model = 'recorded-model') => new LlmClient({ baseUrl: server.baseUrl, model, timeoutMs: 800, retryBaseMs: 10 });

  it('replays a recorded answer for the same model, messages and schema', async () => {
    const answer = await client().complete(ask);
    expect(answer.value).toEqual({ tool: 'read_file', path: 'README.md', confidence: 0.95 });
    expect(cassette.hits).toEqual([expect.stringMatching(/tool_plan-[0-9a-f]{16}\.json$/)]);
  });

  it('misses when anything in the key changes, naming the fixture it wanted', async () => {
    for (const changed of [{ model: 'other-model', request: ask }, { model: 'recorded-model', request: { ...ask, user: 'show me README' } }]) {
      let error: unknown;
      await client(changed.model)
        .complete(changed.request)
        .catch((caught: unknown) => (error = caught));
      expect(isQuarryError(error) && error.kind).toBe('llm_unavailable');
      expect((error as Error).message).toMatch(/ReplayCassette: fixture libs\/llm\/src\/testing\/fixtures\/tool_plan-[0-9a-f]{16}\.json is missing/);
    }
    expect(cassette.misses).toHaveLength(2);
    // A miss is not retried: one request each.
    expect(server.requests).toHaveLength(3);
  });

  it('keys on content, not on property order', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x' }], response_format: { json_schema: { name: 'n', schema: { a: 1, b: 2 } } } };
    const reordered = { response_format: { json_schema: { schema: { b: 2, a: 1 }, name: 'n' } }, messages: [{ content: 'x', role: 'user' }], model: 'm' };
    expect(ReplayCassette.keyOf(body)).toBe(ReplayCassette.keyOf(reordered));
    expect(ReplayCassette.keyOf({ ...body, temperature: 0.7 })).toBe(ReplayCassette.keyOf(body));
    expect(ReplayCassette.keyOf({ ...body, model: 'n' })).not.toBe(ReplayCassette.keyOf(body));
    expect(canonicalJson({ b: [1, { d: 1, c: undefined }], a: null })).toBe('{"a":null,"b":[1,{"d":1}]}');
  });
});

describe('ReplayCassette record mode', () => {
  let upstream: FakeChatServer;
  let dir: string;

  beforeAll(async () => {
    upstream = await FakeChatServer.start();
    dir = await mkdtemp(path.join(os.tmpdir(), 'quarry-llm-cassette-'));
  });
  afterAll(async () => {
    await upstream.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is off unless QUARRY_LLM_RECORD is set, and then needs a base URL', () => {
    expect(ReplayCassette.fromEnv(dir, {}).recording).toBe(false);
    expect(() => ReplayCassette.fromEnv(dir, { QUARRY_LLM_RECORD: '1' })).toThrow(/needs QUARRY_LLM_BASE_URL/);
  });

  // A second fake server stands in for the real endpoint, so the recording path runs too.
  it('forwards to the real endpoint, writes the fixture, and replays it afterwards', async () => {
    const recorder = ReplayCassette.fromEnv(dir, {
      QUARRY_LLM_RECORD: '1',
      QUARRY_LLM_BASE_URL: upstream.baseUrl,
      QUARRY_LLM_MODEL: 'real-model',
      QUARRY_LLM_API_KEY: 'sk-upstream',
    });
    upstream.reply({ tool: 'list_files', path: 'src', confidence: 0.8 }, { model: 'real-model-2026' });
    const recording = await FakeChatServer.start({ cassette: recorder });
    try {
      const answer = await new LlmClient({ baseUrl: recording.baseUrl, model: 'test-model', timeoutMs: 800 }).complete(ask);
      expect(answer.value).toEqual({ tool: 'list_files', path: 'src', confidence: 0.8 });
    } finally {
      await recording.close();
    }
    expect(upstream.requests[0].body.model).toBe('real-model');
    expect(upstream.requests[0].headers.authorization).toBe('Bearer sk-upstream');
    const files = await readdir(dir);
    expect(files).toEqual([expect.stringMatching(/^tool_plan-[0-9a-f]{16}\.json$/)]);
    const fixture = JSON.parse(await readFile(path.join(dir, files[0]), 'utf8'));
    expect(fixture.request).toMatchObject({ model: 'test-model', schemaName: 'tool_plan', messages: [{ role: 'system' }, { role: 'user', content: 'show me README.md' }] });

    const replaying = await FakeChatServer.start({ cassette: new ReplayCassette(dir) });
    try {
      const again = await new LlmClient({ baseUrl: replaying.baseUrl, model: 'test-model', timeoutMs: 800 }).complete(ask);
      expect(again.value).toEqual({ tool: 'list_files', path: 'src', confidence: 0.8 });
      expect(again.model).toBe('real-model-2026');
    } finally {
      await replaying.close();
    }
    expect(upstream.requests).toHaveLength(1);
  });
});
