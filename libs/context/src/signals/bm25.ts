import type { ContextCorpus } from '../corpus/context-corpus';
import type { TaskAnalysis } from '../task/task-analysis';
import { SignalScores } from './signal-scores';

/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;
/** Terms in more than this share of chunks carry almost no weight; skipping them saves most of the work. */
const MAX_DOCUMENT_SHARE = 0.25;
/** A file's lexical score: its best chunk, plus a little of each of its next two best (a file about the task has several). */
const SECOND_CHUNK_SHARE = 0.25;
/**
 * A test file's share of its match that goes to the module it tests (`test_skipping.py` →
 * `skipping.py`): tests hold the usage an issue pastes, word for word, and the module they test
 * is where the fix goes.
 */
const TESTED_MODULE_SHARE = 0.5;
/** A test name matching more modules than this (`test_utils.py`) says nothing about which. */
const MAX_TESTED_MODULES = 3;

export interface Bm25Options {
  k1?: number;
  b?: number;
}

/**
 * BM25 over the commit's chunks (symbol-aware: identifiers split, whole names kept), with the
 * task's weighted terms as the query. A file scores by its best chunks plus its whole-file BM25
 * (each relative to the best file); the chunk scores are the spans' lexical evidence.
 */
export function chunkBm25(corpus: ContextCorpus, task: TaskAnalysis, options: Bm25Options = {}): SignalScores {
  const k1 = options.k1 ?? K1;
  const b = options.b ?? B;
  const scores = new SignalScores('bm25');
  const total = corpus.chunkCount;
  if (total === 0) return scores;
  // Dense by chunk (a broad task scores a million chunks of a kernel tree); `touched` is the
  // order chunks were first scored. Every addend is positive (weights, IDF and tf are), so a
  // chunk is touched once.
  const accumulated = new Float64Array(total);
  const touched: number[] = [];
  for (const [term, weight] of task.queryTerms) {
    const postings = corpus.termPostings(term);
    if (postings === undefined || postings.chunks.length > MAX_DOCUMENT_SHARE * total) continue;
    const n = postings.chunks.length;
    const idf = Math.log(1 + (total - n + 0.5) / (n + 0.5));
    for (let index = 0; index < n; index++) {
      const chunk = postings.chunks[index];
      const tf = postings.counts[index];
      const norm = k1 * (1 - b + (b * corpus.chunkLength[chunk]) / corpus.averageChunkLength);
      if (accumulated[chunk] === 0) touched.push(chunk);
      accumulated[chunk] += weight * idf * ((tf * (k1 + 1)) / (tf + norm));
    }
  }
  scores.setChunks(accumulated, Int32Array.from(touched));
  // Per file, its three best chunks (all the score reads), in the order files were first touched.
  const fileCount = corpus.fileCount;
  const chunksOfFile = new Int32Array(fileCount);
  const best = new Float64Array(fileCount);
  const second = new Float64Array(fileCount);
  const third = new Float64Array(fileCount);
  const files: number[] = [];
  for (const chunk of touched) {
    const score = accumulated[chunk];
    const file = corpus.chunkFile[chunk];
    const count = chunksOfFile[file]++;
    if (count === 0) {
      files.push(file);
      best[file] = score;
    } else if (count === 1) {
      if (score > best[file]) [best[file], second[file]] = [score, best[file]];
      else second[file] = score;
    } else if (score > best[file]) {
      [best[file], second[file], third[file]] = [score, best[file], second[file]];
    } else if (score > second[file]) {
      [second[file], third[file]] = [score, second[file]];
    } else if (count === 2 || score > third[file]) {
      third[file] = score;
    }
  }
  const fileScores = new Float64Array(fileCount);
  for (const file of files) {
    let score = best[file];
    if (chunksOfFile[file] > 1) score += SECOND_CHUNK_SHARE * second[file];
    if (chunksOfFile[file] > 2) score += SECOND_CHUNK_SHARE * third[file];
    scores.addFile(file, score);
    fileScores[file] = score;
  }
  lendToTestedModules(corpus, files, fileScores, scores);
  // Half the file's score is BM25 with the whole file as the document: a file about the task
  // matches many of its terms across chunks, which no single chunk shows.
  const whole = wholeFileScores(corpus, task, k1, b);
  let wholeMax = 0;
  for (const file of whole.files) wholeMax = Math.max(wholeMax, whole.scores[file]);
  const chunkMax = scores.maxFileScore() || 1;
  for (const file of whole.files) scores.addFile(file, (chunkMax * whole.scores[file]) / wholeMax);
  return scores;
}

