import fs from 'node:fs';
import { mentionsResultSchema } from '@quarry/contracts';
import { CodeIndexCache } from '@quarry/code-index';
import { makeTempTree, removeTempTree } from '../../../workspace/src/testing/temp-tree';
import { expandMentions } from '../index';

/*
 * @symbol: end to end on a real tree: parse → the code index (tree-sitter, cached per tree
 * state) → ranked definitions with their code → the augmented prompt.
 */

let root: string;
let cache: CodeIndexCache;

const server = [
  'export class Server {', //                                    1
  '  start(port: number): void {', //                            2
  '    this.listen(port);', //                                   3
  '  }', //                                                      4
  '  listen(port: number) {', //                                 5
  '    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";', // 6
  '    return port;', //                                         7
  '  }', //                                                      8
  '}', //                                                        9
  '', //                                                         10
  'export function start(): Server {', //                        11
  '  return new Server();', //                                   12
  '}', //                                                        13
].join('\n');

beforeAll(async () => {
  root = fs.realpathSync(
    await makeTempTree(
      {
        'src/server.ts': `${server}\n`,
        'src/main.ts': "import { Server, start } from './server';\nconst s: Server = start();\ns.start(80);\nstart();\n",
        'lib/worker.py': 'class Worker:\n    def start(self):\n        return 1\n\ndef START():\n    pass\n',
        'README.md': '# Server\n',
        '.env': 'SECRET=start\n',
      },
      'quarry-symbols-',
    ),
  );
  cache = new CodeIndexCache();
});

afterAll(async () => {
  await removeTempTree(root);
});

const expand = (prompt: string) => expandMentions({ prompt }, { root, codeIndex: cache }).then((result) => mentionsResultSchema.parse(result));

