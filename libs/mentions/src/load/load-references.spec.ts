import fs from 'node:fs';
import { mentionsResultSchema } from '@quarry/contracts';
import { CodeIndexCache } from '@quarry/code-index';
import { makeTempTree, removeTempTree } from '../../../workspace/src/testing/temp-tree';
import { expandMentions } from '../index';

/*
 * @refs: end to end on a real tree: parse → the code index → the navigation graph (names resolved
 * through imports) → the uses grouped by file → the augmented prompt, within its budget.
 */

let root: string;
let cache: CodeIndexCache;

beforeAll(async () => {
  root = fs.realpathSync(
    await makeTempTree(
      {
        'src/server.ts': 'export class Server {\n  start(port: number): void {\n    void port;\n  }\n}\n\nexport function start(): Server {\n  return new Server();\n}\n',
        'src/main.ts': [
          "import { Server, start } from './server';",
          'export function main() {',
          '  const s: Server = start();',
          '  s.start(80);',
          '  const key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"; s.start(key.length);',
          '}',
          '',
        ].join('\n'),
        'src/other.ts': "import { Server } from './server';\nnew Server().start(1);\n",
        'lib/worker.py': 'class Worker:\n    def start(self):\n        return 1\n\nWorker().start()\n',
      },
      'quarry-refs-',
    ),
  );
  cache = new CodeIndexCache();
});

afterAll(async () => {
  await removeTempTree(root);
});

const expand = (prompt: string, maxBytes?: number) => expandMentions({ prompt, maxBytes }, { root, codeIndex: cache }).then((result) => mentionsResultSchema.parse(result));

describe('@refs: mentions', () => {
  it('lists the uses of Class.method grouped by file, with the line and the function each is in, and not those of other start definitions', async () => {
    const result = await expand('Who calls @refs:Server.start?');
    expect(result.errors).toEqual([]);
    expect(result.mentions[0]).toMatchObject({ kind: 'refs', status: 'loaded', references: 3 });
    expect(result.coverage.references).toBe(1);
    const block = result.augmentedPrompt.slice(result.augmentedPrompt.indexOf('References:'));
    expect(block).toContain('References: Server.start (method) at src/server.ts:2 (3 uses in 2 files)');
    expect(block).toContain('src/main.ts\n');
    expect(block).toContain('  4:5  s.start(80);  [in main]');
    expect(block).toContain('src/other.ts\n');
    expect(block).toContain('  2:14  new Server().start(1);');
    expect(block).not.toContain('worker.py');
  });

  it('takes a place: the definition on that line', async () => {
    const result = await expand('@refs:src/server.ts:7');
    expect(result.mentions[0]).toMatchObject({ status: 'loaded', references: 2 });
    expect(result.augmentedPrompt).toContain('References: start (function) at src/server.ts:7 (2 uses in 1 file)');
    expect(result.augmentedPrompt).toContain('  1:18  import { Server, start } from \'./server\';');
    expect(result.augmentedPrompt).toContain('  3:21  const s: Server = start();  [in main]');
  });

  it('redacts credentials in the lines it shows', async () => {
    const result = await expand('@refs:Server.start');
    expect(result.augmentedPrompt).toContain('s.start(key.length)');
    expect(result.augmentedPrompt).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(result.augmentedPrompt).toContain('[REDACTED');
  });

  it('merges two mentions of one definition into one block', async () => {
    const result = await expand('@refs:Server.start and @refs:src/server.ts:2');
    expect(result.mentions.map((entry) => entry.status)).toEqual(['loaded', 'loaded']);
    expect(result.augmentedPrompt.match(/References:/g)).toHaveLength(1);
  });

  it('fails with symbol_not_found and the closest names as @refs: mentions; a place with nothing there fails typed too', async () => {
    const result = await expand('@refs:Sever and @refs:Server.stop and @refs:src/nowhere.ts:3');
    expect(result.mentions.map((entry) => entry.status)).toEqual(['failed', 'failed', 'failed']);
    expect(result.mentions[0].error).toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('@refs:Server') });
    expect(result.mentions[1].error).toMatchObject({ kind: 'symbol_not_found', suggestion: expect.stringContaining('@refs:Server.start') });
    expect(result.mentions[2].error).toMatchObject({ kind: 'file_not_found' });
    expect(result.augmentedPrompt).toContain('[@refs:Sever was not loaded: No definition of "Sever" in this repository — Did you mean @refs:Server');
  });

  it('shrinks within the budget like a search result, and says so', async () => {
    const prompt = 'See @refs:Server.start';
    const result = await expand(prompt, prompt.length + 200);
    expect(result.coverage.bytes).toBeLessThanOrEqual(prompt.length + 200);
    expect(result.coverage.cut).toEqual([expect.stringContaining('@refs:Server.start')]);
  });

  it('builds the graph once per prompt, or takes the process\'s kept one', async () => {
    let asked = 0;
    const { createNavigationIndex } = await import('@quarry/code-graph');
    const result = await expandMentions(
      { prompt: '@refs:Server.start @refs:start' },
      {
        root,
        codeIndex: cache,
        navigationIndex: (tree) => {
          asked++;
          return createNavigationIndex(tree.files, async () => undefined);
        },
      },
    );
    expect(result.mentions.map((entry) => entry.status)).toEqual(['loaded', 'loaded']);
    expect(asked).toBe(1);
    // The lines come from the mention's own (redacting) reader, not the index's.
    expect(result.augmentedPrompt).toContain('s.start(80);');
  });
});
