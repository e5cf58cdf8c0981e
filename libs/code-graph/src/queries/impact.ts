import type { Definition } from '@quarry/code-index';
import type { ImpactResult } from '@quarry/contracts';
import type { ChangeSet, FileChange } from '../change/change-set';
import { changedLines } from '../change/unified-diff';
import type { GraphFile } from '../graph/code-graph';
import type { NavigationIndex } from '../navigation-index';
import { validateDepth } from './call-graph';
import { reverseImports } from './file-queries';
import { findUses } from './reference-search';
import { symbolOf } from './symbol-output';
import { isTestFile, testNamedAfter } from './test-files';

export interface ImpactOptions {
  /** Hops of dependents reported (default 2, at most 10). Tests are looked for at least 3 hops away. */
  depth?: number;
  /** Definitions of a file's old text (the tree's indexer): finds the definitions a change removed. */
  definitionsOf?: (path: string, text: string) => readonly Definition[];
  /** The most dependents and files listed (default 200 each). */
  limit?: number;
}

/** Definitions whose uses are followed per hop, at most: a change to a utility used everywhere stays bounded. */
const EXPANSIONS_PER_HOP = 400;
const TEST_REACH = 3;

interface Reached {
  distance: number;
  fanIn: number;
  viaUses: boolean;
}

/**
 * What a change touches and what depends on it, in the tree after the change (`index`): the
 * changed definitions (the innermost ones holding each changed line; removed ones from the old
 * text), then breadth first the definitions and files that use them (and files that import the
 * changed files), ranked by distance and then by fan-in — how many uses lead into the change's
 * side — and the tests to run: test files that reach the changed code through uses or imports
 * (with their test functions), the changed tests themselves, then tests named after the changed
 * files where nothing reaches them.
 */
export async function impact(index: NavigationIndex, change: ChangeSet, options: ImpactOptions = {}): Promise<ImpactResult> {
  const depth = validateDepth(options.depth ?? 2);
  const limit = options.limit ?? 200;
  const reach = Math.max(depth, TEST_REACH);
  const { graph } = index;

  const changed: ImpactResult['changed'] = [];
  const changedIds = new Set<number>();
  const removedNames: { name: string; file: FileChange }[] = [];
  for (const file of change.files) {
    const lines = changedLines(file.hunks);
    const after = file.newText === undefined ? undefined : graph.file(file.path);
    const oldDefinitions = file.oldText === undefined || options.definitionsOf === undefined ? [] : options.definitionsOf(file.oldPath ?? file.path, file.oldText);
    const same = (a: Definition, b: Definition) => a.name === b.name && a.kind === b.kind && a.container === b.container;
    if (after !== undefined) {
      for (const id of innermostHolding(index, after, [...lines.added, ...lines.removedAt])) {
        if (changedIds.has(id)) continue;
        changedIds.add(id);
        const definition = graph.definition(id).definition;
        const existed = file.status === 'added' ? false : options.definitionsOf === undefined || oldDefinitions.some((old) => same(old, definition));
        changed.push({ ...symbolOf(graph, id), change: existed ? 'modified' : 'added' });
      }
    }
    const kept = after?.definitions ?? [];
    for (const old of innermostOld(oldDefinitions, lines.removed)) {
      if (kept.some((definition) => same(old, definition))) continue;
      removedNames.push({ name: old.name, file });
      changed.push({ path: file.oldPath ?? file.path, name: old.name, kind: old.kind, line: old.line, startLine: old.startLine, endLine: old.endLine, signature: old.signature, ...(old.container === undefined ? {} : { container: old.container }), change: 'removed' });
    }
  }

  // Breadth first over uses: definitions (by id) and files (by id) that depend on the change.
  const definitions = new Map<number, Reached>();
  const files = new Map<number, Reached>();
  const touch = (map: Map<number, Reached>, key: number, distance: number, viaUses: boolean) => {
    const reached = map.get(key);
    if (reached === undefined) map.set(key, { distance, fanIn: 1, viaUses });
    else {
      if (distance === reached.distance) reached.fanIn++;
      reached.viaUses ||= viaUses;
    }
  };
  let truncated = false;
  let frontier = [...changedIds];
  const seen = new Set(changedIds);
  for (let distance = 1; distance <= reach && frontier.length > 0; distance++) {
    const next: number[] = [];
    if (frontier.length > EXPANSIONS_PER_HOP) truncated = true;
    for (const id of frontier.slice(0, EXPANSIONS_PER_HOP)) {
      for (const use of findUses(index, id)) {
        if (use.declaration) continue;
        touch(files, use.file.id, distance, true);
        const holder = graph.enclosing(use.file, use.occurrence.line);
        if (holder === undefined || changedIds.has(holder)) continue;
        touch(definitions, holder, distance, true);
        if (!seen.has(holder)) {
          seen.add(holder);
          next.push(holder);
        }
      }
    }
    if (distance === 1) {
      // Uses of what the change removed: files that imported the changed file and still name it.
      for (const { name, file } of removedNames) {
        const home = graph.file(file.path);
        const importers = home === undefined ? [] : (reverseImports(index).get(home.id) ?? []).map((edge) => edge.file);
        for (const importer of importers) {
          const importing = graph.files[importer];
          for (const occurrence of graph.occurrences(importing, name)) {
            touch(files, importer, 1, true);
            const holder = graph.enclosing(importing, occurrence.line);
            if (holder !== undefined) touch(definitions, holder, 1, true);
          }
        }
      }
    }
    frontier = next;
  }
  // Files that import the changed files, then their importers.
  const importers = reverseImports(index);
  let fileFrontier = change.files.map((file) => graph.file(file.path)?.id).filter((id): id is number => id !== undefined);
  const fileSeen = new Set(fileFrontier);
  for (let distance = 1; distance <= reach && fileFrontier.length > 0; distance++) {
    const next: number[] = [];
    for (const id of fileFrontier) {
      for (const edge of importers.get(id) ?? []) {
        touch(files, edge.file, distance, false);
        if (!fileSeen.has(edge.file)) {
          fileSeen.add(edge.file);
          next.push(edge.file);
        }
      }
    }
    fileFrontier = next;
  }
  const changedFileIds = new Set(change.files.map((file) => graph.file(file.path)?.id));

  const rank = (a: [number, Reached], b: [number, Reached], path: (key: number) => string) => a[1].distance - b[1].distance || b[1].fanIn - a[1].fanIn || (path(a[0]) < path(b[0]) ? -1 : 1);
  const dependentRows = [...definitions].filter(([, reached]) => reached.distance <= depth).sort((a, b) => rank(a, b, (id) => graph.definition(id).file.path));
  const fileRows = [...files].filter(([id, reached]) => reached.distance <= depth && !changedFileIds.has(id)).sort((a, b) => rank(a, b, (id) => graph.files[id].path));
  if (dependentRows.length > limit || fileRows.length > limit) truncated = true;

  return {
    changedFiles: change.files.map((file) => ({ path: file.path, status: file.status, ...(file.oldPath !== undefined && file.oldPath !== file.path ? { oldPath: file.oldPath } : {}) })),
    changed,
    dependents: dependentRows.slice(0, limit).map(([id, reached]) => ({ ...symbolOf(graph, id), distance: reached.distance, fanIn: reached.fanIn })),
    files: fileRows.slice(0, limit).map(([id, reached]) => ({ path: graph.files[id].path, distance: reached.distance, fanIn: reached.fanIn })),
    tests: relatedTests(index, change, definitions, files),
    depth,
    truncated,
  };
}