describe('@symbol: mentions', () => {
  it('loads a method by Class.method with its file and line range', async () => {
    const result = await expand('Why does @symbol:Server.start hang?');
    expect(result.errors).toEqual([]);
    expect(result.mentions[0]).toMatchObject({ kind: 'symbol', status: 'loaded', definitions: 1, lines: 3 });
    expect(result.augmentedPrompt).toContain('Symbol: Server.start (1 definition)');
    expect(result.augmentedPrompt).toContain('── src/server.ts lines 2-4 · method Server.start');
    expect(result.augmentedPrompt).toContain('  start(port: number): void {\n    this.listen(port);\n  }\n');
    expect(result.coverage.symbols).toBe(1);
  });

  it('lists several matches ranked: exact case first, then by references, then by place', async () => {
    const result = await expand('@symbol:start');
    const text = result.augmentedPrompt;
    expect(result.mentions[0]).toMatchObject({ status: 'loaded', definitions: 4 });
    expect(text).toContain('Symbol: start (4 definitions)');
    const markers = [...text.matchAll(/── (\S+ lines \d+-\d+) · (\w+) (\S+)/g)].map((match) => `${match[1]} ${match[2]} ${match[3]}`);
    expect(markers).toEqual([
      'lib/worker.py lines 2-3 method Worker.start',
      'src/server.ts lines 2-4 method Server.start',
      'src/server.ts lines 11-13 function start',
      'lib/worker.py lines 5-6 function START', // another case: last
    ]);
  });

  it('ranks by uses among the other-case matches', async () => {
    const other = fs.realpathSync(
      await makeTempTree(
        {
          'a.ts': 'export function RUN() {}\nexport function run() {}\nrun(); run(); run();\n',
          'b.py': 'def Run():\n    pass\n',
        },
        'quarry-symbols-rank-',
      ),
    );
    try {
      const result = await expandMentions({ prompt: '@symbol:Run' }, { root: other, codeIndex: cache });
      const markers = [...result.augmentedPrompt.matchAll(/── \S+ lines? \S+ · function (\w+)/g)].map((match) => match[1]);
      expect(markers).toEqual(['Run', 'run', 'RUN']); // exact case, then the used name, then the unused one
    } finally {
      await removeTempTree(other);
    }
  });

  it('redacts credentials in the definition it loads', async () => {
    const result = await expand('@symbol:Server.listen');
    expect(result.augmentedPrompt).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(result.augmentedPrompt).toContain('[REDACTED');
    expect(result.mentions[0].redactions).toBe(1);
    expect(result.augmentedPrompt).toContain('1 secret redacted');
  });

  it('redacts credentials in the signatures of the matches it only lists', async () => {
    const many = fs.realpathSync(
      await makeTempTree(
        Object.fromEntries(Array.from({ length: 7 }, (_, index) => [`c${index}.ts`, `export const apiToken = "ghp_${String(index).repeat(36)}";\n`])),
        'quarry-symbols-secrets-',
      ),
    );
    try {
      const result = await expandMentions({ prompt: '@symbol:apiToken' }, { root: many, codeIndex: cache });
      expect(result.augmentedPrompt).toContain('── also defined (2) ──');
      expect(result.augmentedPrompt).not.toMatch(/ghp_\d{36}/);
    } finally {
      await removeTempTree(many);
    }
  });

  it('fails with symbol_not_found and a did-you-mean from the symbol table', async () => {
    const result = await expand('@symbol:Sever and @symbol:Server.stop');
    expect(result.mentions.map((entry) => entry.status)).toEqual(['failed', 'failed']);
    expect(result.mentions[0].error).toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('@symbol:Server') });
    expect(result.mentions[1].error).toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('@symbol:Server.start') });
    expect(result.augmentedPrompt).toContain('[@symbol:Sever was not loaded: No definition of "Sever" in this repository — Did you mean @symbol:Server');
  });

  it('reports a malformed name as symbol_invalid without indexing anything', async () => {
    const fresh = new CodeIndexCache();
    const result = await expandMentions({ prompt: '@symbol:"(a+)+$"' }, { root, codeIndex: fresh });
    expect(result.mentions[0]).toMatchObject({ status: 'failed', error: { kind: 'symbol_invalid' } });
    expect(fresh.stats()).toEqual({ trees: 0, blobs: 0, bytes: 0 });
  });

  it('indexes a tree once per state: later mentions reuse it, an edit re-indexes only that file', async () => {
    const own = new CodeIndexCache();
    let created = 0;
    const counting = new CodeIndexCache({ indexer: async () => { created++; return own.blobIndexer(); } });
    await expandMentions({ prompt: '@symbol:start @symbol:Server' }, { root, codeIndex: counting });
    const first = counting.stats();
    expect(first.trees).toBe(1);
    const tree = await counting.tree(root);
    await expandMentions({ prompt: '@symbol:Worker' }, { root, codeIndex: counting });
    expect(await counting.tree(root)).toBe(tree);
    expect(created).toBe(1);

    fs.appendFileSync(`${root}/src/main.ts`, 'export function added() {}\n');
    try {
      const result = await expandMentions({ prompt: '@symbol:added' }, { root, codeIndex: counting });
      expect(result.mentions[0]).toMatchObject({ status: 'loaded', definitions: 1 });
      const after = counting.stats();
      expect(after.trees).toBe(2);
      expect(after.blobs).toBe(first.blobs + 1); // only the edited file was indexed again
    } finally {
      fs.writeFileSync(`${root}/src/main.ts`, "import { Server, start } from './server';\nconst s: Server = start();\ns.start(80);\nstart();\n");
    }
  });

  it('keeps at most maxTrees trees', async () => {
    const small = new CodeIndexCache({ maxTrees: 1, indexer: () => cache.blobIndexer() });
    const other = fs.realpathSync(await makeTempTree({ 'a.go': 'package a\nfunc Run() {}\n' }, 'quarry-symbols-other-'));
    try {
      await small.tree(root);
      await small.tree(other);
      expect(small.stats().trees).toBe(1);
    } finally {
      await removeTempTree(other);
    }
  });

  it('keeps no more than maxBytes of indexes: a tree too large on its own is answered from, not kept', async () => {
    const tiny = new CodeIndexCache({ maxBytes: 2_000, indexer: () => cache.blobIndexer() });
    const tree = await tiny.tree(root);
    expect(tree.symbolTable().lookup('Server.start')).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    const stats = tiny.stats();
    expect(stats.trees).toBe(0);
    expect(stats.bytes).toBeLessThanOrEqual(2_000);
    expect(stats.blobs).toBeLessThan(tree.files.length);
    const roomy = new CodeIndexCache({ indexer: () => cache.blobIndexer() });
    await roomy.tree(root);
    await new Promise((resolve) => setImmediate(resolve));
    expect(roomy.stats()).toMatchObject({ trees: 1, blobs: tree.files.length });
  });

  it('never indexes credential files', async () => {
    const tree = await cache.tree(root);
    expect(tree.files.map((file) => file.path)).not.toContain('.env');
    expect(tree.secretFiles).toBe(1);
  });
});
