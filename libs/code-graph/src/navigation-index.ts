import { CodeGraph, type GraphFileInput } from './graph/code-graph';
import { ModuleResolver } from './resolve/module-resolver';
import { EMPTY_MODULE_CONFIG, moduleConfigFiles, readModuleConfig, type ModuleConfig } from './resolve/module-config';
import { NameResolver } from './resolve/name-resolver';

/** Reads a file of the tree as text (undefined: gone). Queries read only the files whose lines they show. */
export type SourceReader = (path: string) => Promise<string | undefined>;

/**
 * What every navigation query takes: the graph of one tree, its resolvers (memoised across
 * queries: a tree's second query is cheaper than its first) and a reader for the lines shown.
 */
export interface NavigationIndex {
  graph: CodeGraph;
  names: NameResolver;
  read: SourceReader;
}

export interface NavigationIndexOptions {
  /** Build-file facts (TypeScript `paths`, Go module paths); default: read from the tree's own tsconfig/go.mod with `read`. */
  config?: ModuleConfig;
}

/** The navigation index of a tree from its files' per-blob indexes. */
export async function createNavigationIndex(files: Iterable<GraphFileInput>, read: SourceReader, options: NavigationIndexOptions = {}): Promise<NavigationIndex> {
  const graph = CodeGraph.build(files);
  const config = options.config ?? (await readModuleConfig(moduleConfigFiles(graph.files.map((file) => file.path)), read));
  return navigationIndexOf(graph, read, config);
}

/** The index of a graph already built. */
export function navigationIndexOf(graph: CodeGraph, read: SourceReader, config: ModuleConfig = EMPTY_MODULE_CONFIG): NavigationIndex {
  return { graph, names: new NameResolver(graph, new ModuleResolver(graph, config)), read };
}
