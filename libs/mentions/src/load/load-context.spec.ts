import fs from 'node:fs';
import { mentionsResultSchema, QuarryError, type ContextResultBody } from '@quarry/contracts';
import { CodeIndexCache } from '@quarry/code-index';
import { makeTempTree, removeTempTree } from '../../../workspace/src/testing/temp-tree';
import { expandMentions } from '../index';
import type { ContextRetriever } from './load-context';

/*
 * @codebase and @context:"…" end to end on a real tree: parse → the code index → retrieval's
 * ranking (in this process) → the spans read again through the safe reader → the augmented
 * prompt within the byte budget.
 */

let root: string;
let cache: CodeIndexCache;

const rateLimiter = [
  'import time',
  '',
  '',
  'class RateLimiter:',
  '    """Token bucket: rate limiting of incoming requests per client."""',
  '',
  '    def __init__(self, rate, burst):',
  '        self.rate = rate',
  '        self.burst = burst',
  '        self.tokens = {}',
  '',
  '    def allow(self, client):',
  '        """Whether the client is under its rate limit; refills the bucket first."""',
  '        tokens = self.tokens.get(client, self.burst)',
  '        if tokens < 1:',
  '            raise RateLimitExceeded(client)',
  '        self.tokens[client] = tokens - 1',
  '        return True',
  '',
  '',
  'class RateLimitExceeded(Exception):',
  '    pass',
].join('\n');

const login = [
  'from .client import request',
  '',
  'API_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"',
  '',
  '',
  'def login_with_retries(user, password, attempts=3):',
  '    """Logs in, retrying a failed login up to `attempts` times."""',
  '    for attempt in range(attempts):',
  '        if request("/login", user, password, API_TOKEN):',
  '            return True',
  '    return False',
].join('\n');

beforeAll(async () => {
  root = fs.realpathSync(
    await makeTempTree(
      {
        'app/limits/rate_limiter.py': `${rateLimiter}\n`,
        'app/auth/login.py': `${login}\n`,
        'app/client.py': 'def request(path, *args):\n    return path.startswith("/")\n',
        'app/views.py': 'from .limits.rate_limiter import RateLimiter\n\nlimiter = RateLimiter(5, 10)\n\n\ndef index(client):\n    limiter.allow(client)\n    return "ok"\n',
        'README.md': '# app\n\nA small web app.\n',
        '.env': 'SECRET_KEY=rate-limiting-secret\n',
      },
      'quarry-context-mention-',
    ),
  );
  cache = new CodeIndexCache();
});

afterAll(async () => {
  await removeTempTree(root);
});

const expand = (prompt: string, options: { maxBytes?: number; retrieveContext?: ContextRetriever } = {}) =>
  expandMentions({ prompt, maxBytes: options.maxBytes }, { root, codeIndex: cache, ...(options.retrieveContext ? { retrieveContext: options.retrieveContext } : {}) }).then((result) =>
    mentionsResultSchema.parse(result),
  );

describe('@codebase', () => {
  it('ranks the code for the prompt itself and shows the best spans first', async () => {
    const result = await expand('@codebase where is rate limiting handled?');
    expect(result.errors).toEqual([]);
    expect(result.mentions).toEqual([expect.objectContaining({ kind: 'context', raw: '@codebase', status: 'loaded', sha256: expect.any(String) })]);
    const entry = result.mentions[0];
    expect(entry.spans).toBeGreaterThan(0);
    expect(result.coverage.contexts).toBe(1);
    const prompt = result.augmentedPrompt;
    expect(prompt.startsWith('@codebase where is rate limiting handled?\n\nContext: @codebase (the task is the prompt) — ')).toBe(true);
    // The first block of the context is the rate limiter's, with its lines numbered as in the file.
    const body = prompt.slice(prompt.indexOf('```text\n') + '```text\n'.length);
    expect(body.split('\n')[0]).toMatch(/^app\/limits\/rate_limiter\.py:\d+-\d+/);
    expect(prompt).toContain('12│     def allow(self, client):');
    expect(prompt).not.toContain('rate-limiting-secret');
  });

  it('redacts credentials in the spans it shows, and counts them', async () => {
    const result = await expand('@codebase which code handles login retries?');
    const entry = result.mentions[0];
    expect(entry).toMatchObject({ status: 'loaded', redactions: 1 });
    expect(result.augmentedPrompt).toMatch(/^app\/auth\/login\.py:\d+-\d+/m);
    expect(result.augmentedPrompt).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(result.augmentedPrompt).toContain('[REDACTED');
    expect(result.augmentedPrompt).toContain('1 secret redacted');
  });

  it('fails with task_empty when the prompt says nothing besides it, and the prompt still goes out', async () => {
    const result = await expand('@codebase');
    expect(result.mentions[0]).toMatchObject({ kind: 'context', status: 'failed', error: { kind: 'task_empty' } });
    expect(result.errors[0].suggestion).toContain('@codebase where is rate limiting handled?');
    expect(result.augmentedPrompt).toBe('@codebase\n\n[@codebase was not loaded: @codebase ranks the code for the prompt, and the prompt says nothing besides its mentions — Write the question next to it, e.g. "@codebase where is rate limiting handled?", or quote one: @context:"…"]');
  });

  it('merges two @codebase mentions of one prompt into one block', async () => {
    const result = await expand('@codebase where is rate limiting handled? (@codebase)');
    expect(result.mentions.map((entry) => entry.status)).toEqual(['loaded', 'loaded']);
    expect(result.augmentedPrompt.match(/^Context: /gm)).toHaveLength(1);
  });
});

