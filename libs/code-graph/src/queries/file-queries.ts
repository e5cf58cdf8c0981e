import type { ImportsResult, OutlineResult } from '@quarry/contracts';
import type { NavigationIndex } from '../navigation-index';
import { definitionFields } from './symbol-output';
import { fileAt } from './target';

/** The files a file imports (includes, `use`s), each with the statement's line, and the imports that name nothing in the tree. */
export function imports(index: NavigationIndex, path: string): ImportsResult {
  const file = fileAt(index, path);
  const files: ImportsResult['files'] = [];
  const external: ImportsResult['external'] = [];
  for (const entry of file.imports) {
    if (entry.module === '') continue;
    const targets = index.names.modules.resolve(file, entry).filter((id) => id !== file.id);
    if (targets.length === 0) external.push({ line: entry.line, module: entry.module });
    for (const id of targets) files.push({ path: index.graph.files[id].path, line: entry.line, module: entry.module });
  }
  return { path: file.path, direction: 'imports', files, external };
}

const importers = new WeakMap<object, Map<number, { file: number; line: number; module: string }[]>>();

/** The files that import a file. The reverse edges of the whole tree are resolved once, on the first call. */
export function importedBy(index: NavigationIndex, path: string): ImportsResult {
  const file = fileAt(index, path);
  const edges = reverseImports(index);
  const files = (edges.get(file.id) ?? []).map((edge) => ({ path: index.graph.files[edge.file].path, line: edge.line, module: edge.module }));
  return { path: file.path, direction: 'importedBy', files, external: [] };
}

export function reverseImports(index: NavigationIndex): Map<number, { file: number; line: number; module: string }[]> {
  let edges = importers.get(index.names);
  if (edges === undefined) {
    edges = new Map();
    for (const file of index.graph.files) {
      for (const entry of file.imports) {
        if (entry.module === '') continue;
        for (const id of index.names.modules.resolve(file, entry)) {
          if (id === file.id) continue;
          const list = edges.get(id) ?? [];
          if (!list.some((edge) => edge.file === file.id && edge.line === entry.line)) list.push({ file: file.id, line: entry.line, module: entry.module });
          edges.set(id, list);
        }
      }
    }
    importers.set(index.names, edges);
  }
  return edges;
}

/** A file's definitions in order, with ranges, signatures and nesting depth. */
export function outline(index: NavigationIndex, path: string): OutlineResult {
  const file = fileAt(index, path);
  const depths: number[] = [];
  const definitions = file.definitions.map((definition, offset) => {
    const scope = index.names.scopeOf(file.firstDefinition + offset);
    const depth = scope === -1 ? 0 : depths[scope - file.firstDefinition] + 1;
    depths.push(depth);
    return { ...definitionFields(definition), depth };
  });
  return { path: file.path, ...(file.language === undefined ? {} : { language: file.language }), definitions };
}
