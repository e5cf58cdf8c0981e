import fs from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { TestStack, waitFor } from '../support/stack';
import { makeTree } from '../support/trees';
import { TEST_DATABASE_URL } from '../support/test-env';
import { EndlessScanProcessor } from '../support/test-processors';
import { FakeOrigin } from '../support/origin';

const BIN = path.join(__dirname, '..', '..', 'bin', 'quarry.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `quarry` command with no TTY, as a script or CI would. */
function quarry(args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, QUARRY_URL: '', QUARRY_API_KEY: '', QUARRY_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`quarry ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the quarry CLI', () => {
  describe('against a running gateway', () => {
    let stack: TestStack;
    let root: string;
    beforeAll(async () => {
      root = makeTree({ 'src/main.rs': 'fn main() {\n}\n', 'src/lib.rs': 'pub fn x() {}\n', 'README.md': '# x\n' });
      stack = await TestStack.start({ workspaceRoots: [root] });
    });
    afterAll(() => stack.close());

    it('scans a repository, says which job it queued and prints the summary', async () => {
      const run = await quarry(['scan', root, '--server', stack.url]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('3 files');
      expect(run.stdout).toMatch(/Rust\s+2\s+3/);
      expect(run.stdout).toContain('Top-level directories');
      expect(run.stderr).toMatch(/^scan [0-9a-f]{8}: queued as job [0-9a-f-]{36}$/m);
    });

    it('resolves a relative path against the current directory', async () => {
      const run = await quarry(['scan', path.relative(process.cwd(), root), '--server', stack.url, '--json']);
      expect(run.code).toBe(0);
      const output = JSON.parse(run.stdout);
      expect(output).toMatchObject({ status: 'succeeded', result: { root, files: 3 } });
    });

    it('returns at once with --no-wait, and shows the job later', async () => {
      const queued = await quarry(['scan', root, '--server', stack.url, '--no-wait']);
      expect(queued.code).toBe(0);
      const id = /queued scan ([0-9a-f-]{36})/.exec(queued.stdout)?.[1];
      expect(id).toBeDefined();
      await stack.waitForStatus(id!, ['succeeded']);
      const shown = await quarry(['job', id!, '--server', stack.url]);
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ id, status: 'succeeded' });
      const listed = await quarry(['jobs', '--server', stack.url, '--kind', 'scan', '--limit', '5']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(id);
    });

    it('exits 2 with the typed error when the server refuses the request', async () => {
      const run = await quarry(['scan', os.tmpdir(), '--server', stack.url]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('error [path_outside_root]');
      expect(run.stderr).toContain('QUARRY_WORKSPACE_ROOTS');
    });

    it('scans several paths with one batch request: a refused path gets its typed error, the others run', async () => {
      const other = makeTree({ 'a.py': 'print(1)\n' });
      await stack.close();
      stack = await TestStack.start({ workspaceRoots: [root, other] });
      const run = await quarry(['scan', root, other, os.tmpdir(), '--server', stack.url, '--json']);
      expect(run.code).toBe(1);
      const output = JSON.parse(run.stdout);
      expect(output).toMatchObject([
        { root, status: 'succeeded', result: { files: 3 } },
        { root: other, status: 'succeeded', result: { files: 1 } },
        { root: os.tmpdir(), status: 'refused', error: { kind: 'path_outside_root' } },
      ]);
      const both = await quarry(['scan', root, other, '--server', stack.url]);
      expect(both.code).toBe(0);
      expect(both.stdout).toContain(`== ${other} (job `);
      expect(both.stderr).toMatch(new RegExp(`${other}: queued as job [0-9a-f-]{36}`));
    });

    it('exits 2 on usage errors', async () => {
      expect((await quarry(['scan'])).code).toBe(2);
      expect((await quarry(['frobnicate'])).code).toBe(2);
      expect((await quarry(['worker', '--concurrency', 'zero'])).code).toBe(2);
    });

    it('exits 1 with a hint when no gateway answers', async () => {
      const run = await quarry(['scan', root, '--server', 'http://127.0.0.1:9']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('No Quarry answers at http://127.0.0.1:9');
      expect(run.stderr).toContain('npm start');
    });
  });

  describe('cancelling', () => {
    let stack: TestStack;
    let root: string;
    beforeAll(async () => {
      root = makeTree({ 'a.py': 'pass\n' });
      stack = await TestStack.start({ workspaceRoots: [root] }, { processors: [EndlessScanProcessor] });
    });
    afterAll(() => stack.close());

    it('`quarry cancel` stops a running scan, and the waiting `quarry scan` exits 1', async () => {
      const scan = quarry(['scan', root, '--server', stack.url]);
      const job = await waitFor(async () => (await stack.jobs.list({ limit: 1, status: 'running' })).items[0], 10_000, 'a running job');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const cancel = await quarry(['cancel', job.id, '--server', stack.url]);
      expect(cancel.code).toBe(0);
      expect(cancel.stdout).toContain('cancelled');
      const finished = await scan;
      expect(finished.code).toBe(1);
      expect(finished.stderr).toContain('was cancelled');
      // Piped output gets plain progress lines from the live events.
      expect(finished.stderr).toMatch(/^scan [0-9a-f]{8}: reading \d+\/1,000,000/m);
    });
  });

  describe('fetch', () => {
    let origin: FakeOrigin;
    let stack: TestStack;
    beforeAll(async () => {
      origin = await FakeOrigin.start({
        '/doc': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Doc</title><h1>Hello</h1><ul><li>one</li></ul>'),
      });
      stack = await TestStack.start({ fetch: { ...TestStack.defaults().fetch, allow: ['127.0.0.1/32'] } });
    });
    afterAll(async () => {
      await stack.close();
      await origin.close();
    });

    it('fetches in-process and prints the title, the source and the text', async () => {
      const run = await quarry(['fetch', origin.url('/doc')], { QUARRY_FETCH_ALLOW: '127.0.0.1/32' });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('# Doc');
      expect(run.stdout).toContain(`${origin.url('/doc')}  (200, text/html`);
      expect(run.stdout).toMatch(/HELLO|Hello/);
      expect(run.stdout).toContain('one');
    });

    it('runs as a job with --server, and the second time answers from the shared cache', async () => {
      const first = await quarry(['fetch', origin.url('/doc'), '--server', stack.url, '--json']);
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ status: 'succeeded', result: { title: 'Doc', fromCache: false } });
      const second = await quarry(['fetch', origin.url('/doc'), '--server', stack.url, '--json']);
      expect(JSON.parse(second.stdout)).toMatchObject({ status: 'succeeded', result: { fromCache: true } });
    });

    it('exits 2 for a URL the gate refuses, before any connection', async () => {
      const run = await quarry(['fetch', 'http://169.254.169.254/latest/meta-data/']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('error [url_blocked]');
    });
  });

  describe('detect', () => {
    const monorepo = () =>
      makeTree({
        'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['apps/*'] }),
        'package-lock.json': '{}',
        'apps/web/package.json': JSON.stringify({ name: 'web', scripts: { start: 'next start' }, dependencies: { next: '14' } }),
        'api/go.mod': 'module example.com/api\n\ngo 1.22\n',
      });

    it('detects in-process, with no Redis or Postgres, and prints each service', async () => {
      const run = await quarry(['detect', monorepo()], { QUARRY_REDIS_URL: 'redis://127.0.0.1:1', QUARRY_DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^apps\/web  web\n  stack    javascript · npm · nextjs   \[static, confidence 1\.00\]/m);
      expect(run.stdout).toMatch(/^api  api\n  stack    go · go/m);
      expect(run.stdout).toContain('2 services');
    });

    it('--json prints the UniversalBuild array; --mode static leaves no warning about the LLM', async () => {
      const run = await quarry(['detect', monorepo(), '--json', '--mode', 'static']);
      expect(run.code).toBe(0);
      const services = JSON.parse(run.stdout);
      expect(services.map((service: { metadata: { path: string } }) => service.metadata.path)).toEqual(['api', 'apps/web']);
      expect(services[1]).toMatchObject({ workspace: { orchestrator: 'npm-workspaces', members: ['apps/web'] }, metadata: { warnings: [] } });
    });

    it('runs as a job with --server', async () => {
      const root = monorepo();
      const stack = await TestStack.start({ workspaceRoots: [root] });
      try {
        const run = await quarry(['detect', root, '--server', stack.url, '--json']);
        expect(run.code).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ status: 'succeeded', result: [{ metadata: { path: 'api' } }, { metadata: { path: 'apps/web' } }] });
      } finally {
        await stack.close();
      }
    });

    it.each([
      [['detect', '/definitely/not/here'], 'root_not_found'],
      [['detect', '.', '--mode', 'guess'], "argument 'guess' is invalid"],
    ])('exits 2 with a clear error: %j', async (args, message) => {
      const run = await quarry(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
    });
  });

  describe('mention', () => {
    let origin: FakeOrigin;
    let root: string;
    beforeAll(async () => {
      origin = await FakeOrigin.start({ '/page': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('remote page text') });
      root = makeTree({ 'src/app.ts': 'line one\nline two\nline three\n', 'src/utils.ts': 'export {}\n' });
    });
    afterAll(() => origin.close());

    it('prints the augmented prompt on stdout and the account on stderr, in-process', async () => {
      const run = await quarry(['mention', '--root', root, `Check @src/app.ts#L2 and @src/util.ts and @url:${origin.url('/page')}`], { QUARRY_FETCH_ALLOW: '127.0.0.1/32' });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('File: src/app.ts (line 2)');
      expect(run.stdout).toContain('line two');
      expect(run.stdout).not.toContain('line three');
      expect(run.stdout).toContain('remote page text');
      expect(run.stderr).toContain('Loaded 2 of 3 mentions — src/app.ts#L2 (1 line)');
      expect(run.stderr).toMatch(/Failed: @src\/util\.ts — .*Did you mean src\/utils\.ts\?/);
    });

    it('reads the prompt from stdin with -, and --json gives the whole result', async () => {
      const child = spawn(process.execPath, [BIN, 'mention', '--root', root, '--json', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin.end('What is in @src/?');
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      const code = await new Promise((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ mentions: [{ kind: 'directory', status: 'loaded' }], coverage: { files: 0 } });
    });

    it('--parse-only prints the typed parse and exits 1 when there are syntax errors', async () => {
      const clean = await quarry(['mention', '--parse-only', 'see @a.ts#L1-2']);
      expect(clean.code).toBe(0);
      expect(clean.stdout.trim()).toBe('4-14  path    @a.ts#L1-2');
      const broken = await quarry(['mention', '--parse-only', '--json', '@grep:"unterminated']);
      expect(broken.code).toBe(1);
      expect(JSON.parse(broken.stdout).errors[0]).toMatchObject({ kind: 'mention_invalid', suggestion: expect.any(String) });
    });

    it('runs as a job with --server', async () => {
      const stack = await TestStack.start({ workspaceRoots: [root] });
      try {
        const run = await quarry(['mention', '--root', root, '--server', stack.url, 'Read @src/app.ts']);
        expect(run.code).toBe(0);
        expect(run.stdout).toContain('line three');
        expect(run.stderr).toContain('Loaded 1 of 1 mention');
      } finally {
        await stack.close();
      }
    });
  });

  describe('ask', () => {
    let root: string;
    beforeAll(() => {
      root = makeTree({ 'src/app.ts': 'one\ntwo\nthree\nfour\n', 'src/api/users.ts': 'export function fetchUser() {}\n', 'go.mod': 'module x\n\ngo 1.22\n' });
    });

    it('answers in-process with the rules when no LLM is configured', async () => {
      const run = await quarry(['ask', '--root', root, 'show me lines 2-3 of src/app.ts']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('plan (rules)');
      expect(run.stdout).toContain('── read_file path="src/app.ts" start_line=2 end_line=3');
      expect(run.stdout).toMatch(/\ntwo\nthree\n?$/);
    });

    it('resolves "this file" from --active-file and --plan-only runs nothing', async () => {
      const run = await quarry(['ask', '--root', root, '--active-file', 'src/api/users.ts', '--plan-only', '--json', 'show me this file']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result).toMatchObject({ source: 'rules', plan: { tools: [{ name: 'read_file', args: { path: 'src/api/users.ts' } }] }, results: [] });
    });

    it('runs as a job with --server', async () => {
      const stack = await TestStack.start({ workspaceRoots: [root] });
      try {
        const run = await quarry(['ask', '--root', root, '--server', stack.url, '--no-ai', 'where is fetchUser defined?']);
        expect(run.code).toBe(0);
        expect(run.stdout).toContain('src/api/users.ts:1:');
      } finally {
        await stack.close();
      }
    });

    it.each([
      ['an empty query', ''],
      ['a 10 kB query', 'where is fetchUser defined? '.repeat(380)],
    ])('exits 2 with a typed input_invalid for %s', async (_name, query) => {
      const run = await quarry(['ask', '--root', root, query]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('input_invalid');
      expect(run.stdout).toBe('');
    });

    it('exits 2 with a typed error for a root that does not exist', async () => {
      const run = await quarry(['ask', '--root', '/no/such/dir', 'list files']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('root_not_found');
    });
  });

  describe('search', () => {
    const tree = () => makeTree({ 'src/a.c': 'int foo_error(void);\n// TODO one\n// todo two\n', 'src/b.h': 'TODO\n', 'blob.bin': Buffer.from([0, 1]) });

    it('counts like rg -c in-process, --json gives {total, files, indexed}', async () => {
      const root = tree();
      const run = await quarry(['search', root, 'TODO', '--json']);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ total: 2, files: 2, indexed: false, skipped: { binary: 1 } });
      const countsOnly = await quarry(['search', root, 'TODO', '--json', '--max-results', '0']);
      expect(JSON.parse(countsOnly.stdout)).toMatchObject({ total: 2, files: 2, hits: [], truncated: true });
      const folded = await quarry(['search', root, 'todo', '--ignore-case', '--counts']);
      expect(folded.stdout).toBe('src/a.c:2\nsrc/b.h:1\n');
      expect(folded.stderr).toContain('3 matching lines in 2 files (2 searched); not searched: 1 binary');
      const grep = await quarry(['search', root, String.raw`\w+_error\(`, '--regex', '--path', '*.c']);
      expect(grep.stdout).toBe('src/a.c:1:int foo_error(void);\n');
      expect((await quarry(['search', root, 'absent'])).code).toBe(1);
    });

    it('--json answers within --max-tokens, and --cursor continues the hits: every hit once', async () => {
      const root = makeTree(Object.fromEntries(Array.from({ length: 30 }, (_, file) => [`src/f${file}.c`, Array.from({ length: 20 }, (_, line) => `// TODO item ${file}-${line}`).join('\n') + '\n'])));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const run = await quarry(['search', root, 'TODO', '--json', '--max-results', '500', '--max-tokens', '1000', ...(cursor ? ['--cursor', cursor] : [])]);
        expect(run.code).toBe(0);
        const answer = JSON.parse(run.stdout);
        expect(answer).toMatchObject({ total: 600, page: { unit: 'hit', first: seen.length + 1, total: 600, maxTokens: 1000 } });
        // Counted, or (a last page) fewer bytes than the budget: a token is at least a byte.
        expect(answer.page.tokens ?? Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(1000);
        seen.push(...answer.hits.map((hit: { path: string; line: number }) => `${hit.path}:${hit.line}`));
        cursor = answer.nextCursor;
        pages++;
      } while (cursor && pages < 100);
      expect(pages).toBeGreaterThan(5);
      expect(seen).toHaveLength(600);
      expect(new Set(seen).size).toBe(600);
      const stale = await quarry(['search', root, 'item', '--json', '--cursor', 'q1.not-a-cursor.xx']);
      expect(stale.code).toBe(2);
      expect(stale.stderr).toContain('cursor_invalid');
    });

    it('exits 2 with a typed error for a regex RE2 refuses, an empty pattern or a missing root', async () => {
      const root = tree();
      const lookahead = await quarry(['search', root, 'foo(?=bar)', '--regex']);
      expect(lookahead.code).toBe(2);
      expect(lookahead.stderr).toContain('regex_invalid');
      expect(lookahead.stderr).toContain('lookahead');
      const empty = await quarry(['search', root, '']);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('pattern_invalid');
      expect((await quarry(['search', '/no/such/dir', 'x'])).stderr).toContain('root_not_found');
    });

    it('searches on the gateway with --server (POST /v1/search), inside its workspace roots only', async () => {
      const root = tree();
      const stack = await TestStack.start({ workspaceRoots: [root] });
      try {
        const run = await quarry(['search', root, 'TODO', '--server', stack.url, '--json']);
        expect(run.code).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ total: 2, files: 2, indexed: false, hits: [{ path: 'src/a.c', line: 2, column: 4 }, { path: 'src/b.h', line: 1 }] });
        const outside = await quarry(['search', os.tmpdir(), 'TODO', '--server', stack.url]);
        expect(outside.code).toBe(2);
        expect(outside.stderr).toContain('path_outside_root');
        const bad = await stack.request('POST', '/v1/search', { root, pattern: '(a)\\1', regex: true });
        expect(bad.status).toBe(400);
        expect(bad.body).toMatchObject({ kind: 'regex_invalid', suggestion: expect.any(String) });
        const missing = await stack.request('POST', '/v1/search', { pattern: 'x' });
        expect(missing).toMatchObject({ status: 400, body: { kind: 'input_invalid' } });
        // Within maxTokens, continued by nextCursor; a cursor of another request is a typed 400.
        const many = makeTree(Object.fromEntries(Array.from({ length: 10 }, (_, file) => [`f${file}.c`, '// TODO x\n'.repeat(40)])));
        const paged = await TestStack.start({ workspaceRoots: [many] }, { worker: false });
        try {
          const first = await paged.request('POST', '/v1/search', { root: many, pattern: 'TODO', maxResults: 400, maxTokens: 1_000 });
          expect(first).toMatchObject({ status: 200, body: { total: 400, page: { first: 1, total: 400, maxTokens: 1_000 }, nextCursor: expect.any(String) } });
          expect(first.body.page.tokens).toBeLessThanOrEqual(1_000);
          const next = await paged.request('POST', '/v1/search', { root: many, pattern: 'TODO', maxResults: 400, maxTokens: 1_000, cursor: first.body.nextCursor });
          expect(next.body.page.first).toBe(first.body.page.last + 1);
          expect(next.body.hits[0]).toEqual(expect.objectContaining({ path: expect.any(String) }));
          const other = await paged.request('POST', '/v1/search', { root: many, pattern: 'x', maxResults: 400, cursor: first.body.nextCursor });
          expect(other).toMatchObject({ status: 400, body: { kind: 'cursor_invalid' } });
          expect(await paged.request('POST', '/v1/search', { root: many, pattern: 'TODO', maxTokens: 10 })).toMatchObject({ status: 400, body: { kind: 'input_invalid' } });
        } finally {
          await paged.close();
        }
      } finally {
        await stack.close();
      }
    });
  });

  describe('keys', () => {
    it('creates a key once, lists it and revokes it', async () => {
      const env = { QUARRY_DATABASE_URL: TEST_DATABASE_URL };
      const name = `cli-test-${Date.now()}`;
      const created = await quarry(['keys', 'create', name], env);
      try {
        expect(created.code).toBe(0);
        expect(created.stdout.trim()).toMatch(/^qk_[A-Za-z0-9_-]{20,}$/);
        const listed = await quarry(['keys', 'list'], env);
        expect(listed.stdout).toContain(name);
        expect(listed.stdout).not.toContain(created.stdout.trim());
      } finally {
        const revoked = await quarry(['keys', 'revoke', name], env);
        expect(revoked.code).toBe(0);
      }
      expect((await quarry(['keys', 'revoke', name], env)).code).toBe(1);
    });
  });

  describe('context', () => {
    let root: string;
    let taskFile: string;
    beforeAll(() => {
      root = makeTree({
        'shop/cart.py': 'from shop.pricing import apply_discount\n\n\nclass Cart:\n    def total(self, items):\n        return apply_discount(sum(items), items)\n',
        'shop/pricing.py': 'def apply_discount(subtotal, items):\n    if not items:\n        raise ValueError("a discount needs at least one item")\n    return subtotal * 0.9\n',
        'tests/test_cart.py': 'from shop.cart import Cart\n\n\ndef test_total():\n    assert Cart().total([1]) == 0.9\n',
      });
      taskFile = path.join(root, '..', `${path.basename(root)}-task.md`);
      fs.writeFileSync(taskFile, 'Empty carts crash\n```\n  File "/venv/lib/site-packages/shop/pricing.py", line 3, in apply_discount\nValueError: a discount needs at least one item\n```\n');
    });
    afterAll(() => fs.rmSync(taskFile, { force: true }));

    it('context --task-file --local --json prints ranked files and spans, the context and its tokens', async () => {
      const run = await quarry(['context', root, '--task-file', taskFile, '--local', '--json']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as { files: { path: string; score: number }[]; spans: { path: string; startLine: number; endLine: number; symbol?: string }[]; context: string; tokens: number; budget: number; commit: string };
      expect(result.files[0].path).toBe('shop/pricing.py');
      expect(result.spans[0]).toMatchObject({ path: 'shop/pricing.py', startLine: 1, endLine: 4, symbol: 'apply_discount' });
      expect(result.context.startsWith('shop/pricing.py:1-4 (function apply_discount)\n')).toBe(true);
      expect(result.tokens).toBeLessThanOrEqual(8000);
      expect(result.budget).toBe(8000);
      expect(result.commit).toMatch(/^[0-9a-f]{40}/);
    });

    it('context "<task>" --tokens N prints the context on stdout within the budget', async () => {
      const run = await quarry(['context', root, 'Checkout fails with ValueError: a discount needs at least one item', '--tokens', '60', '--local']);
      expect(run.code).toBe(0);
      expect(run.stdout.startsWith('shop/pricing.py:1-')).toBe(true);
      expect(run.stderr).toContain('shop/pricing.py');
      expect(run.stderr).toMatch(/of 60 tokens/);
    });

    it.each([
      [['context', 'ROOT', '  ', '--local'], 'task_empty'],
      [['context', 'ROOT', 'cart', '--tokens', '0'], 'budget_invalid'],
      [['context', 'ROOT', 'cart', '--focus', '../outside.py'], 'path_outside_root'],
    ])('refuses bad input with a typed error and exit 2: %j', async (args, kind) => {
      const run = await quarry(args.map((arg) => (arg === 'ROOT' ? root : arg)));
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(kind);
    });
  });

  describe('navigation: refs, callers, callees, outline, impact', () => {
    let root: string;
    beforeAll(() => {
      root = makeTree({
        'src/server.ts': 'export class Server {\n  start(port: number) {\n    return listen(port);\n  }\n}\nexport function listen(port: number) {\n  return port;\n}\n',
        'src/main.ts': 'import { Server as S } from "./server";\nconst server = new S();\nserver.start(80);\n',
        'test/server.spec.ts': 'import { Server } from "../src/server";\nit("starts", () => new Server().start(1));\n',
      });
    });

    it('refs DIR NAME --local --json prints {references: [{path, line, …}]}: paths relative to the root, lines 1-based', async () => {
      const run = await quarry(['refs', root, 'Server.start', '--local', '--json']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as { symbol: { path: string; line: number }; references: { path: string; line: number; column: number; text: string; enclosing?: { name: string } }[] };
      expect(result.symbol).toMatchObject({ path: 'src/server.ts', line: 2 });
      expect(result.references.map(({ path: file, line, column }) => ({ path: file, line, column }))).toEqual([
        { path: 'src/main.ts', line: 3, column: 8 },
        { path: 'test/server.spec.ts', line: 2, column: 33 },
      ]);
      expect(result.references[0].text).toBe('server.start(80);');
    });

    it('callers, callees, outline and impact answer in text and JSON; bad input is a typed error before any indexing', async () => {
      const callers = await quarry(['callers', root, 'listen', '--depth', '2', '--local', '--json']);
      expect(JSON.parse(callers.stdout).entries.map((entry: { name: string; distance: number }) => `${entry.name}@${entry.distance}`)).toEqual(['start@1']);
      const callees = await quarry(['callees', root, 'Server.start', '--local']);
      expect(callees.stdout).toContain('src/server.ts:6  function listen');
      const outline = await quarry(['outline', root, 'src/server.ts', '--local', '--json']);
      expect(JSON.parse(outline.stdout).definitions.map((definition: { name: string }) => definition.name)).toEqual(['Server', 'start', 'listen']);
      const patch = path.join(root, '..', `${path.basename(root)}.patch`);
      fs.writeFileSync(patch, '--- a/src/server.ts\n+++ b/src/server.ts\n@@ -6,3 +6,3 @@\n export function listen(port: number) {\n-  return port;\n+  return port + 1;\n }\n');
      const impact = await quarry(['impact', root, '--diff', patch, '--local', '--json']);
      expect(impact.code).toBe(0);
      const result = JSON.parse(impact.stdout);
      expect(result.changed.map((symbol: { name: string }) => symbol.name)).toEqual(['listen']);
      expect(result.tests.map((test: { path: string }) => test.path)).toEqual(['test/server.spec.ts']);
      const depth = await quarry(['callers', root, 'listen', '--depth', '0', '--local']);
      expect(depth.code).toBe(2);
      expect(depth.stderr).toContain('depth_invalid');
      const unknown = await quarry(['refs', root, 'Sever', '--local']);
      expect(unknown.stderr).toContain('symbol_not_found');
      expect(unknown.stderr).toContain('Server');
      const stale = await quarry(['impact', root, '--diff', patch.replace('.patch', '.stale.patch'), '--local']);
      expect(stale.stderr).toContain('file_not_found');
      fs.writeFileSync(patch, '--- a/src/server.ts\n+++ b/src/server.ts\n@@ -6,3 +6,3 @@\n export function listen(port: string) {\n-  return port;\n+  return port + 1;\n }\n');
      const mismatch = await quarry(['impact', root, '--diff', patch, '--local']);
      expect(mismatch.code).toBe(2);
      expect(mismatch.stderr).toContain('diff_not_applicable');
      expect(mismatch.stderr).toContain('@@ -6,3 +6,3 @@');
      const outside = await quarry(['outline', root, '../etc/passwd', '--local']);
      expect(outside.stderr).toContain('path_outside_root');
      fs.rmSync(patch, { force: true });
    }, 180_000);
  });

  describe('symbols, map and pack', () => {
    let root: string;
    let out: string;
    beforeAll(() => {
      root = makeTree({
        'src/server.ts': 'export class Server {\n  start(port: number) {\n    return port;\n  }\n}\n',
        'src/main.ts': 'import { Server } from "./server";\nnew Server().start(80);\n',
        'src/config.ts': 'export const password = "hunter2hunter2";\nexport function load() {\n  return 1;\n}\n',
        'lib/util.py': 'def helper():\n    return 2\n',
      });
      out = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-cli-pack-'));
    });
    afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

    it('symbols --local --json prints [{path, name, kind, line}], filtered by --path', async () => {
      const run = await quarry(['symbols', root, '--path', 'src/**', '--local', '--json']);
      expect(run.code).toBe(0);
      const rows = JSON.parse(run.stdout) as { path: string; name: string; kind: string; line: number }[];
      expect(rows.map(({ path: file, name, kind, line }) => ({ path: file, name, kind, line }))).toEqual([
        { path: 'src/config.ts', name: 'password', kind: 'constant', line: 1 },
        { path: 'src/config.ts', name: 'load', kind: 'function', line: 2 },
        { path: 'src/server.ts', name: 'Server', kind: 'class', line: 1 },
        { path: 'src/server.ts', name: 'start', kind: 'method', line: 2 },
      ]);
      const missing = await quarry(['symbols', root, '--name', 'Sever', '--local']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('symbol_not_found');
      expect(missing.stderr).toContain('@symbol:Server');
    });

    it('mention --json loads @symbol:Name', async () => {
      const run = await quarry(['mention', '--root', root, '--json', 'Explain @symbol:Server.start']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result.mentions[0]).toMatchObject({ kind: 'symbol', status: 'loaded', definitions: 1 });
      expect(result.augmentedPrompt).toContain('── src/server.ts lines 2-4 · method Server.start');
    });

    it('map --local prints a map within the budget; a bad budget is a typed usage error', async () => {
      const run = await quarry(['map', root, '--tokens', '100', '--local']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('src/server.ts');
      expect(run.stdout).toMatch(/1│ class Server\n\s+2│   start\(port: number\)/);
      expect(run.stderr).toMatch(/tokens \(o200k_base\)/);
      const bad = await quarry(['map', root, '--tokens', '0', '--local']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('budget_invalid');
    });

    it('pack --local --style xml -o FILE --json writes the document and prints {files, tokens}', async () => {
      const file = path.join(out, 'repo.xml');
      const run = await quarry(['pack', root, '--local', '--style', 'xml', '-o', file, '--json']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result).toMatchObject({ files: 4, redactions: 1, output: file });
      const document = fs.readFileSync(file, 'utf8');
      expect(Buffer.byteLength(document)).toBe(result.bytes);
      expect(document).not.toContain('hunter2hunter2');
      const bad = await quarry(['pack', root, '--local', '--style', 'yml']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('style_unknown');
    });

    it('map and pack run as jobs with --server, the pack downloaded from its artifact', async () => {
      const stack = await TestStack.start({ workspaceRoots: [root] });
      try {
        const map = await quarry(['map', root, '--tokens', '200', '--focus', 'Server', '--server', stack.url]);
        expect(map.code).toBe(0);
        expect(map.stdout).toContain('src/server.ts');
        const file = path.join(out, 'repo.md');
        const pack = await quarry(['pack', root, '--style', 'markdown', '--ignore', 'lib', '-o', file, '--tokens-encoding', 'cl100k_base', '--server', stack.url]);
        expect(pack.code).toBe(0);
        expect(pack.stdout).toMatch(/packed 3 files, [\d,]+ tokens \(cl100k_base\)/);
        expect(fs.readFileSync(file, 'utf8')).toContain('### src/server.ts');
      } finally {
        await stack.close();
      }
    });
  });
});
