import fs from 'node:fs';
import path from 'node:path';
import { SymbolExtractor } from '../src/symbols/symbol-extractor';
import { ctagsAvailable, measureRecall, recallOf, runCtags } from './ctags-recall';

/**
 * The CI guard of `npm run eval:symbols`: the same measure on the vendored fixtures (every listed
 * language, plus kernel-style C). ctags comes from Debian's universal-ctags (.ci/run installs it).
 */
const FIXTURES = path.join(__dirname, '..', 'src', 'symbols', 'fixtures');

describe('recall against ctags on the fixtures', () => {
  it('finds every function and class ctags finds, on the same line', async () => {
    expect(ctagsAvailable()).toBe(true); // apt-get install universal-ctags
    const files = fs.readdirSync(FIXTURES).sort();
    const tags = runCtags(FIXTURES, files);
    const report = measureRecall(await SymbolExtractor.create(), FIXTURES, files, tags);
    // ctags' TypeScript parser invents one tag here (`createStore` as a method of `Base`, same
    // line), which still matches by name and line; everything it finds must be found.
    const misses = report.languages.flatMap((row) => row.misses.map((miss) => `${miss.path}:${miss.line} ${miss.name}`));
    expect(misses).toEqual([]);
    expect(report.expected).toBeGreaterThan(60);
    expect(recallOf(report)).toBe(1);
    expect(new Set(report.languages.filter((row) => row.expected > 0).map((row) => row.language)).size).toBe(11);
  });
});
