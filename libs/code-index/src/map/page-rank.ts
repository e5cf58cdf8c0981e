/**
 * PageRank by power iteration over a weighted directed graph, with a personalisation vector
 * (the random surfer restarts there, and dangling nodes send their rank there too, as networkx
 * does with `dangling=personalization`). Nodes are 0..n-1; edges are summed per pair by the caller.
 */
export interface WeightedEdge {
  from: number;
  to: number;
  weight: number;
}

export interface PageRankOptions {
  /** Probability of following an edge rather than restarting. */
  damping?: number;
  /** Restart distribution (any non-negative weights, normalised here); uniform when absent or all zero. */
  personalization?: readonly number[];
  /** Stop when the L1 change of an iteration falls below tolerance × n. */
  tolerance?: number;
  maxIterations?: number;
}

/** Edges as columns: edge i goes from `from[i]` to `to[i]` with `weight[i]` (a graph of millions of edges without an object each). */
export interface EdgeColumns {
  from: Int32Array;
  to: Int32Array;
  weight: Float64Array;
}

export function pageRank(nodeCount: number, edges: readonly WeightedEdge[] | EdgeColumns, options: PageRankOptions = {}): Float64Array {
  const columns = Array.isArray(edges) ? toColumns(edges as readonly WeightedEdge[]) : (edges as EdgeColumns);
  const damping = options.damping ?? 0.85;
  const tolerance = options.tolerance ?? 1e-8;
  const maxIterations = options.maxIterations ?? 100;
  if (nodeCount === 0) return new Float64Array(0);

  const { from, to, weight } = columns;
  const edgeCount = from.length;
  const restart = restartVector(nodeCount, options.personalization);
  const outWeight = new Float64Array(nodeCount);
  for (let edge = 0; edge < edgeCount; edge++) outWeight[from[edge]] += weight[edge];

  let rank = Float64Array.from(restart);
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    const next = new Float64Array(nodeCount);
    let dangling = 0;
    for (let node = 0; node < nodeCount; node++) if (outWeight[node] === 0) dangling += rank[node];
    for (let edge = 0; edge < edgeCount; edge++) next[to[edge]] += (damping * rank[from[edge]] * weight[edge]) / outWeight[from[edge]];
    let change = 0;
    for (let node = 0; node < nodeCount; node++) {
      next[node] += (damping * dangling + (1 - damping)) * restart[node];
      change += Math.abs(next[node] - rank[node]);
    }
    rank = next;
    if (change < tolerance * nodeCount) break;
  }
  return rank;
}

function toColumns(edges: readonly WeightedEdge[]): EdgeColumns {
  const columns = { from: new Int32Array(edges.length), to: new Int32Array(edges.length), weight: new Float64Array(edges.length) };
  edges.forEach((edge, index) => {
    columns.from[index] = edge.from;
    columns.to[index] = edge.to;
    columns.weight[index] = edge.weight;
  });
  return columns;
}

function restartVector(nodeCount: number, personalization: readonly number[] | undefined): Float64Array {
  const vector = new Float64Array(nodeCount);
  let total = 0;
  for (let node = 0; node < nodeCount; node++) {
    const weight = Math.max(0, personalization?.[node] ?? 0);
    vector[node] = weight;
    total += weight;
  }
  if (total === 0) return vector.fill(1 / nodeCount);
  for (let node = 0; node < nodeCount; node++) vector[node] /= total;
  return vector;
}
