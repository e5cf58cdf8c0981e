import { realpathSync, writeFileSync } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { closeSharedSearchPool } from '@quarry/search';
import { addFiles, makeTempTree, removeTempTree } from '../../workspace/src/testing/temp-tree';
import type { QuarryBackend } from './backend';
import { BackendEndpoint } from './backend-endpoint';
import { answerTokens } from './paged-answer';
import { WorkspaceOperations } from './workspace-operations';

/*
 * The workspace tools' pages, through the endpoint as a client calls them, on real files: every
 * line and every item comes exactly once across the pages, each page within its budget, and a
 * cursor continues on another endpoint (a restarted server) as on the one that gave it.
 */
const LONG_LINE = 'x'.repeat(9_000);
const bigFile = Array.from({ length: 4_000 }, (_, index) => (index === 1_234 ? LONG_LINE : `line ${index + 1}: ${'lorem ipsum dolor '.repeat(1 + (index % 5))}`));
const index = { commit: 'c0ffee', dirty: 0, coverage: 0, building: false, read: 'files' as const };

let root: string;

function endpoint(): BackendEndpoint {
  const operations = new WorkspaceOperations({ resolveRoot: async (given) => realpathSync(given) });
  const backend: QuarryBackend = {
    defaultRepository: root,
    runJob: async () => {
      throw new Error('no jobs here');
    },
    runWorkspaceTool: (name, input, signal, options) => operations.run(name, input, signal, options),
    indexState: async () => index,
    getJob: async () => {
      throw new Error('no jobs here');
    },
    listJobs: async () => [],
    navigate: async () => {
      throw new Error('no navigation here');
    },
  };
  return new BackendEndpoint(backend);
}

const signal = new AbortController().signal;
async function call(server: BackendEndpoint, name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; data: any }> {
  const result = await server.callTool(name, args, { signal });
  if (result.isError) throw new Error((result.content[0] as { text: string }).text);
  return { result, data: result.structuredContent };
}

/** Every page of a call, following nextCursor; each page on a fresh endpoint when `restart`. */
async function pages(name: string, args: Record<string, unknown>, options: { restart?: boolean } = {}) {
  let server = endpoint();
  const all: { result: CallToolResult; data: any }[] = [];
  let cursor: string | undefined;
  do {
    if (options.restart) server = endpoint();
    const page = await call(server, name, cursor ? { ...args, cursor } : args);
    all.push(page);
    cursor = page.data.nextCursor;
  } while (cursor && all.length < 500);
  return all;
}

beforeAll(async () => {
  root = await makeTempTree({
    'big.txt': `${bigFile.join('\n')}\n`,
    'small.ts': 'export const a = 1;\n',
    ...Object.fromEntries(Array.from({ length: 450 }, (_, n) => [`src/m${n % 9}/file${n}.ts`, `export const needle${n} = ${n};\n// needle again\n`])),
  });
});
afterAll(async () => {
  await removeTempTree(root);
  await closeSharedSearchPool();
});

