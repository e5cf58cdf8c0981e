import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BlobIndexer, buildBlobChunks, decodeBlobChunks, indexBlob, indexVariant } from '../../libs/code-index/src';
import { contextResultSchema, interpretResultSchema, mentionsResultSchema } from '../../libs/contracts/src';
import { BlobCodeIndexRepository } from '../../libs/db/src/blob-code-index-repository';
import { WorkerPorts } from '../../apps/worker/src/worker-ports';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * Retrieval inside other jobs, through the real gateway, queue, worker and Postgres: @codebase and
 * @context:"…" in the mentions job, and `ask` routing an open question about the code to
 * find_relevant_code in the interpret job. Both rank with the worker's retrieval (the context
 * job's code index, corpus and navigation graph), so they show what the context job ranks first.
 */

describe('retrieval in the mentions and interpret jobs', () => {
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    root = makeTree({
      'src/limits/rateLimiter.ts': [
        '/** Token bucket: rate limiting of incoming requests, per client. */',
        'export class RateLimiter {',
        '  private readonly tokens = new Map<string, number>();',
        '  constructor(private readonly burst: number) {}',
        '',
        '  /** Whether the client is under its rate limit. */',
        '  allow(client: string): boolean {',
        '    const left = this.tokens.get(client) ?? this.burst;',
        '    if (left < 1) return false;',
        '    this.tokens.set(client, left - 1);',
        '    return true;',
        '  }',
        '}',
        '',
      ].join('\n'),
      'src/auth/login.ts': 'export async function loginWithRetries(user: string, attempts = 3): Promise<boolean> {\n  for (let attempt = 0; attempt < attempts; attempt++) if (await tryLogin(user)) return true;\n  return false;\n}\n\nasync function tryLogin(user: string): Promise<boolean> {\n  return user.length > 0;\n}\n',
      'src/server.ts': "import { RateLimiter } from './limits/rateLimiter';\n\nconst limiter = new RateLimiter(10);\n\nexport function handle(client: string): number {\n  return limiter.allow(client) ? 200 : 429;\n}\n",
      'README.md': '# server\n',
    });
    stack = await TestStack.start({ workspaceRoots: [root] });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('@codebase shows the code the context job ranks first for the prompt', async () => {
    const prompt = '@codebase where is rate limiting handled?';
    const mentions = await stack.submit('mentions', { root, prompt });
    const context = await stack.submit('context', { root, task: 'where is rate limiting handled?' });
    expect([mentions.status, context.status]).toEqual([202, 202]);
    const [mentionsJob, contextJob] = await Promise.all([stack.waitForStatus(mentions.body.id, ['succeeded', 'failed']), stack.waitForStatus(context.body.id, ['succeeded', 'failed'])]);
    expect([mentionsJob.status, contextJob.status]).toEqual(['succeeded', 'succeeded']);
    const result = mentionsResultSchema.parse(mentionsJob.result);
    const ranked = contextResultSchema.parse(contextJob.result);

    expect(result.mentions).toEqual([expect.objectContaining({ kind: 'context', raw: '@codebase', status: 'loaded' })]);
    expect(result.coverage.contexts).toBe(1);
    const best = ranked.spans[0];
    expect(best.path).toBe('src/limits/rateLimiter.ts');
    const body = result.augmentedPrompt.slice(result.augmentedPrompt.indexOf('```text\n') + '```text\n'.length);
    expect(body.split('\n')[0]).toBe(`${best.path}:${best.startLine}-${best.endLine}${best.symbol ? ` (${best.kind} ${best.container ? `${best.container}.` : ''}${best.symbol})` : ''}`);
  });

  it('ask routes an open question about the code to find_relevant_code, and a general question to no tool', async () => {
    const code = await stack.submit('interpret', { root, query: 'where is rate limiting handled?', ai: 'off' });
    const general = await stack.submit('interpret', { root, query: 'what is a B-tree?', ai: 'off' });
    const [codeJob, generalJob] = await Promise.all([stack.waitForStatus(code.body.id, ['succeeded', 'failed']), stack.waitForStatus(general.body.id, ['succeeded', 'failed'])]);
    expect([codeJob.status, generalJob.status]).toEqual(['succeeded', 'succeeded']);
    const answer = interpretResultSchema.parse(codeJob.result);
    expect(answer.plan.tools).toEqual([{ name: 'find_relevant_code', args: { task: 'where is rate limiting handled?' }, confidence: 0.9 }]);
    expect(answer.results).toHaveLength(1);
    const output = answer.results[0].output as { files: { path: string; signals: string[] }[]; spans: { path: string }[]; context: string; tokens: number };
    expect(answer.results[0].ok).toBe(true);
    expect(output.files[0].path).toBe('src/limits/rateLimiter.ts');
    expect(output.spans[0].path).toBe('src/limits/rateLimiter.ts');
    expect(output.context).toContain('allow(client: string): boolean {');
    expect(output.tokens).toBeLessThanOrEqual(4000);
    expect(interpretResultSchema.parse(generalJob.result)).toMatchObject({ plan: { needs_tools: false, tools: [] }, results: [] });
  });

  it('@context:"…" ranks for its quoted task; an empty one fails alone, and the job succeeds', async () => {
    const { body } = await stack.submit('mentions', { root, prompt: 'Before the release: @context:"login retries" and @context:"" please' });
    const job = await stack.waitForStatus(body.id, ['succeeded', 'failed']);
    expect(job.status).toBe('succeeded');
    const result = mentionsResultSchema.parse(job.result);
    expect(result.mentions.map((mention) => [mention.kind, mention.status])).toEqual([
      ['context', 'loaded'],
      ['invalid', 'failed'],
    ]);
    expect(result.errors).toEqual([expect.objectContaining({ source: '@context:""', kind: 'task_empty' })]);
    expect(result.augmentedPrompt).toContain('Context: "login retries" — ');
    expect(result.augmentedPrompt).toMatch(/^src\/auth\/login\.ts:1-4 \(function loginWithRetries\)$/m);
  });
});

