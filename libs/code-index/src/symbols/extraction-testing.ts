import fs from 'node:fs';
import path from 'node:path';
import { packOccurrences } from './occurrences';
import type { ExtractedSymbols } from './symbol-extractor';

/**
 * For the specs that compare two ways of extracting (fast-path.spec.ts, flat-tree.spec.ts): the
 * files to compare on, and an extraction in a form `toEqual` can compare.
 */

/** Up to `limit` files under a directory (sorted, depth first; node_modules and dist skipped) that `accept` takes. */
export function filesUnder(directory: string, limit: number, accept: (name: string, bytes: number) => boolean): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (found.length >= limit) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') visit(full);
      } else if (entry.isFile() && accept(entry.name, fs.statSync(full).size)) found.push(full);
    }
  };
  if (fs.existsSync(directory)) visit(directory);
  return found;
}

/** Everything an extraction gives, with occurrences packed as the blob index stores them. */
export function comparableExtraction(symbols: ExtractedSymbols, text: string) {
  const references = [...symbols.references].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    status: symbols.status,
    definitions: symbols.definitions,
    references,
    occurrences: packOccurrences(symbols.occurrences, references.map(([name]) => name), text, symbols.lineStarts),
    imports: symbols.imports,
    package: symbols.package,
    warnings: symbols.warnings,
  };
}
