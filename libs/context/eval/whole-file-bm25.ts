import { pathTerms, termCounts, type ContextCorpus } from '@quarry/context';

const K1 = 1.2;
const B = 0.75;

/**
 * The peer: plain BM25 over whole files, as the published baselines compute it — each file's
 * terms (identifiers split, the path's terms added) against all of the task's terms, unweighted,
 * no stop list beyond the tokenizer's, no notion of tests or docs. Run on the same trees in the
 * same run as the engine.
 */
export function wholeFileBm25(corpus: ContextCorpus, task: string): number[] {
  const fileCount = corpus.fileCount;
  const scores = new Float64Array(fileCount);
  if (fileCount === 0) return [];
  const paths = corpus.paths.map((file) => pathTerms(file));
  const pathFiles = new Map<string, number[]>();
  paths.forEach((terms, file) => {
    for (const term of terms) pathFiles.set(term, [...(pathFiles.get(term) ?? []), file]);
  });
  const lengths = Float64Array.from(corpus.fileLength, (length, file) => length + paths[file].length);
  const averageLength = Math.max(1, lengths.reduce((sum, length) => sum + length, 0) / fileCount);
  const tf = new Float64Array(fileCount);
  for (const term of termCounts(task).keys()) {
    const touched = new Set<number>();
    const postings = corpus.termPostings(term);
    if (postings !== undefined) {
      for (let index = 0; index < postings.chunks.length; index++) {
        const file = corpus.chunkFile[postings.chunks[index]];
        tf[file] += postings.counts[index];
        touched.add(file);
      }
    }
    for (const file of pathFiles.get(term) ?? []) {
      tf[file] += 1;
      touched.add(file);
    }
    const idf = Math.log(1 + (fileCount - touched.size + 0.5) / (touched.size + 0.5));
    for (const file of touched) {
      scores[file] += idf * ((tf[file] * (K1 + 1)) / (tf[file] + K1 * (1 - B + (B * lengths[file]) / averageLength)));
      tf[file] = 0;
    }
  }
  return [...scores.keys()].filter((file) => scores[file] > 0).sort((a, b) => scores[b] - scores[a] || a - b);
}
