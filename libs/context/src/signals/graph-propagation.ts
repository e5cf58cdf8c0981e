import type { ContextCorpus } from '../corpus/context-corpus';
import type { ReferenceGraph } from '../graph/reference-graph';
import { SignalScores } from './signal-scores';

/** Seeds: the chunks and files the direct evidence is strongest on. */
const SEED_CHUNKS = 8;
const SEED_FILES = 5;
/** Neighbours followed per seed. */
const NEIGHBOURS = 30;

/**
 * Evidence spread one hop along the reference graph from where the direct evidence points: the
 * code a matched definition calls or is called by, the files a matched file imports or is
 * imported by. A seed passes on its fused score shared among its neighbours by edge weight (so a
 * neighbour never gets more than the evidence it came from), so a
 * function whose callee is the real culprit lifts that callee (and its file) even when the task
 * never names it.
 */
export function graphPropagation(corpus: ContextCorpus, graph: ReferenceGraph, seeds: { files: ReadonlyMap<number, number>; chunks: ReadonlyMap<number, number> }): SignalScores {
  const scores = new SignalScores('graph');
  const topChunks = top(seeds.chunks, SEED_CHUNKS);
  const topFiles = top(seeds.files, SEED_FILES);

  for (const [chunk, seedScore] of topChunks) {
    const file = corpus.chunkFile[chunk];
    const row = corpus.chunk(chunk);
    const neighbours = graph.neighbours({ path: corpus.paths[file], line: row.startLine }, { limit: NEIGHBOURS });
    const total = neighbours.reduce((sum, neighbour) => sum + neighbour.weight, 0);
    if (total === 0) continue;
    const share = seedScore;
    for (const neighbour of neighbours) {
      const other = corpus.fileOf(neighbour.path);
      if (other === undefined || neighbour.startLine === undefined) continue;
      const target = corpus.chunkAt(other, neighbour.startLine);
      const passed = (share * neighbour.weight) / total;
      if (target !== undefined) scores.addChunk(target, passed);
      if (other !== file) scores.addFile(other, passed, `${neighbour.relation === 'uses' ? 'used by' : 'uses'} ${row.symbol ?? corpus.paths[file]}`);
    }
  }
  for (const [file, seedScore] of topFiles) {
    const neighbours = graph.neighbours({ path: corpus.paths[file] }, { limit: NEIGHBOURS });
    const total = neighbours.reduce((sum, neighbour) => sum + neighbour.weight, 0);
    if (total === 0) continue;
    const share = seedScore;
    for (const neighbour of neighbours) {
      const other = corpus.fileOf(neighbour.path);
      if (other === undefined || other === file) continue;
      scores.addFile(other, (share * neighbour.weight) / total, `${neighbour.relation === 'uses' ? 'imported by' : 'imports'} ${corpus.paths[file]}`);
    }
  }
  return scores;
}

function top(scores: ReadonlyMap<number, number>, count: number): [number, number][] {
  return [...scores].filter(([, score]) => score > 0).sort((a, b) => b[1] - a[1]).slice(0, count);
}
