import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SearchRequest } from '@quarry/search';

/** A small deterministic generator, so a failing query can be replayed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Code-like words, with the case and Unicode traps of folding (ß, the Kelvin sign, long s, Greek). */
export const WORDS = [
  'spin_lock', 'spin_unlock', 'mutex_lock', 'kmalloc', 'kfree', 'return', 'static', 'struct', 'inode', 'Inode', 'INODE', 'TODO', 'todo', 'Todo', 'FIXME',
  'dev_err', 'pr_info', 'error', '_error(', 'Error', 'ERROR', 'ret', 'if', 'else', 'for', 'while', 'unsigned', 'int', 'long', 'char', 'void',
  'café', 'CAFÉ', 'straße', 'STRASSE', 'Kelvin', '\u212Aelvin', 'ſtatic', 'Ωmega', 'ωmega', 'naïve', '日本語', 'emoji🙂', 'x', 'y', 'a1', 'b2', '0x1f', '==', '->', '{', '}', '(', ')', ';', '*', '//', '#include',
];

/**
 * Writes a repository-shaped tree of `files` generated files under `root` (several directories, a
 * hidden one, CRLF and unterminated last lines, an empty file, binary files with early and late
 * NULs, ignored files, a symlink), each file starting with `salt` so a test's blobs are its own.
 */
export function writeSearchFixture(root: string, options: { seed?: number; files?: number; salt?: string } = {}): void {
  const next = random(options.seed ?? 18);
  const salt = options.salt ?? '';
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const line = () => Array.from({ length: 1 + Math.floor(next() * 10) }, () => pick(WORDS)).join(pick([' ', ' ', '', '\t', '.', ', ']));
  for (let index = 0; index < (options.files ?? 120); index++) {
    const directory = pick(['', 'src/', 'src/fs/', 'drivers/net/', 'include/linux/', 'docs/', '.hidden/']);
    mkdirSync(path.join(root, directory), { recursive: true });
    const eol = index % 7 === 0 ? '\r\n' : '\n';
    const lines = [`// ${salt} ${index}`, ...Array.from({ length: Math.floor(next() * 60) }, line)];
    writeFileSync(path.join(root, `${directory}file${index}.${pick(['c', 'h', 'ts', 'md'])}`), lines.join(eol) + (index % 5 === 0 ? '' : eol));
  }
  writeFileSync(path.join(root, 'empty.c'), '');
  writeFileSync(path.join(root, 'binary.bin'), Buffer.concat([Buffer.from(`${salt} spin_lock\0TODO\n`), Buffer.alloc(100)]));
  writeFileSync(path.join(root, 'late-nul.c'), `// ${salt}\n${'spin_lock();\n'.repeat(1000)}\0 TODO\n`);
  writeFileSync(path.join(root, 'late-nul-clean.c'), `// ${salt}\n${'mutex_lock();\n'.repeat(1000)}\0\n`);
  writeFileSync(path.join(root, '.gitignore'), 'ignored/\n*.log\n');
  mkdirSync(path.join(root, 'ignored'), { recursive: true });
  writeFileSync(path.join(root, 'ignored/secret.c'), 'spin_lock TODO\n');
  writeFileSync(path.join(root, 'build.log'), 'spin_lock error\n');
  symlinkSync('file1.c', path.join(root, 'link.c'));
}

/** `count` queries (at least 300 by default): substrings of the corpus in every case mode, as literals and inside regexes. */
export function generatedQueries(seed = 7, scale = 1): Array<Omit<SearchRequest, 'root'>> {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const substring = () => {
    const word = pick(WORDS.filter((word) => word.length >= 3));
    const start = Math.floor(next() * Math.max(1, word.length - 3));
    return word.slice(start, start + 3 + Math.floor(next() * (word.length - start)));
  };
  const escape = (text: string) => text.replace(/[!-\/:-@\[-`{-~]/g, '\\$&');
  const out: Array<Omit<SearchRequest, 'root'>> = [];
  const cases = ['sensitive', 'insensitive', 'smart'] as const;
  for (let index = 0; index < 120 * scale; index++) {
    out.push({ mode: 'literal', pattern: index % 3 === 0 ? `${substring()} ${substring()}` : substring(), caseSensitivity: pick(cases) });
  }
  const regexShapes: Array<() => string> = [
    () => `${escape(substring())}\\w*`,
    () => `^${escape(substring())}`,
    () => `${escape(substring())}$`,
    () => `\\b${escape(substring())}\\b`,
    () => `${escape(substring())}.*${escape(substring())}`,
    () => `(?i)${escape(substring())}`,
    () => `${escape(substring())}|${escape(substring())}`,
    () => `[a-z]+_${escape(substring())}`,
    () => `${escape(substring())}\\s*\\(`,
    () => `(${escape(substring())})+x?`,
    () => `\\w+_error\\(`,
    () => `\\w+`,
    () => `^$`,
    () => `caf[eé]`,
    () => `\\p{Greek}mega`,
    () => `stra(ß|ss)e`,
  ];
  for (let index = 0; index < 160 * scale; index++) out.push({ mode: 'regex', pattern: pick(regexShapes)(), caseSensitivity: pick(cases) });
  for (const pattern of ['café', 'CAFÉ', 'kelvin', 'KELVIN', 'static', 'STATIC', 'straße', 'ωmega', '日本語', '🙂', 'zzz-not-there', 'lock', 'TODO'])
    for (const caseSensitivity of cases) out.push({ mode: 'literal', pattern, caseSensitivity });
  return out;
}
