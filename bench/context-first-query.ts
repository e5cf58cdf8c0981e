/**
 * The first context query on a tree already indexed in this process (issue 30, "chunk rows in the
 * scan"): `node dist/bench/context-first-query.js ROOT "task"` indexes ROOT with the code index
 * cache (what `--local` does before a question), then times the first question (the corpus
 * assembled from the chunk rows, ranked and answered) and a second one (corpus kept), and counts
 * the files the corpus read. Prints one JSON line; CPU figures are this process's (one thread).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { CodeIndexCache, decodeText } from '@quarry/code-index';
import { ContextCorpusCache, retrieveContext } from '@quarry/context';

const cpuMs = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return Math.round((used.user + used.system) / 1000);
};

async function main(root: string, task: string): Promise<void> {
  let cpu = process.cpuUsage();
  let started = performance.now();
  const tree = await new CodeIndexCache({ maxBytes: 4 * 1024 ** 3 }).tree(root);
  const indexMs = performance.now() - started;
  const indexCpuMs = cpuMs(cpu);

  let reads = 0;
  const read = async (file: string) => {
    reads++;
    return fs.readFile(path.join(root, file)).catch(() => undefined);
  };
  const readText = async (file: string) => decodeText((await read(file)) ?? Buffer.alloc(0));
  const corpora = new ContextCorpusCache();
  cpu = process.cpuUsage();
  started = performance.now();
  const corpus = await corpora.corpus(tree, read);
  const corpusMs = performance.now() - started;
  const corpusCpuMs = cpuMs(cpu);
  const corpusReads = reads;
  const first = await retrieveContext(corpus, { task, tokens: 8000 }, { readText });
  const firstQueryMs = performance.now() - started;
  started = performance.now();
  const second = await retrieveContext(await corpora.corpus(tree, read), { task, tokens: 8000 }, { readText });
  const secondQueryMs = performance.now() - started;
  console.log(
    JSON.stringify({
      files: tree.files.length,
      indexMs: Math.round(indexMs),
      indexCpuMs,
      corpusMs: Math.round(corpusMs),
      corpusCpuMs,
      corpusReads,
      chunkedFromText: corpora.chunkedFromText,
      firstQueryMs: Math.round(firstQueryMs),
      secondQueryMs: Math.round(secondQueryMs),
      top: first.files.slice(0, 3).map((file) => file.path),
      sameAnswer: JSON.stringify(first.files) === JSON.stringify(second.files),
    }),
  );
}

const [root, task] = process.argv.slice(2);
if (!root || !task) {
  console.error('usage: node dist/bench/context-first-query.js ROOT "task"');
  process.exit(2);
}
main(path.resolve(root), task).catch((error) => {
  console.error(error);
  process.exit(1);
});