describe('the context job on a tree a scan indexed', () => {
  let stack: TestStack;
  let root: string;
  const files: Record<string, string> = {
    'billing/invoice.py': [
      `# ${Date.now()} ${Math.random()}`, // unique blobs: the table is shared by every run
      'class Invoice:',
      '    def total_with_tax(self, rate):',
      '        if rate < 0:',
      '            raise ValueError("tax rate must not be negative here")',
      '        return sum(line.amount for line in self.lines) * (1 + rate)',
      '',
    ].join('\n'),
    'billing/ledger.py': `# ${Math.random()}\nfrom billing.invoice import Invoice\n\n\ndef post_invoice(ledger, invoice: Invoice):\n    ledger.append(invoice.total_with_tax(0.2))\n`,
    'web/routes.ts': `// ${Math.random()}\nexport function health(): string {\n  return 'ok';\n}\n`,
    'README.md': '# billing\n',
  };
  const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]).toString().trim();
  const rows = () => new BlobCodeIndexRepository(stack.prisma);
  const keyOf = (file: string) => ({ blob: git('hash-object', file), variant: indexVariant(file) });
  const rowCount = async () => Number((await stack.prisma.$queryRawUnsafe<{ n: bigint }[]>('SELECT count(*) AS n FROM blob_code_index'))[0].n);
  const chunkedFromText = () => stack.worker!.get(WorkerPorts).corpora.chunkedFromText;
  const scan = async () => {
    const { body } = await stack.submit('scan', { root });
    expect((await stack.waitForStatus(body.id, ['succeeded', 'failed'], 60_000)).status).toBe('succeeded');
  };
  const context = async (task: string) => {
    const { body } = await stack.submit('context', { root, task });
    const job = await stack.waitForStatus(body.id, ['succeeded', 'failed'], 60_000);
    expect(job.status).toBe('succeeded');
    return contextResultSchema.parse(job.result);
  };

  beforeAll(async () => {
    root = makeTree(files);
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    stack = await TestStack.start({ workspaceRoots: [root] });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('ranks from the chunk rows the scan stored, chunking no file; a one-file commit re-derives one row', async () => {
    await scan();
    // The scan stored each blob's chunk row beside its code index: what chunking its text gives.
    const indexer = await BlobIndexer.create();
    const stored = await rows().loadChunks(Object.keys(files).map(keyOf), 'o200k_base');
    expect(stored.size).toBe(Object.keys(files).length);
    for (const [file, text] of Object.entries(files)) {
      const key = keyOf(file);
      const expected = buildBlobChunks({ text, definitions: indexBlob(indexer, file, Buffer.from(text)).definitions });
      expect({ file, chunks: decodeBlobChunks(stored.get(`${key.blob} ${key.variant}`)!) }).toEqual({ file, chunks: expected });
    }

    const answer = await context('ValueError: tax rate must not be negative here, raised by Invoice.total_with_tax');
    expect(answer.files[0].path).toBe('billing/invoice.py');
    expect(answer.spans[0]).toMatchObject({ path: 'billing/invoice.py', symbol: 'total_with_tax' });
    expect(chunkedFromText()).toBe(0);

    // One file changes in a new commit: the re-scan derives that blob's row alone, and the next
    // question ranks the new code, still from rows.
    const before = await rowCount();
    const changed = `${files['web/routes.ts']}export function refundInvoice(id: string): string {\n  return id;\n}\n`;
    writeFileSync(path.join(root, 'web/routes.ts'), changed);
    git('commit', '-q', '-am', 'refunds');
    await scan();
    expect(await rowCount()).toBe(before + 1);
    expect((await rows().loadChunks([keyOf('web/routes.ts')], 'o200k_base')).size).toBe(1);
    const again = await context('where is refundInvoice defined?');
    expect(again.spans[0]).toMatchObject({ path: 'web/routes.ts', symbol: 'refundInvoice' });
    expect(chunkedFromText()).toBe(0);
  });
});
