import { pageRank } from '@quarry/code-index';
import type { ContextCorpus } from '../corpus/context-corpus';

/** Names defined in more files than this add no edges (the repo map's rule). */
const MAX_DEFINERS = 100;

/**
 * Each file's PageRank over the reference graph (an edge from a file to the files defining the
 * names it uses, √uses, shared among the definers), scaled so the median file is 1: central
 * modules (`core/basic.py`) get a little prior, leaf scripts none. Computed once per commit; the
 * edges are columns (a kernel tree has millions).
 */
export function pageRankPrior(corpus: ContextCorpus): Float64Array {
  const fileCount = corpus.fileCount;
  const edges = new EdgeBuffer();
  // Per file: each target's weight, and the targets in the order first reached.
  const weight = new Float64Array(fileCount);
  const reached = new Int32Array(fileCount);
  /** mark[to] = from + 1 once `to` is among `from`'s targets. */
  const mark = new Int32Array(fileCount);
  for (let from = 0; from < fileCount; from++) {
    let targets = 0;
    const references = corpus.referencesOf(from);
    for (let index = 0; index < references.names.length; index++) {
      const name = references.names[index];
      const definers = corpus.definerCount(name);
      if (definers === 0 || definers > MAX_DEFINERS) continue;
      const share = Math.sqrt(references.counts[index]) / definers;
      for (const to of corpus.definersOf(name)) {
        if (to === from) continue;
        if (mark[to] !== from + 1) {
          mark[to] = from + 1;
          reached[targets++] = to;
        }
        weight[to] += share;
      }
    }
    for (let target = 0; target < targets; target++) {
      const to = reached[target];
      edges.push(from, to, weight[to]);
      weight[to] = 0;
    }
  }
  const rank = pageRank(fileCount, edges.columns(), { maxIterations: 50, tolerance: 1e-6 });
  const sorted = Float64Array.from(rank).sort();
  const median = sorted[Math.floor(sorted.length / 2)] || 1 / Math.max(1, fileCount);
  return rank.map((value) => value / median);
}

class EdgeBuffer {
  private from = new Int32Array(1 << 16);
  private to = new Int32Array(1 << 16);
  private weight = new Float64Array(1 << 16);
  private length = 0;

  push(from: number, to: number, weight: number): void {
    if (this.length === this.from.length) {
      const size = this.length * 2;
      this.from = grow(this.from, new Int32Array(size));
      this.to = grow(this.to, new Int32Array(size));
      this.weight = grow(this.weight, new Float64Array(size));
    }
    this.from[this.length] = from;
    this.to[this.length] = to;
    this.weight[this.length] = weight;
    this.length++;
  }

  columns() {
    return { from: this.from.subarray(0, this.length), to: this.to.subarray(0, this.length), weight: this.weight.subarray(0, this.length) };
  }
}

function grow<T extends Int32Array | Float64Array>(old: T, grown: T): T {
  grown.set(old as never);
  return grown;
}