describe('read_file pages', () => {
  it('reads a file larger than a page whole, every line once (a long line in parts), each page within 8,000 tokens', async () => {
    const read = await pages('read_file', { path: 'big.txt' });
    expect(read.length).toBeGreaterThan(3);
    const rebuilt: string[] = [];
    for (const { result, data } of read) {
      expect(answerTokens(result)).toBeLessThanOrEqual(8_000);
      expect(data.index).toEqual(index);
      for (const line of data.lines) {
        if (line.column) rebuilt[line.number - 1] += line.text;
        else rebuilt[line.number - 1] = line.text;
      }
    }
    expect(rebuilt).toEqual(bigFile);
    expect(read.at(-1)!.data.nextCursor).toBeUndefined();
    expect((read[0].result.content[0] as { text: string }).text).toMatch(/left out: lines \d+-4,000\. To continue, call read_file again with the same arguments and "cursor": "q1\./);
  });

  it('continues from a cursor on another server (a restart) exactly as on the same one', async () => {
    const same = await pages('read_file', { path: 'big.txt', startLine: 100, endLine: 1_500, maxTokens: 4_000 });
    const restarted = await pages('read_file', { path: 'big.txt', startLine: 100, endLine: 1_500, maxTokens: 4_000 }, { restart: true });
    expect(restarted.map((page) => page.data.lines)).toEqual(same.map((page) => page.data.lines));
    expect(same.flatMap((page) => page.data.lines).filter((line: { column?: number }) => !line.column).map((line: { number: number }) => line.number)).toEqual(
      Array.from({ length: 1_401 }, (_, n) => 100 + n),
    );
  });

  it('continues with the cursor alone: short arguments travel in it', async () => {
    const server = endpoint();
    const first = await call(server, 'read_file', { path: 'big.txt', startLine: 10, maxTokens: 1_000 });
    const next = await call(server, 'read_file', { cursor: first.data.nextCursor });
    expect(next.data.lines[0].number).toBe(first.data.page.last + 1);
    // Given with other arguments, it is refused.
    const other = await server.callTool('read_file', { cursor: first.data.nextCursor, startLine: 11 }, { signal });
    expect(JSON.parse((other.content[0] as { text: string }).text)).toMatchObject({ kind: 'cursor_invalid' });
  });

  it('never answers above 24,000 tokens, however much is asked for', async () => {
    const { result, data } = await call(endpoint(), 'read_file', { path: 'big.txt', maxTokens: 1_000_000 });
    expect(answerTokens(result)).toBeLessThanOrEqual(24_000);
    expect(answerTokens(result)).toBeGreaterThan(20_000);
    expect(data.page).toMatchObject({ maxTokens: 24_000 });
  });

  it('answers a cursor whose file changed with cursor_stale, one altered or of other arguments with cursor_invalid', async () => {
    const tree = await makeTempTree({ 'f.txt': bigFile.join('\n') });
    const previous = root;
    root = tree;
    try {
      const server = endpoint();
      const first = await call(server, 'read_file', { path: 'f.txt' });
      const cursor = first.data.nextCursor as string;
      const failure = async (args: Record<string, unknown>) => JSON.parse(((await server.callTool('read_file', args, { signal })).content[0] as { text: string }).text);
      expect(await failure({ path: 'other.txt', cursor })).toMatchObject({ kind: 'cursor_invalid', message: expect.stringContaining('other arguments') });
      expect(await failure({ path: 'f.txt', cursor: `${cursor.slice(0, -2)}zz` })).toMatchObject({ kind: 'cursor_invalid' });
      expect(await failure({ path: 'f.txt', maxTokens: 10 })).toMatchObject({ kind: 'input_invalid', message: expect.stringContaining('maxTokens') });
      writeFileSync(`${tree}/f.txt`, `changed\n${bigFile.join('\n')}`);
      expect(await failure({ path: 'f.txt', cursor })).toMatchObject({ kind: 'cursor_stale', suggestion: expect.stringContaining('without cursor') });
    } finally {
      root = previous;
      await removeTempTree(tree);
    }
  });
});

describe('list pages', () => {
  it('search_text: every match once across pages, in path and line order', async () => {
    const all = await pages('search_text', { pattern: 'needle', maxResults: 120, maxTokens: 3_000 });
    const matches = all.flatMap((page) => page.data.matches.map((match: { path: string; line: number }) => `${match.path}:${match.line}`));
    expect(matches).toHaveLength(900);
    expect(new Set(matches).size).toBe(900);
    for (const page of all) {
      expect(page.data.totalMatches).toBe(900);
      expect(answerTokens(page.result)).toBeLessThanOrEqual(3_000);
      expect(page.data.matches.length).toBeLessThanOrEqual(120);
    }
  });

  it('search_text: a file written after the first page is found by the next call', async () => {
    const before = await call(endpoint(), 'search_text', { pattern: 'freshly written' });
    expect(before.data.totalMatches).toBe(0);
    await addFiles(root, { 'zz/new.ts': '// freshly written\n' });
    const after = await call(endpoint(), 'search_text', { pattern: 'freshly written' });
    expect(after.data.matches).toEqual([expect.objectContaining({ path: 'zz/new.ts', line: 1 })]);
    expect(after.data.index).toEqual(index);
  });

  it('find_files and list_directory: every path once across pages', async () => {
    const found = await pages('find_files', { pattern: '*.ts', maxResults: 100, maxTokens: 1_000 });
    const paths = found.flatMap((page) => page.data.matches);
    expect(paths.length).toBe(found[0].data.total);
    expect(new Set(paths).size).toBe(paths.length);
    const listed = await pages('list_directory', { path: 'src', recursive: true, maxTokens: 1_000 });
    const entries = listed.flatMap((page) => page.data.entries.map((entry: { path: string }) => entry.path));
    expect(entries).toHaveLength(listed[0].data.totalEntries);
    expect(new Set(entries).size).toBe(entries.length);
    expect(listed.length).toBeGreaterThan(1);
  });
});
