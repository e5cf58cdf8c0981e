import type { ContextCorpus } from '../corpus/context-corpus';

export interface ResolvedPath {
  file: number;
  /** 1 when the written path names the file beyond its base name; less for a bare or ambiguous name. */
  strength: number;
}

/**
 * The files of the tree a path written in a task names: `/usr/lib/python3.8/site-packages/sympy/core/expr.py`,
 * `C:\…\seaborn\axisgrid.py`, `./sympy/geometry/util.py`, `latex.py`. The tree's files whose
 * trailing segments match the most trailing segments of the written path win; a match on the
 * base name alone is weak when the written path had directories (it is another package's file).
 */
export function resolveWrittenPath(corpus: ContextCorpus, written: string): ResolvedPath[] {
  const normalized = written
    .replace(/\\/g, '/')
    .replace(/^file:\/+/, '/')
    .replace(/^[[(<"']+|[\])>"':,]+$/g, '')
    .toLowerCase();
  const segments = normalized.split('/').filter((segment) => segment !== '' && segment !== '.' && segment !== '~');
  if (segments.length === 0) return [];
  const candidates = corpus.filesByBaseName.get(segments[segments.length - 1]);
  if (candidates === undefined) return [];
  let best = 0;
  let winners: number[] = [];
  for (const file of candidates) {
    const fileSegments = corpus.paths[file].toLowerCase().split('/');
    let matched = 0;
    while (matched < segments.length && matched < fileSegments.length && segments[segments.length - 1 - matched] === fileSegments[fileSegments.length - 1 - matched]) matched++;
    if (matched > best) {
      best = matched;
      winners = [file];
    } else if (matched === best) {
      winners.push(file);
    }
  }
  const strength = best >= 2 ? 1 : segments.length === 1 ? 0.6 : 0.15;
  return winners.map((file) => ({ file, strength: strength / Math.sqrt(winners.length) }));
}

/**
 * The file a dotted name starts with, if its leading parts are a module path of the tree
 * (`sympy.printing.latex` → `sympy/printing/latex.py`; `requests.packages.urllib3.exceptions.DecodeError`
 * → the `exceptions` module, `DecodeError` left as a name in it). The longest module prefix wins.
 */
export function resolveDottedModule(corpus: ContextCorpus, parts: readonly string[]): { files: ResolvedPath[]; rest: string[] } | undefined {
  for (let length = parts.length; length >= 1; length--) {
    const module = parts.slice(0, length).join('/').toLowerCase();
    const files = corpus.filesByModule.get(module);
    if (files === undefined) continue;
    // One part alone (`sympy`, `np`) says little: the package root or an unlucky file name.
    const strength = length >= 2 ? 1 : 0.25;
    return { files: files.map((file) => ({ file, strength: strength / Math.sqrt(files.length) })), rest: parts.slice(length) };
  }
  return undefined;
}
