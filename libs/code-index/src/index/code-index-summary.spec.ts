import { BlobIndexer } from './blob-index';
import { summarizeCodeIndex } from './code-index-summary';

describe('summarizeCodeIndex', () => {
  it('totals tokens per language and top-level directory, and definitions per kind', async () => {
    const indexer = await BlobIndexer.create({ maxBytes: 200 });
    const inputs = [
      { path: 'src/a.ts', language: 'TypeScript', content: 'export function a() {}\nexport class B {}\n' },
      { path: 'src/b.py', language: 'Python', content: 'def b():\n    pass\n' },
      { path: 'README.md', language: 'Markdown', content: '# Title\n' },
      { path: 'lib/big.ts', language: 'TypeScript', content: 'export const x = 1;\n'.repeat(20) },
      { path: 'img/logo.png', content: Uint8Array.from([0x89, 0, 1]) },
    ];
    const rows = inputs.map((input) => ({ path: input.path, ...indexer.index(input) }));
    const summary = summarizeCodeIndex(rows);
    const tokensOf = (path: string) => rows.find((row) => row.path === path)!.tokens;
    expect(summary.tokens.total).toBe(tokensOf('src/a.ts') + tokensOf('src/b.py') + tokensOf('README.md') + tokensOf('lib/big.ts'));
    expect(summary.tokens.byLanguage.map((row) => `${row.language} ${row.files}`)).toEqual(['TypeScript 2', 'Python 1', 'Markdown 1']);
    expect(summary.tokens.byDirectory.map((row) => row.path)).toEqual(['lib', 'src', '.']);
    expect(summary.symbols).toEqual({ definitions: 3, byKind: { function: 2, class: 1 }, files: { parsed: 2, failed: 0, skipped: 1 }, warnings: 1 });
  });

  it('refuses to add counts made in different encodings', async () => {
    const cl100k = await BlobIndexer.create({ encoding: 'cl100k_base' });
    expect(() => summarizeCodeIndex([{ path: 'a.txt', ...cl100k.index({ path: 'a.txt', content: 'x' }) }])).toThrow(/cl100k_base/);
  });
});
