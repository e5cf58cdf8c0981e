import { makeTempTree, removeTempTree } from '../../workspace/src/testing/temp-tree';
import { answerSearch, closeSharedSearchPool } from '.';

afterAll(() => closeSharedSearchPool());

describe('answerSearch (POST /v1/search, quarry search)', () => {
  let root: string;
  beforeAll(async () => {
    root = await makeTempTree({ 'a.c': 'int foo_error(void);\n// TODO x\n', 'b/c.h': 'todo\nTODO TODO\n', 'img.bin': Buffer.from([0, 1, 2]) });
  });
  afterAll(() => removeTempTree(root));

  it('answers {total, files, indexed:false, hits} with rg -c counts and rg -F / -i semantics', async () => {
    const answer = await answerSearch(root, { root, pattern: 'TODO' });
    expect(answer).toMatchObject({ total: 2, files: 2, indexed: false, filesSearched: 2, skipped: { binary: 1, tooLarge: 0, unreadable: 0 }, timedOut: false, truncated: false, ignoreCase: false });
    expect(answer.hits).toEqual([
      { path: 'a.c', line: 2, column: 4, text: '// TODO x' },
      { path: 'b/c.h', line: 2, column: 1, text: 'TODO TODO' },
    ]);
    expect((await answerSearch(root, { root, pattern: 'todo', case: 'insensitive', counts: true, maxResults: 0 })).counts).toEqual([
      { path: 'a.c', count: 1 },
      { path: 'b/c.h', count: 2 },
    ]);
    expect((await answerSearch(root, { root, pattern: String.raw`\w+_error\(`, regex: true, path: '*.c' })).total).toBe(1);
  });

  it.each([
    ['an empty pattern', { pattern: '' }, 'pattern_invalid', /empty/],
    ['a pattern with a line break', { pattern: 'a\nb' }, 'pattern_invalid', /line break/],
    ['a lookahead', { pattern: 'foo(?=bar)', regex: true }, 'regex_invalid', /lookahead/],
    ['a backreference', { pattern: String.raw`(\w+) \1`, regex: true }, 'regex_invalid', /backreferences/],
    ['a directory outside the root', { pattern: 'x', directory: '../..' }, 'path_outside_root', /outside/],
    ['a missing directory', { pattern: 'x', directory: 'nope' }, 'file_not_found', /does not exist/],
    ['an unknown case mode', { pattern: 'x', case: 'upper' }, 'input_invalid', /case/],
    ['a negative result count', { pattern: 'x', maxResults: -1 }, 'input_invalid', /maxResults/],
  ])('refuses %s with a typed error and a suggestion', async (_name, input, kind, message) => {
    const error = await answerSearch(root, { root, ...(input as { pattern: string }) }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind, message: expect.stringMatching(message), suggestion: expect.any(String) });
  });
});
