import { QuarryError, closestMatch } from '@quarry/contracts';
import { SymbolTable, nthWordColumn, parseSymbolQuery } from '@quarry/code-index';
import type { GraphFile } from '../graph/code-graph';
import type { NavigationIndex } from '../navigation-index';
import { innermost } from '../resolve/class-hierarchy';
import type { Candidate } from '../resolve/name-resolver';

/** What a query names: a definition (best first) and the others it could mean. */
export interface ResolvedTarget {
  id: number;
  alternatives: number[];
  /** How the definition was found from a use (`path:line` on a use). */
  via?: Candidate;
}

const LOCATION = /^(.+?):(\d+)(?::(\d+))?$/;
const KIND_RANK: Readonly<Record<string, number>> = { class: 0, interface: 0, struct: 0, trait: 0, function: 1, method: 1, enum: 2, type: 2 };

/**
 * `Name`, `Class.method`, `Ns::fn` — or `path:line[:column]`, a definition's line or a line using
 * a name (the definition that use resolves to). Typed errors: `symbol_invalid`,
 * `symbol_not_found` with did-you-mean, `path_outside_root`, `file_not_found`, `location_invalid`.
 */
export async function resolveTarget(index: NavigationIndex, target: string): Promise<ResolvedTarget> {
  const location = LOCATION.exec(target.trim());
  if (location !== null && (location[1].includes('/') || /\.\w+$/.test(location[1]) || index.graph.file(location[1]) !== undefined)) {
    return resolveLocation(index, location[1], Number(location[2]), location[3] === undefined ? undefined : Number(location[3]));
  }
  return resolveName(index, target);
}

