/**
 * What retrieval asks of a definition/reference graph: the neighbours of a definition or a file.
 * The name-matching graph (`NameReferenceGraph`) answers it from the per-blob definitions and
 * chunk names today; the navigation index (issue 31: resolved imports, per-reference positions)
 * will answer it with fewer wrong edges, behind the same interface.
 */
export interface GraphNode {
  /** Root-relative path. */
  path: string;
  /** A line inside a definition: the node is that definition. Absent: the whole file. */
  line?: number;
}

export type GraphRelation = 'uses' | 'usedBy';

export interface GraphNeighbour {
  path: string;
  /** The neighbouring definition's range and name; absent when the neighbour is a whole file. */
  startLine?: number;
  endLine?: number;
  symbol?: string;
  /** `uses`: the node calls, reads or imports it; `usedBy`: it calls, reads or imports the node. */
  relation: GraphRelation;
  /** How strong the edge is (uses, weighted by how specific the name is); compared within one answer. */
  weight: number;
}

export interface NeighbourOptions {
  relations?: readonly GraphRelation[];
  /** The strongest this many (default 50). */
  limit?: number;
}

export interface ReferenceGraph {
  neighbours(node: GraphNode, options?: NeighbourOptions): GraphNeighbour[];
}
