import { NAVIGATION_MAX_DEPTH, QuarryError, type CallGraphEntry, type CallGraphResult } from '@quarry/contracts';
import type { NavigationIndex } from '../navigation-index';
import { decide, findUses } from './reference-search';
import { symbolOf } from './symbol-output';
import { resolveTarget } from './target';

export interface CallGraphOptions {
  /** Hops (default 1, at most 10). */
  depth?: number;
  /** The most entries (default 200). */
  limit?: number;
}

const DEFAULT_ENTRIES = 200;
const MAX_ENTRIES = 5_000;
const CALLABLE: ReadonlySet<string> = new Set(['function', 'method', 'macro', 'class', 'struct']);

/** The definitions that use the one a query names, then their users, up to `depth` hops: a bounded graph, breadth first. */
export async function callers(index: NavigationIndex, target: string, options: CallGraphOptions = {}): Promise<CallGraphResult> {
  return walk(index, target, 'callers', options, (id) => {
    const found = new Map<number, { path: string; line: number; call: boolean }[]>();
    let ambiguous = false;
    for (const use of findUses(index, id)) {
      if (use.declaration) continue;
      const holder = index.graph.enclosing(use.file, use.occurrence.line);
      if (holder === undefined || holder === id) continue;
      ambiguous ||= use.ambiguous;
      const sites = found.get(holder) ?? [];
      sites.push({ path: use.file.path, line: use.occurrence.line, call: use.occurrence.call });
      found.set(holder, sites);
    }
    return { found, ambiguous };
  });
}

/** The definitions the one a query names calls (or uses as a value, if callable), then theirs, up to `depth` hops. */
export async function callees(index: NavigationIndex, target: string, options: CallGraphOptions = {}): Promise<CallGraphResult> {
  const { graph, names } = index;
  return walk(index, target, 'callees', options, (id) => {
    const { file, definition } = graph.definition(id);
    const found = new Map<number, { path: string; line: number; call: boolean }[]>();
    let ambiguous = false;
    for (const [name, occurrences] of graph.allOccurrences(file)) {
      for (const occurrence of occurrences) {
        if (occurrence.line < definition.startLine || occurrence.line > definition.endLine) continue;
        // Uses inside a nested definition belong to it.
        if (graph.enclosing(file, occurrence.line) !== id) continue;
        const candidates = names.resolve(file, name, occurrence);
        const best = candidates.filter((candidate) => decide(candidates, candidate.definition) !== undefined);
        for (const candidate of best) {
          const callee = graph.definition(candidate.definition).definition;
          if (candidate.definition === id || !CALLABLE.has(callee.kind)) continue;
          if (!occurrence.call && callee.kind !== 'function' && callee.kind !== 'method') continue;
          ambiguous ||= best.length > 1 || candidate.score === 0;
          const sites = found.get(candidate.definition) ?? [];
          sites.push({ path: file.path, line: occurrence.line, call: occurrence.call });
          found.set(candidate.definition, sites);
        }
      }
    }
    return { found, ambiguous };
  });
}

async function walk(
  index: NavigationIndex,
  target: string,
  direction: 'callers' | 'callees',
  options: CallGraphOptions,
  step: (id: number) => { found: Map<number, { path: string; line: number; call: boolean }[]>; ambiguous: boolean },
): Promise<CallGraphResult> {
  const depth = validateDepth(options.depth ?? 1);
  const limit = options.limit ?? DEFAULT_ENTRIES;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ENTRIES) {
    throw new QuarryError('input_invalid', `The limit must be a whole number from 1 to ${MAX_ENTRIES}; got ${limit}.`, { suggestion: `Leave it out for ${DEFAULT_ENTRIES}.` });
  }
  const resolved = await resolveTarget(index, target);
  const entries: CallGraphEntry[] = [];
  const seen = new Map<number, number>([[resolved.id, -1]]);
  let frontier: { id: number; entry?: number }[] = [{ id: resolved.id }];
  let truncated = false;
  for (let distance = 1; distance <= depth && frontier.length > 0 && !truncated; distance++) {
    const next: { id: number; entry?: number }[] = [];
    for (const node of frontier) {
      const { found, ambiguous } = step(node.id);
      // Most sites first: the heaviest edges are the ones kept when the limit cuts.
      for (const [id, sites] of [...found].sort((a, b) => b[1].length - a[1].length || a[0] - b[0])) {
        if (seen.has(id)) continue;
        if (entries.length >= limit) {
          truncated = true;
          break;
        }
        seen.set(id, entries.length);
        entries.push({ ...symbolOf(index.graph, id), distance, ...(node.entry === undefined ? {} : { from: node.entry }), sites: sites.slice(0, 20), ambiguous });
        next.push({ id, entry: entries.length - 1 });
      }
      if (truncated) break;
    }
    frontier = next;
  }
  return {
    symbol: symbolOf(index.graph, resolved.id),
    alternatives: resolved.alternatives.slice(0, 10).map((id) => symbolOf(index.graph, id)),
    direction,
    depth,
    entries,
    truncated,
  };
}

/** Hops of a bounded walk: a whole number from 1 to NAVIGATION_MAX_DEPTH. */
export function validateDepth(depth: number): number {
  if (!Number.isInteger(depth) || depth < 1 || depth > NAVIGATION_MAX_DEPTH) {
    throw new QuarryError('depth_invalid', `The depth must be a whole number from 1 to ${NAVIGATION_MAX_DEPTH}; got ${depth}.`, {
      suggestion: 'Use 1 for direct callers or callees, 2–3 to see further; deeper walks reach most of a repository.',
    });
  }
  return depth;
}
