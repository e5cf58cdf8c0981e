import { createNavigationIndex, indexAfterChange, type ChangeSet, type NavigationIndex, type SourceReader } from '@quarry/code-graph';
import type { IndexedTree } from '@quarry/code-index';

/**
 * The navigation indexes (a tree's definition/reference graph and its resolvers) of the last few
 * trees a process answered on, by tree state: the graph is built once per commit from the
 * per-blob rows, and every later query on the commit only resolves (a kernel's graph: ~100 s and
 * 1.2 GB to build, 3.5 ms a query after). The lines a query shows are read through the caller's
 * reader, since the snapshot it was built from is closed by then.
 */
export class NavigationIndexes {
  /** Most recently used last. */
  private readonly built = new Map<string, Promise<NavigationIndex>>();

  constructor(private readonly keep = 2) {}

  /** Whether the tree's index is built (or being built): a caller that can do without it need not wait for a big tree's. */
  has(tree: IndexedTree): boolean {
    return this.built.has(`${tree.root}\0${tree.state}`);
  }

  async of(tree: IndexedTree, read: SourceReader): Promise<NavigationIndex> {
    const key = `${tree.root}\0${tree.state}`;
    let building = this.built.get(key);
    if (building) {
      this.built.delete(key);
    } else {
      building = createNavigationIndex(tree.files, read);
      building.catch(() => this.built.get(key) === building && this.built.delete(key));
    }
    this.built.set(key, building);
    while (this.built.size > this.keep) this.built.delete(this.built.keys().next().value as string);
    return { ...(await building), read };
  }

  /** The index of the tree after `change` (a diff applied to it): built for the one query, not kept. */
  async after(tree: IndexedTree, read: SourceReader, change: ChangeSet, indexText: Parameters<typeof indexAfterChange>[3]): Promise<NavigationIndex> {
    return indexAfterChange(tree.files, read, change, indexText);
  }
}
