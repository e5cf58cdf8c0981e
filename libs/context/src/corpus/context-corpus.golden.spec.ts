import fs from 'node:fs';
import path from 'node:path';
import { BlobIndexer } from '@quarry/code-index';
import { NameReferenceGraph } from '../graph/name-reference-graph';
import { rankForTask, retrieveContext } from '../retrieve';
import type { SignalName } from '../signals/signal-scores';
import { corpusOf } from '../testing/corpus-of';
import { GOLDEN_REPO, GOLDEN_TASKS } from '../testing/golden-repo';

/**
 * What retrieval answers on a small repository, pinned: every file and span score and its `why`,
 * the assembled context, the graph's neighbours, some postings. Computed with the corpus as it
 * was before its storage was made compact (objects per chunk and definition); the compact corpus
 * must answer the same, to the last bit of every score. `QUARRY_UPDATE_GOLDEN=1` writes it again
 * (only for a change meant to move the ranking).
 */
const GOLDEN = path.join(__dirname, 'context-corpus.golden.json');

async function answers() {
  const indexer = await BlobIndexer.create();
  const { corpus, read } = corpusOf(indexer, GOLDEN_REPO);
  const chunkOf = (chunk: number) => {
    const row = corpus.chunk(chunk);
    return { path: corpus.paths[corpus.chunkFile[chunk]], startLine: row.startLine, endLine: row.endLine, symbol: row.symbol, kind: row.kind, container: row.container };
  };
  const tasks = [];
  for (const task of GOLDEN_TASKS) {
    const rankings: Record<string, unknown> = {};
    for (const [name, disabled] of [['all', []], ['no graph', ['graph']], ['bm25 alone', ['explicit', 'definitions', 'literals', 'paths', 'graph', 'prior']]] as [string, SignalName[]][]) {
      const ranking = rankForTask(corpus, task, [], { disabled: new Set(disabled) });
      rankings[name] = {
        files: ranking.files.slice(0, 12).map((ranked) => ({ path: corpus.paths[ranked.file], score: ranked.score, why: ranked.why })),
        spans: ranking.spans.slice(0, 16).map((span) => ({ ...chunkOf(span.chunk), score: span.score, why: span.why })),
      };
    }
    const focused = rankForTask(corpus, task, ['shop/receipts.py']).files.slice(0, 5).map((ranked) => [corpus.paths[ranked.file], ranked.score]);
    const answer = await retrieveContext(corpus, { task, tokens: 400, limit: 8 }, { readText: read });
    answer.stats.durationMs = 0;
    tasks.push({ task, rankings, focused, answer });
  }
  const graph = new NameReferenceGraph(corpus);
  const neighbours: Record<string, unknown> = {};
  for (const file of corpus.paths) {
    neighbours[file] = graph.neighbours({ path: file });
    for (let chunk = corpus.chunkStart[corpus.fileOf(file)!]; chunk < corpus.chunkStart[corpus.fileOf(file)! + 1]; chunk++) {
      const line = corpus.chunk(chunk).startLine;
      neighbours[`${file}:${line}`] = graph.neighbours({ path: file, line });
    }
  }
  const postings: Record<string, unknown> = {};
  for (const term of ['cart', 'items', 'apply_discount', 'session', 'sessionstore', 'token', 'quantity', 'price', 'absent_term']) {
    const found = corpus.termPostings(term);
    postings[term] = found === undefined ? null : { chunks: [...found.chunks].map(chunkOf), counts: [...found.counts], files: found.files };
  }
  return {
    stats: { files: corpus.fileCount, chunks: corpus.chunkCount, terms: corpus.termCount, averageChunkLength: corpus.averageChunkLength, averageFileLength: corpus.averageFileLength },
    chunks: Array.from({ length: corpus.chunkCount }, (_, chunk) => chunkOf(chunk)),
    tasks,
    neighbours,
    postings,
  };
}

describe('retrieval on the golden repository', () => {
  it('answers exactly as pinned', async () => {
    // Through JSON both ways, so `undefined` fields compare as absent.
    const actual = JSON.parse(JSON.stringify(await answers()));
    if (process.env.QUARRY_UPDATE_GOLDEN === '1') fs.writeFileSync(GOLDEN, `${JSON.stringify(actual)}\n`);
    const expected = JSON.parse(fs.readFileSync(GOLDEN, 'utf8'));
    expect(actual.stats).toEqual(expected.stats);
    expect(actual.chunks).toEqual(expected.chunks);
    expect(actual.postings).toEqual(expected.postings);
    expect(actual.neighbours).toEqual(expected.neighbours);
    for (const [index, task] of expected.tasks.entries()) expect(actual.tasks[index]).toEqual(task);
  });
});