describe('@context:"task"', () => {
  it('ranks the code for the quoted task, not for the rest of the prompt', async () => {
    const result = await expand('Review this before release. @context:"login retries"');
    expect(result.errors).toEqual([]);
    expect(result.augmentedPrompt).toContain('Context: "login retries" — ');
    const body = result.augmentedPrompt.slice(result.augmentedPrompt.indexOf('```text\n') + 8);
    expect(body.split('\n')[0]).toMatch(/^app\/auth\/login\.py:\d+-\d+ \(function login_with_retries\)/);
  });

  it('says so when nothing matched', async () => {
    const result = await expand('@context:"zzyzx quorble"');
    expect(result.mentions[0]).toMatchObject({ status: 'loaded' });
    expect(result.augmentedPrompt).toContain('Note: Nothing in the repository matched the task');
  });
});

describe('the budget', () => {
  it('fits the code to a small byte budget, keeping the best-ranked spans and cutting the rest', async () => {
    const whole = await expand('@codebase where is rate limiting handled?');
    const maxBytes = 700;
    const result = await expand('@codebase where is rate limiting handled?', { maxBytes });
    expect(Buffer.byteLength(whole.augmentedPrompt)).toBeGreaterThan(maxBytes);
    expect(result.coverage.bytes).toBeLessThanOrEqual(maxBytes);
    expect(result.augmentedPrompt).toContain('app/limits/rate_limiter.py:');
  });

  it('cuts a ranked block from its end, at a span boundary, and says so', async () => {
    const readingRoot = fs.realpathSync(await makeTempTree(Object.fromEntries(Array.from({ length: 6 }, (_, index) => [`app/f${index}.py`, 'line a\nline b\nline c\n'])), 'quarry-context-cut-'));
    // A budget in tokens larger than the bytes allow (as a caller may set it): the augmenter cuts.
    const retrieveContext: ContextRetriever = async () => ({ ...resultOf('', []), spans: Array.from({ length: 6 }, (_, index) => span(`app/f${index}.py`, 1, 3)) });
    try {
      const result = mentionsResultSchema.parse(await expandMentions({ prompt: '@codebase rank', maxBytes: 330 }, { root: readingRoot, retrieveContext, contextTokens: 8000 }));
      expect(result.coverage.bytes).toBeLessThanOrEqual(330);
      expect(result.augmentedPrompt).toContain('app/f0.py:1-3\n1│ line a\n2│ line b\n3│ line c\n\n');
      expect(result.augmentedPrompt).not.toContain('app/f5.py');
      // Whole spans only: the kept part ends at a blank line, then the marker.
      expect(result.augmentedPrompt).toMatch(/3│ line c\n\n… \d+ lines elided \(lines \d+-\d+\) …\n```$/);
      expect(result.coverage.cut).toEqual([expect.stringMatching(/^@codebase: .* \(the best-ranked part kept\) to fit the 330 B budget$/)]);
    } finally {
      await removeTempTree(readingRoot);
    }
  });
});

describe('a retriever of the caller (the worker: the commit\'s index)', () => {
  it('shows the ranked spans through the safe reader: a secret file stays closed', async () => {
    const retrieveContext: ContextRetriever = async (request) => ({
      ...resultOf('', ['The embeddings endpoint did not answer: lexical ranking only.']),
      spans: [span('.env', 1, 1), span('app/client.py', 1, 2)],
      task: { frames: [], paths: [], asksFor: [] },
      budget: request.tokens,
    });
    const result = await expand('@context:"secret key"', { retrieveContext });
    expect(result.augmentedPrompt).not.toContain('rate-limiting-secret');
    expect(result.augmentedPrompt).toContain('app/client.py:1-2');
    expect(result.augmentedPrompt).toContain('Note: The embeddings endpoint did not answer: lexical ranking only.');
    expect(result.mentions[0]).toMatchObject({ status: 'loaded', spans: 1 });
  });

  it('passes the task and a token budget fitted to the byte budget', async () => {
    const requests: unknown[] = [];
    const retrieveContext: ContextRetriever = async (request) => {
      requests.push(request);
      return resultOf('', []);
    };
    await expand('@context:"login retries" and @codebase', { retrieveContext, maxBytes: 10_000 });
    expect(requests).toEqual([
      { task: 'login retries', tokens: Math.floor((10_000 - 38) / 2 / 4), limit: 60 },
      { task: 'and', tokens: Math.floor((10_000 - 38) / 2 / 4), limit: 60 },
    ]);
  });

  it('turns a typed retrieval failure into a failed mention with its suggestion', async () => {
    const retrieveContext: ContextRetriever = async () => {
      throw new QuarryError('repo_unavailable', 'The repository cannot be read right now.', { suggestion: 'Try again in a minute.' });
    };
    const result = await expand('@context:"login"', { retrieveContext });
    expect(result.mentions[0]).toMatchObject({ status: 'failed', error: { kind: 'repo_unavailable', suggestion: 'Try again in a minute.' } });
  });
});

function span(path: string, startLine: number, endLine: number): ContextResultBody['spans'][number] {
  return { path, startLine, endLine, score: 1, why: [], inContext: 'whole' };
}

function resultOf(context: string, warnings: string[]): ContextResultBody {
  return {
    files: [],
    spans: [],
    context,
    tokens: 0,
    budget: 8000,
    encoding: 'o200k_base',
    task: { frames: [], paths: [], asksFor: [] },
    stats: { files: 0, chunks: 0, terms: 0, durationMs: 0 },
    warnings,
  };
}
