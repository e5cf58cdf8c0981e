import type { NavigationIndex } from '../navigation-index';
import { imports, reverseImports } from './file-queries';
import { decide, findUses } from './reference-search';

/** A node of the graph as retrieval asks about it: a definition (a line inside it), or a whole file. */
export interface NeighbourNode {
  path: string;
  line?: number;
}

export interface Neighbour {
  path: string;
  startLine?: number;
  endLine?: number;
  symbol?: string;
  /** `uses`: the node calls, reads or imports it; `usedBy`: it calls, reads or imports the node. */
  relation: 'uses' | 'usedBy';
  /** Resolved use sites behind the edge (an ambiguous one counts half). */
  weight: number;
}

/** How far below a chunk's first line its definition may start (decorators, a comment block above it). */
const LEAD_LINES = 12;
const DEFAULT_LIMIT = 50;

/**
 * The neighbours of a definition or a file in the resolved graph — what retrieval's propagation
 * signal spreads its evidence along (`@quarry/context`'s `ReferenceGraph`, which this satisfies):
 * the definitions a definition uses and those using it, each use resolved through the file's
 * imports and scopes rather than matched by name; a file's imports and importers.
 */
export function graphNeighbours(index: NavigationIndex): { neighbours(node: NeighbourNode, options?: { relations?: readonly ('uses' | 'usedBy')[]; limit?: number }): Neighbour[] } {
  const memo = new Map<string, Neighbour[]>();
  return {
    neighbours(node, options = {}) {
      const relations = new Set(options.relations ?? ['uses', 'usedBy']);
      const key = `${node.path}\0${node.line ?? ''}\0${[...relations].join(',')}`;
      let found = memo.get(key);
      if (found === undefined) {
        found = node.line === undefined ? fileNeighbours(index, node.path, relations) : definitionNeighbours(index, node.path, node.line, relations);
        found.sort((a, b) => b.weight - a.weight);
        memo.set(key, found);
      }
      return found.slice(0, options.limit ?? DEFAULT_LIMIT);
    },
  };
}

function definitionNeighbours(index: NavigationIndex, path: string, line: number, relations: ReadonlySet<string>): Neighbour[] {
  const { graph, names } = index;
  const file = graph.file(path);
  if (file === undefined) return [];
  const id = definitionNear(index, path, line);
  if (id === undefined) return [];
  const byHolder = new Map<string, Neighbour>();
  const add = (neighbour: Omit<Neighbour, 'weight'>, weight: number) => {
    const key = `${neighbour.relation}\0${neighbour.path}\0${neighbour.startLine ?? ''}`;
    const entry = byHolder.get(key);
    if (entry) entry.weight += weight;
    else byHolder.set(key, { ...neighbour, weight });
  };
  if (relations.has('usedBy')) {
    for (const use of findUses(index, id)) {
      if (use.declaration) continue;
      const holder = graph.enclosing(use.file, use.occurrence.line);
      if (holder === id) continue;
      const weight = use.ambiguous ? 0.5 : 1;
      if (holder === undefined) add({ path: use.file.path, startLine: use.occurrence.line, endLine: use.occurrence.line, relation: 'usedBy' }, weight);
      else {
        const { definition } = graph.definition(holder);
        add({ path: use.file.path, startLine: definition.startLine, endLine: definition.endLine, symbol: definition.name, relation: 'usedBy' }, weight);
      }
    }
  }
  if (relations.has('uses')) {
    const { definition } = graph.definition(id);
    for (const [name, occurrences] of graph.allOccurrences(file)) {
      for (const occurrence of occurrences) {
        if (occurrence.line < definition.startLine || occurrence.line > definition.endLine) continue;
        if (graph.enclosing(file, occurrence.line) !== id) continue;
        const candidates = names.resolve(file, name, occurrence);
        const best = candidates.filter((candidate) => candidate.definition !== id && decide(candidates, candidate.definition) !== undefined);
        for (const candidate of best) {
          const target = graph.definition(candidate.definition);
          add({ path: target.file.path, startLine: target.definition.startLine, endLine: target.definition.endLine, symbol: target.definition.name, relation: 'uses' }, best.length > 1 ? 0.5 : 1);
        }
      }
    }
  }
  return [...byHolder.values()];
}

/** The definition a chunk starting at `line` is: the innermost holding the line, or one starting just below (its decorators or doc comment come first). */
function definitionNear(index: NavigationIndex, path: string, line: number): number | undefined {
  const file = index.graph.file(path);
  if (file === undefined) return undefined;
  const inner = file.definitions.findIndex((definition) => definition.startLine >= line && definition.startLine <= line + LEAD_LINES);
  const holding = index.graph.enclosing(file, line);
  if (inner === -1) return holding;
  const candidate = file.firstDefinition + inner;
  // A chunk of a class's own lines starts inside the class: the class holds it, not its first method.
  if (holding !== undefined && index.graph.definition(holding).definition.endLine >= file.definitions[inner].endLine && file.definitions[inner].startLine > line) return holding;
  return candidate;
}

function fileNeighbours(index: NavigationIndex, path: string, relations: ReadonlySet<string>): Neighbour[] {
  const file = index.graph.file(path);
  if (file === undefined) return [];
  const weights = new Map<string, Neighbour>();
  const add = (other: string, relation: 'uses' | 'usedBy') => {
    if (other === path) return;
    const key = `${relation}\0${other}`;
    const entry = weights.get(key);
    if (entry) entry.weight++;
    else weights.set(key, { path: other, relation, weight: 1 });
  };
  if (relations.has('uses')) for (const edge of imports(index, path).files) add(edge.path, 'uses');
  if (relations.has('usedBy')) for (const edge of reverseImports(index).get(file.id) ?? []) add(index.graph.files[edge.file].path, 'usedBy');
  return [...weights.values()];
}