/** A file of the tree by a root-relative path, with the errors a bad path deserves. */
export function fileAt(index: NavigationIndex, path: string): GraphFile {
  const normalized = path.replace(/^\.\//, '').replace(/\\/g, '/');
  if (normalized.startsWith('/') || /^[A-Za-z]:/.test(normalized) || normalized.split('/').includes('..')) {
    throw new QuarryError('path_outside_root', `"${path}" is not a path inside the repository.`, { suggestion: 'Give the path relative to the repository root, e.g. src/app.ts:12.' });
  }
  const file = index.graph.file(normalized);
  if (file === undefined) {
    const basename = normalized.slice(normalized.lastIndexOf('/') + 1);
    const sameName = index.graph.files.filter((candidate) => candidate.path.endsWith(`/${basename}`) || candidate.path === basename).map((candidate) => candidate.path);
    const close = sameName.length > 0 ? sameName.slice(0, 5) : [closestMatch(normalized, index.graph.files.map((candidate) => candidate.path))].filter((value): value is string => value !== undefined);
    throw new QuarryError('file_not_found', `No file "${normalized}" in the repository.`, {
      suggestion: close.length > 0 ? `Did you mean ${close.join(', ')}?` : 'Paths are relative to the repository root.',
    });
  }
  return file;
}

async function resolveLocation(index: NavigationIndex, path: string, line: number, column: number | undefined): Promise<ResolvedTarget> {
  const file = fileAt(index, path);
  const lines = (await index.read(file.path))?.split('\n');
  const lineCount = lines?.length ?? Math.max(0, ...file.definitions.map((definition) => definition.endLine));
  if (line < 1 || line > lineCount || (column !== undefined && column < 1)) {
    throw new QuarryError('location_invalid', `${file.path} has ${lineCount} lines; ${line}${column === undefined ? '' : `:${column}`} is not in it.`, { suggestion: `Give a line from 1 to ${lineCount}.` });
  }
  const text = lines?.[line - 1];
  // A definition's own line: that definition (the one whose name is at the column, if given).
  const defined = file.definitions.map((definition, offset) => ({ definition, id: file.firstDefinition + offset })).filter(({ definition }) => definition.line === line);
  const atColumn = (name: string) => (column === undefined || text === undefined ? true : columnsOf(text, name).some((start) => column - 1 >= start && column - 1 <= start + name.length));
  const definedHere = defined.filter(({ definition }) => atColumn(definition.name));
  if (definedHere.length > 0) return { id: definedHere[0].id, alternatives: definedHere.slice(1).map(({ id }) => id) };

  // A use on that line: the definition it resolves to.
  const uses: { name: string; column: number; candidates: Candidate[] }[] = [];
  for (const [name, occurrences] of index.graph.allOccurrences(file)) {
    const onLine = occurrences.filter((occurrence) => occurrence.line === line);
    onLine.forEach((occurrence, ordinal) => {
      const start = text === undefined ? -1 : occurrence.column !== -1 ? occurrence.column : nthWordColumn(text, name, ordinal);
      uses.push({ name, column: start, candidates: index.names.resolve(file, name, occurrence) });
    });
  }
  const chosen = uses
    .filter((use) => use.candidates.length > 0 && (column === undefined || (column - 1 >= use.column && column - 1 <= use.column + use.name.length)))
    .sort((a, b) => b.candidates[0].score - a.candidates[0].score || a.column - b.column)[0];
  if (chosen === undefined) {
    const nearest = file.definitions.filter((definition) => Math.abs(definition.line - line) <= 20).map((definition) => `${file.path}:${definition.line} (${definition.name})`);
    throw new QuarryError('location_invalid', `Nothing at ${file.path}:${line}${column === undefined ? '' : `:${column}`} names a definition this repository has.`, {
      suggestion: nearest.length > 0 ? `Definitions near it: ${nearest.slice(0, 5).join(', ')}.` : 'Give the line of a definition or of a use of one, or the name itself.',
    });
  }
  const best = chosen.candidates.filter((candidate) => candidate.score === chosen.candidates[0].score);
  return { id: best[0].definition, alternatives: chosen.candidates.slice(1).map((candidate) => candidate.definition), via: best[0] };
}

function columnsOf(text: string, name: string): number[] {
  const columns: number[] = [];
  for (let n = 0; ; n++) {
    const column = nthWordColumn(text, name, n);
    if (column === -1) return columns;
    columns.push(column);
  }
}

/** A name: its definitions ranked as `@symbol:` ranks them (exact case, most used, classes and functions first). */
function resolveName(index: NavigationIndex, query: string): ResolvedTarget {
  const parsed = parseSymbolQuery(query);
  const { graph } = index;
  const matches: { id: number; exact: boolean; uses: number }[] = [];
  for (const name of namesLike(index, parsed.name)) {
    for (const id of graph.definitionsNamed(name)) {
      const { definition } = graph.definition(id);
      let exact = name === parsed.name;
      if (parsed.container !== undefined) {
        if (definition.container === undefined) continue;
        const container = innermost(definition.container);
        if (container.toLowerCase() !== parsed.container.toLowerCase()) continue;
        exact &&= container === parsed.container;
      }
      matches.push({ id, exact, uses: graph.filesReferencing(name).length });
    }
  }
  if (matches.length === 0) notFound(index, query);
  matches.sort((a, b) => {
    const left = graph.definition(a.id);
    const right = graph.definition(b.id);
    return (
      Number(b.exact) - Number(a.exact) ||
      b.uses - a.uses ||
      (KIND_RANK[left.definition.kind] ?? 3) - (KIND_RANK[right.definition.kind] ?? 3) ||
      (left.file.path < right.file.path ? -1 : left.file.path > right.file.path ? 1 : 0) ||
      left.definition.line - right.definition.line
    );
  });
  return { id: matches[0].id, alternatives: matches.slice(1).map((match) => match.id) };
}

const lowerNames = new WeakMap<object, Map<string, string[]>>();

/** The defined names equal to `name` in any case. */
function namesLike(index: NavigationIndex, name: string): string[] {
  let byLower = lowerNames.get(index.graph);
  if (byLower === undefined) {
    byLower = new Map();
    for (const defined of index.graph.definedNames()) {
      const lower = defined.toLowerCase();
      const list = byLower.get(lower);
      if (list === undefined) byLower.set(lower, [defined]);
      else list.push(defined);
    }
    lowerNames.set(index.graph, byLower);
  }
  return byLower.get(name.toLowerCase()) ?? [];
}

/** The `@symbol:` lookup's own error (did-you-mean over the tree's names), thrown. */
function notFound(index: NavigationIndex, query: string): never {
  const table = SymbolTable.from(index.graph.files.map((file) => ({ path: file.path, definitions: file.definitions, references: [] })));
  try {
    table.lookup(query);
  } catch (error) {
    // Its suggestions are written for mentions (`@symbol:Name`); here a name is given bare.
    if (error instanceof QuarryError) throw new QuarryError(error.kind, error.message, { suggestion: error.suggestion?.replaceAll('@symbol:', '') });
    throw error;
  }
  throw new QuarryError('symbol_not_found', `No definition of "${query}" in this repository.`);
}
