import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { mapResultSchema, mentionsResultSchema, packResultSchema, symbolsResultSchema } from '../../libs/contracts/src';
import { countTokens } from '../../libs/code-index/src';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

/*
 * The code-index kinds through the real gateway, queues, worker and Postgres: symbols, map and
 * pack (its document downloaded from GET /v1/jobs/{id}/artifact), @symbol: in the mentions job,
 * and every bad input refused at submission with its own typed 4xx.
 */

describe('the symbols, map and pack jobs', () => {
  let stack: TestStack;
  let root: string;
  let artifactDir: string;

  beforeAll(async () => {
    root = makeTree({
      'src/server.ts': 'import { parseConfig } from "./config";\nexport class Server {\n  start(port: number): void {\n    parseConfig("x");\n  }\n}\n',
      'src/config.ts': 'export function parseConfig(text: string): Record<string, string> {\n  return { text };\n}\n',
      'src/main.ts': 'import { Server } from "./server";\nimport { parseConfig } from "./config";\nnew Server().start(parseConfig("p").port as unknown as number);\n',
      'tools/build.py': 'def build(target):\n    return target\n',
      'config/deploy.ts': 'export const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";\n',
      '.env': 'PASSWORD=hunter2\n',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
    });
    artifactDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-artifacts-'));
    stack = await TestStack.start({ workspaceRoots: [root], artifactDir });
  });
  afterAll(async () => {
    await stack.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(artifactDir, { recursive: true, force: true });
  });

  const run = async (kind: string, input: Record<string, unknown>) => {
    const { status, body } = await stack.submit(kind, { root, ...input });
    expect({ status, body: status === 202 ? 'queued' : body }).toEqual({ status: 202, body: 'queued' });
    return stack.waitForStatus(body.id, ['succeeded', 'failed'], 30_000);
  };

  it('symbols: a name ranked with its place, or every definition under a glob', async () => {
    const named = await run('symbols', { name: 'Server.start' });
    expect(named.status).toBe('succeeded');
    expect(symbolsResultSchema.parse(named.result).definitions).toEqual([
      expect.objectContaining({ path: 'src/server.ts', name: 'start', kind: 'method', line: 3, startLine: 3, endLine: 5, container: 'Server' }),
    ]);
    const all = symbolsResultSchema.parse((await run('symbols', { path: 'src/**' })).result);
    expect(all.definitions.map((row) => `${row.path}:${row.line} ${row.name}`)).toEqual(['src/config.ts:1 parseConfig', 'src/server.ts:2 Server', 'src/server.ts:3 start']);

    const missing = await run('symbols', { name: 'parseConfg' });
    expect(missing.status).toBe('failed');
    expect(missing.error).toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('@symbol:parseConfig') });
  });

  it('map: within the budget, focused, with the repository tokens per language and directory', async () => {
    const job = await run('map', { tokens: 60, focus: ['src/main.ts'] });
    expect(job.status).toBe('succeeded');
    const result = mapResultSchema.parse(job.result);
    expect(result.tokens).toBeLessThanOrEqual(60);
    expect(countTokens(result.text)).toBe(result.tokens);
    expect(result.text).toContain('src/config.ts');
    expect(result.focus).toEqual({ paths: ['src/main.ts'], symbols: [] });
    expect(result.repository.byDirectory.map((row) => row.path).sort()).toEqual(['config', 'src', 'tools']);
    expect(result.repository.total).toBe(result.repository.byLanguage.reduce((sum, row) => sum + row.tokens, 0));
  });

  it('pack: streamed to an artifact, downloadable, well-formed, secrets redacted, tokens adding up', async () => {
    const job = await run('pack', {});
    expect(job.status).toBe('succeeded');
    const result = packResultSchema.parse(job.result);
    expect(result).toMatchObject({ style: 'xml', files: 5, redactions: 1, skipped: { binary: 1, secretFiles: 1 } });
    expect(result.totals.total).toBe(result.tokens);

    const response = await fetch(`${stack.url}/v1/jobs/${job.id}/artifact`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/xml');
    const document = await response.text();
    expect(Buffer.byteLength(document)).toBe(result.bytes);
    expect(document).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(document).not.toContain('hunter2');
    const files: { path: string; tokens: number }[] = [];
    const parser = new SaxesParser();
    parser.on('opentag', (tag) => {
      if (tag.name === 'file' && typeof tag.attributes.tokens === 'string') files.push({ path: tag.attributes.path as string, tokens: Number(tag.attributes.tokens) });
    });
    parser.write(document).close();
    expect(files.map((file) => file.path).sort()).toEqual(['config/deploy.ts', 'src/config.ts', 'src/main.ts', 'src/server.ts', 'tools/build.py']);
    expect(files.reduce((sum, file) => sum + file.tokens, 0)).toBe(result.tokens);

    const notPack = await run('symbols', { name: 'build' });
    const refused = await stack.request('GET', `/v1/jobs/${notPack.id}/artifact`);
    expect(refused).toMatchObject({ status: 404, body: { kind: 'not_found' } });
  });

  it('pack: markdown, globs and a budget', async () => {
    const job = await run('pack', { style: 'markdown', include: ['src/**'], ignore: ['**/main.ts'], maxTokens: 40, encoding: 'cl100k_base' });
    const result = packResultSchema.parse(job.result);
    // Everything outside src/ or under main.ts, the binary logo included: binary counts selected files only.
    expect(result).toMatchObject({ style: 'markdown', encoding: 'cl100k_base', skipped: { filtered: 4, binary: 0 } });
    expect(result.files + result.omitted).toBe(2);
    expect(result.tokens).toBeLessThanOrEqual(40);
    expect(result.artifact.name).toBe(`${job.id}.md`);
  });

  it('@symbol: in the mentions job loads the definition through the worker\'s code index', async () => {
    const job = await run('mentions', { prompt: 'Why does @symbol:Server.start call @symbol:parseConfig?' });
    const result = mentionsResultSchema.parse(job.result);
    expect(result.mentions.map((mention) => [mention.kind, mention.status, mention.definitions])).toEqual([
      ['symbol', 'loaded', 1],
      ['symbol', 'loaded', 1],
    ]);
    expect(result.augmentedPrompt).toContain('── src/config.ts lines 1-3 · function parseConfig');
  });

  it.each([
    ['map', { tokens: 0 }, 'budget_invalid'],
    ['map', { tokens: 1e12 }, 'budget_invalid'],
    ['map', { tokens: 2.5 }, 'budget_invalid'],
    ['pack', { maxTokens: -1 }, 'budget_invalid'],
    ['pack', { style: 'yaml' }, 'style_unknown'],
    ['pack', { include: ['src/[a'] }, 'pattern_invalid'],
    ['pack', { ignore: [''] }, 'pattern_invalid'],
    ['pack', { include: ['/etc/**'] }, 'pattern_invalid'],
    ['symbols', { name: '' }, 'symbol_invalid'],
    ['symbols', { name: '(a+)+$' }, 'symbol_invalid'],
    ['symbols', { name: 'x'.repeat(300) }, 'symbol_invalid'],
    ['symbols', { path: 'src/{a' }, 'pattern_invalid'],
    ['pack', { encoding: 'p50k_base' }, 'input_invalid'],
  ])('%s %j → 400 %s', async (kind, input, errorKind) => {
    const { status, body } = await stack.submit(kind, { root, ...input });
    expect({ status, kind: body.kind, hasSuggestion: typeof body.suggestion === 'string' }).toEqual({ status: 400, kind: errorKind, hasSuggestion: true });
  });
});
