import { resolveReferences } from './deixis';

describe('resolveReferences', () => {
  const context = { cwd: 'src', activeFile: 'src/app.ts', lastFile: 'README.md', lastDir: 'docs' };

  it.each([
    ['what is in this directory', 'directory', 'cwd', 'src'],
    ['list the current folder', 'directory', 'cwd', 'src'],
    ["what's here", 'directory', 'cwd', 'src'],
    ['list that folder', 'directory', 'lastDir', 'docs'],
    ['show this file', 'file', 'activeFile', 'src/app.ts'],
    ['open the file above', 'file', 'lastFile', 'README.md'],
    ['show me the previous file', 'file', 'lastFile', 'README.md'],
  ] as const)('%s → %s from %s', (query, kind, slot, value) => {
    expect(resolveReferences(query, context)[kind]).toEqual({ phrase: expect.any(String), kind, slot, value });
  });

  it('ignores quoted text and words that only contain "here"', () => {
    expect(resolveReferences('search for "this file"', context)).toEqual({});
    expect(resolveReferences('where is fetchUser defined', context)).toEqual({});
  });

  it('reports a reference the context cannot resolve', () => {
    expect(resolveReferences('show this file', {}).file).toEqual({ phrase: 'this file', kind: 'file', slot: 'activeFile', value: undefined });
  });
});