/** Each test file's match, a share of it to the modules its name says it tests. */
function lendToTestedModules(corpus: ContextCorpus, files: readonly number[], fileScores: Float64Array, scores: SignalScores): void {
  for (const file of files) {
    if (corpus.roles[file] !== 'test') continue;
    const score = fileScores[file];
    const path = corpus.paths[file];
    const module = testedModuleName(path.slice(path.lastIndexOf('/') + 1).toLowerCase());
    if (module === undefined) continue;
    const modules = nearest(
      corpus,
      path,
      (corpus.filesByBaseName.get(module) ?? []).filter((candidate) => corpus.roles[candidate] === 'source'),
    );
    if (modules.length === 0 || modules.length > MAX_TESTED_MODULES) continue;
    for (const target of modules) scores.addFile(target, (TESTED_MODULE_SHARE * score) / modules.length, `tested by ${path}`);
  }
}

/**
 * Of the modules a test's name fits, those nearest it: sharing the most leading directories
 * with the test's (`sympy/physics/units/tests/test_util.py` → `sympy/physics/units/util.py`, not
 * the other `util.py` files).
 */
function nearest(corpus: ContextCorpus, testPath: string, candidates: readonly number[]): number[] {
  if (candidates.length <= 1) return [...candidates];
  const testDirectories = testPath.split('/').slice(0, -1);
  const shared = (candidate: number) => {
    const directories = corpus.paths[candidate].split('/').slice(0, -1);
    let count = 0;
    while (count < directories.length && count < testDirectories.length && directories[count] === testDirectories[count]) count++;
    return count;
  };
  const best = Math.max(...candidates.map(shared));
  return candidates.filter((candidate) => shared(candidate) === best);
}

/** `test_skipping.py`, `skipping_test.py`, `unittest_skipping.py`, `skipping.test.ts`, `SkippingTest.java` → the module's file name. */
export function testedModuleName(base: string): string | undefined {
  const match =
    /^(?:test_|unittest_)(.+\.[a-z]+)$/.exec(base) ??
    /^(.+)_tests?(\.[a-z]+)$/.exec(base) ??
    /^(.+)\.(?:test|spec)(\.[a-z]+)$/.exec(base) ??
    /^(.+)tests?(\.(?:java|kt|cs|scala|swift))$/.exec(base);
  if (!match) return undefined;
  return match[2] === undefined ? match[1] : `${match[1]}${match[2]}`;
}

/** BM25 with whole files as the documents: the chunks' counts summed per file. Scores by file, and the files in the order first scored. */
function wholeFileScores(corpus: ContextCorpus, task: TaskAnalysis, k1: number, b: number): { scores: Float64Array; files: number[] } {
  const fileCount = corpus.fileCount;
  const scores = new Float64Array(fileCount);
  const scored = new Uint8Array(fileCount);
  const files: number[] = [];
  const tf = new Float64Array(fileCount);
  for (const [term, weight] of task.queryTerms) {
    const postings = corpus.termPostings(term);
    if (postings === undefined || postings.files > MAX_DOCUMENT_SHARE * fileCount * 2) continue;
    const touched: number[] = [];
    for (let index = 0; index < postings.chunks.length; index++) {
      const file = corpus.chunkFile[postings.chunks[index]];
      if (tf[file] === 0) touched.push(file);
      tf[file] += postings.counts[index];
    }
    const n = postings.files;
    const idf = Math.log(1 + (fileCount - n + 0.5) / (n + 0.5));
    for (const file of touched) {
      const norm = k1 * (1 - b + (b * corpus.fileLength[file]) / corpus.averageFileLength);
      if (scored[file] === 0) {
        scored[file] = 1;
        files.push(file);
      }
      scores[file] += weight * idf * ((tf[file] * (k1 + 1)) / (tf[file] + norm));
      tf[file] = 0;
    }
  }
  return { scores, files };
}

/**
 * The task's terms in file paths (`latex` in `sympy/printing/latex.py`), weighted by how few
 * paths have them: a task about "the LaTeX printer" names its module without writing the path.
 */
export function pathMatches(corpus: ContextCorpus, task: TaskAnalysis): SignalScores {
  const scores = new SignalScores('paths');
  const fileCount = Math.max(1, corpus.fileCount);
  for (const [term, weight] of task.queryTerms) {
    const files = corpus.pathTermFiles.get(term);
    if (files === undefined || files.length > Math.max(2, 0.1 * fileCount)) continue;
    const idf = Math.log(1 + fileCount / files.length);
    for (const file of files) scores.addFile(file, weight * idf, `path has "${term}"`);
  }
  return scores;
}