/** Test files reached (with their test functions), the change's own tests, then tests named after changed files nothing reached. */
function relatedTests(index: NavigationIndex, change: ChangeSet, definitions: Map<number, Reached>, files: Map<number, Reached>): ImpactResult['tests'] {
  const { graph } = index;
  const tests = new Map<string, ImpactResult['tests'][number]>();
  for (const file of change.files) {
    if (file.newText !== undefined && isTestFile(file.path)) tests.set(file.path, { path: file.path, reason: 'changed', distance: 0, functions: [] });
  }
  for (const [id, reached] of files) {
    const file = graph.files[id];
    if (!isTestFile(file.path) || tests.has(file.path)) continue;
    tests.set(file.path, { path: file.path, reason: reached.viaUses ? 'calls' : 'imports', distance: reached.distance, functions: [] });
  }
  for (const [id, reached] of definitions) {
    const { file, definition } = graph.definition(id);
    const test = tests.get(file.path);
    if (test === undefined || test.reason === 'changed') continue;
    if (test.functions.length < 50) test.functions.push({ name: definition.container === undefined ? definition.name : `${definition.container}.${definition.name}`, line: definition.line });
    test.distance = Math.min(test.distance, reached.distance);
  }
  const reachedSources = new Set([...tests.values()].filter((test) => test.reason !== 'name').map((test) => test.path));
  for (const file of change.files) {
    if (isTestFile(file.path)) continue;
    const named = graph.files.filter((candidate) => isTestFile(candidate.path) && testNamedAfter(candidate.path, file.path));
    for (const candidate of named) if (!reachedSources.has(candidate.path) && !tests.has(candidate.path)) tests.set(candidate.path, { path: candidate.path, reason: 'name', distance: TEST_REACH + 1, functions: [] });
  }
  const order = { changed: 0, calls: 1, imports: 2, name: 3 } as const;
  return [...tests.values()].sort((a, b) => a.distance - b.distance || order[a.reason] - order[b.reason] || b.functions.length - a.functions.length || (a.path < b.path ? -1 : 1));
}

/** The innermost definitions of `file` holding each of `lines`. */
function innermostHolding(index: NavigationIndex, file: GraphFile, lines: readonly number[]): number[] {
  const found: number[] = [];
  for (const line of new Set(lines)) {
    const holder = index.graph.enclosing(file, line);
    if (holder !== undefined && !found.includes(holder)) found.push(holder);
  }
  return found;
}

function innermostOld(definitions: readonly Definition[], lines: readonly number[]): Definition[] {
  const found = new Set<Definition>();
  for (const line of lines) {
    let best: Definition | undefined;
    for (const definition of definitions) {
      if (line < definition.startLine || line > definition.endLine) continue;
      if (best === undefined || definition.endLine - definition.startLine <= best.endLine - best.startLine) best = definition;
    }
    if (best !== undefined) found.add(best);
  }
  return [...found];
}

