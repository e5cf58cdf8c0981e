import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { languageOf } from '@quarry/workspace';
import { SymbolExtractor } from '../src/symbols/symbol-extractor';
import type { Definition } from '../src/symbols/symbol-types';

/**
 * Recall of our definitions against universal-ctags': of the functions and classes ctags finds,
 * how many do we find with the same name on the same line. Shared by `npm run eval:symbols` (large
 * samples) and the unit test that guards it in CI (small vendored fixtures).
 */

export interface CtagsTag {
  name: string;
  path: string;
  line: number;
  kind: string;
}

/**
 * ctags kinds that are function or class definitions, per ctags parser (its kind names differ:
 * Python methods are `member` where C and Go fields are, Go functions are `func`, Rust traits
 * `interface`). Prototypes, interface method specs, fields, variables and macros are not counted.
 */
export const COUNTED_CTAGS_KINDS: Readonly<Record<string, readonly string[]>> = {
  C: ['function', 'struct'],
  'C++': ['function', 'class', 'struct'],
  'C#': ['method', 'class', 'struct', 'interface'],
  Go: ['func', 'struct', 'interface'],
  Java: ['method', 'class', 'interface'],
  JavaScript: ['function', 'method', 'class', 'generator'],
  PHP: ['function', 'class', 'interface', 'trait'],
  Python: ['function', 'member', 'class'],
  Ruby: ['method', 'singletonMethod', 'class'],
  Rust: ['function', 'method', 'struct', 'interface'],
  TypeScript: ['function', 'method', 'class', 'interface', 'generator'],
};

/** ctags' names for anonymous aggregates (`__anon1a2b…`), which have no name to look up. */
const ANONYMOUS = /^__anon/;

export function ctagsAvailable(): boolean {
  return spawnSync('ctags', ['--version'], { encoding: 'utf8' }).status === 0;
}

/** ctags over files under root (root-relative paths). `.h` is read as C, as Quarry reads it. */
export function runCtags(root: string, files: readonly string[]): CtagsTag[] {
  const result = spawnSync('ctags', ['--output-format=json', '--fields=+nl', '--langmap=C:+.h', '-f', '-', '-L', '-'], {
    cwd: root,
    input: files.join('\n'),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (result.status !== 0) throw new Error(`ctags failed: ${result.stderr}`);
  const tags: CtagsTag[] = [];
  for (const line of result.stdout.split('\n')) {
    if (line === '') continue;
    const tag = JSON.parse(line) as { _type: string; name: string; path: string; line: number; kind: string; language: string };
    if (tag._type === 'tag' && COUNTED_CTAGS_KINDS[tag.language]?.includes(tag.kind) && !ANONYMOUS.test(tag.name)) {
      tags.push({ name: tag.name, path: tag.path, line: tag.line, kind: tag.kind });
    }
  }
  return tags;
}

export interface LanguageRecall {
  language: string;
  files: number;
  bytes: number;
  expected: number;
  found: number;
  misses: (CtagsTag & { source: string })[];
}

export interface RecallReport {
  languages: LanguageRecall[];
  expected: number;
  found: number;
  /** Files our extractor could not parse (warnings), by path. */
  warnings: string[];
  extractSeconds: number;
}

/** Extracts our definitions for the files and scores them against ctags' tags. */
export function measureRecall(extractor: SymbolExtractor, root: string, files: readonly string[], tags: readonly CtagsTag[]): RecallReport {
  const ours = new Map<string, Definition[]>();
  const texts = new Map<string, string>();
  const languages = new Map<string, LanguageRecall>();
  const warnings: string[] = [];
  let extractSeconds = 0;
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const language = languageOf(file);
    const started = performance.now();
    const result = extractor.extract(file, language, text);
    extractSeconds += (performance.now() - started) / 1000;
    if (result.warnings.length > 0) warnings.push(...result.warnings.map((w) => w.message));
    ours.set(file, result.definitions);
    texts.set(file, text);
    const row = languageRow(languages, language);
    row.files++;
    row.bytes += Buffer.byteLength(text);
  }
  const byPlace = new Map<string, Set<string>>();
  for (const [file, definitions] of ours) byPlace.set(file, new Set(definitions.map((d) => `${d.name}@${d.line}`)));
  let expected = 0;
  let found = 0;
  for (const tag of tags) {
    const row = languageRow(languages, languageOf(tag.path));
    row.expected++;
    expected++;
    if (byPlace.get(tag.path)?.has(`${tag.name}@${tag.line}`)) {
      row.found++;
      found++;
    } else {
      const source = (texts.get(tag.path) ?? '').split('\n')[tag.line - 1] ?? '';
      row.misses.push({ ...tag, source: source.trim().slice(0, 120) });
    }
  }
  return { languages: [...languages.values()].sort((a, b) => b.expected - a.expected), expected, found, warnings, extractSeconds };
}

function languageRow(rows: Map<string, LanguageRecall>, language: string): LanguageRecall {
  let row = rows.get(language);
  if (row === undefined) {
    row = { language, files: 0, bytes: 0, expected: 0, found: 0, misses: [] };
    rows.set(language, row);
  }
  return row;
}

export const recallOf = (report: { expected: number; found: number }) => (report.expected === 0 ? 1 : report.found / report.expected);
