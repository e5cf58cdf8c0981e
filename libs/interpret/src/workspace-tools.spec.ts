import { realpath } from 'node:fs/promises';
import { makeTempTree, removeTempTree } from '../../workspace/src/testing/temp-tree';
import { interpretQuery } from './interpret';
import { workspaceTools } from './workspace-tools';
import { FileListView } from './workspace-view';

/** Filters a query asks for reach the tools: from the words, through the plan, to what the tools return. */
describe('workspace tools honour the filters of a plan', () => {
  let root: string;
  const ask = async (query: string) => {
    const host = workspaceTools({
      root,
      detectStack: async () => {
        throw new Error('not used');
      },
      fetchUrl: async () => {
        throw new Error('not used');
      },
    });
    const result = await interpretQuery({ query, root, ai: 'off', host });
    expect(result.results).toHaveLength(1);
    expect(result.results[0]).toMatchObject({ ok: true });
    return { step: result.plan.tools[0], output: result.results[0].output as Record<string, any> };
  };
  const paths = (output: Record<string, any>) => (output.entries as Array<{ path: string }>).map((entry) => entry.path);

  beforeAll(async () => {
    root = await realpath(
      await makeTempTree({
        '.env.example': 'PORT=1\n',
        '.github/workflows/ci.yml': 'on: push\n',
        'README.md': '# readme\n',
        'docs/a.md': 'TODO one\n',
        'docs/b.md': 'TODO two\n',
        'docs/c.md': 'TODO three\n',
        'src/index.ts': '// TODO four\n',
      }),
    );
  });

  afterAll(() => removeTempTree(root));

  it('leaves hidden entries out of a listing unless asked ("ls -a", "including hidden files")', async () => {
    const plain = await ask('list the files in the root');
    expect(paths(plain.output)).toEqual(['docs', 'src', 'README.md']);
    const all = await ask('ls -a');
    expect(all.step.args).toEqual({ directory: '.', hidden: true });
    expect(paths(all.output)).toEqual(['.github', 'docs', 'src', '.env.example', 'README.md']);
    expect(paths((await ask('list everything in the root including hidden files')).output)).toEqual(paths(all.output));
  });

  it('lists only the hidden entries when they are the object ("show hidden files")', async () => {
    const { step, output } = await ask('show hidden files');
    expect(step.args).toEqual({ directory: '.', hidden: true, pattern: '.*' });
    expect(paths(output)).toEqual(['.github', '.env.example']);
  });

  it('finds hidden files only when asked, or when the name starts with a dot', async () => {
    expect((await ask('find files with env in the name')).output.matches).toEqual([]);
    expect((await ask('find all hidden files')).output.matches).toEqual(['.env.example']);
    expect((await ask('is there a .env.example')).output.matches).toEqual(['.env.example']);
  });

  it('caps listings, finds and searches at the limit the query gives', async () => {
    const listed = await ask('list 2 files in docs');
    expect(listed.step.args).toEqual({ directory: 'docs', max_results: 2 });
    expect(listed.output).toMatchObject({ truncated: true, totalEntries: 3 });
    expect(paths(listed.output)).toHaveLength(2);

    const found = await ask('find at most 1 markdown files');
    expect(found.step.args).toEqual({ pattern: '*.md', max_results: 1 });
    expect(found.output).toMatchObject({ total: 4, truncated: true });
    expect(found.output.matches).toHaveLength(1);

    const grepped = await ask('grep -m 2 TODO');
    expect(grepped.step.args).toEqual({ pattern: 'TODO', max_results: 2 });
    expect(grepped.output.matches).toHaveLength(2);
    expect(grepped.output.totalMatches).toBe(4);

    const searched = await ask('show me the first 3 matches for TODO');
    expect(searched.step).toMatchObject({ name: 'search', args: { query: 'TODO', max_results: 3 } });
    expect(searched.output.matches).toHaveLength(3);
  });

  it('answers a size question with the listing entry of that one file', async () => {
    const { step, output } = await ask('how big is docs/a.md');
    expect(step.args).toEqual({ directory: 'docs', pattern: 'a.md' });
    expect(output.entries).toEqual([expect.objectContaining({ path: 'docs/a.md', type: 'file', size: 9 })]);
  });
});

describe('find_relevant_code', () => {
  const unused = async () => {
    throw new Error('not used');
  };

  it('passes the question and the limit to the retrieval the caller provides (10 listed by default)', async () => {
    const requests: unknown[] = [];
    const host = workspaceTools({ root: '/nowhere', detectStack: unused, fetchUrl: unused, findRelevantCode: async (request) => (requests.push(request), { files: [] }) });
    const result = await interpretQuery({ query: 'which code handles login retries?', root: '/nowhere', ai: 'off', host, view: new FileListView([]) });
    expect(result.results).toEqual([{ tool: 'find_relevant_code', ok: true, output: { files: [] } }]);
    expect(requests).toEqual([{ task: 'which code handles login retries?', limit: 10 }]);
    await host.find_relevant_code({ task: 'where are refunds computed?', max_results: 3 }, {});
    expect(requests[1]).toEqual({ task: 'where are refunds computed?', limit: 3 });
  });

  it('fails as unavailable, with a way out, where no retrieval is provided', async () => {
    const host = workspaceTools({ root: '/nowhere', detectStack: unused, fetchUrl: unused });
    await expect(host.find_relevant_code({ task: 'where is rate limiting handled?' }, {})).rejects.toMatchObject({
      kind: 'unavailable',
      suggestion: expect.stringContaining('search for a name the code uses'),
    });
  });
});
