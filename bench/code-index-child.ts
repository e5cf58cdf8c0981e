/**
 * One measurement of bench (i) in a fresh process, so its peak RSS is its own:
 *
 *   node dist/bench/code-index-child.js index    ROOT LIST        symbols, tokens, full BlobIndex, stored size
 *   node dist/bench/code-index-child.js extract  ROOT LIST [before] parse + extraction + packed occurrences per blob, CPU time
 *                                                                 of this one thread; `before`: as it was before the fast paths
 *                                                                 (web-tree-sitter's public cursor, C bodies parsed)
 *   node dist/bench/code-index-child.js tokenize ROOT LIST IMPL   quarry (our counter), gpt-tokenizer or js-tiktoken, o200k_base
 *   node dist/bench/code-index-child.js pack     ROOT LIST OUT    read + redact + count + write XML (nothing stored before)
 *   node dist/bench/code-index-child.js pack-indexed ROOT LIST OUT the same with each file's tokens and secrets already
 *                                                                 known, as a pack job after a scan has them (only the pack is timed)
 *
 * LIST is a file of root-relative paths, one per line. Prints one JSON line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findSecrets, languageOf } from '@quarry/workspace';
import { BlobIndexer, PackFile, SymbolExtractor, countTokens, decodeText, encodeBlobIndex, streamSink, toCompactBlobIndex, writePack } from '@quarry/code-index';
import { packOccurrences } from '../libs/code-index/src/symbols/occurrences';

const maxRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

function readTexts(root: string, list: string[]): { path: string; bytes: Buffer }[] {
  return list.map((file) => ({ path: file, bytes: fs.readFileSync(path.join(root, file)) }));
}

async function index(root: string, list: string[]) {
  const files = readTexts(root, list).filter((file) => !file.bytes.subarray(0, 8000).includes(0));
  const texts = files.map((file) => ({ path: file.path, language: languageOf(file.path), text: decodeText(file.bytes), bytes: file.bytes.length }));
  const megabytes = texts.reduce((sum, file) => sum + file.bytes, 0) / 1e6;
  const indexer = await BlobIndexer.create();

  let started = performance.now();
  let definitions = 0;
  let warnings = 0;
  for (const file of texts) {
    const symbols = indexer.symbols.extract(file.path, file.language, file.text);
    definitions += symbols.definitions.length;
    warnings += symbols.warnings.length;
  }
  const symbolSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  let tokens = 0;
  for (const file of texts) tokens += countTokens(file.text);
  const tokenSeconds = (performance.now() - started) / 1000;

  // Each index is measured and dropped, as a scan shard stores it and moves on.
  const perFile: Record<string, number> = {};
  let indexSeconds = 0;
  let storedBytes = 0;
  let gzippedBytes = 0;
  for (const file of files) {
    started = performance.now();
    const blob = indexer.index({ path: file.path, language: languageOf(file.path), content: file.bytes });
    indexSeconds += (performance.now() - started) / 1000;
    perFile[file.path] = blob.tokens;
    storedBytes += Buffer.byteLength(JSON.stringify(toCompactBlobIndex(blob)));
    gzippedBytes += encodeBlobIndex(blob).length;
  }
  return {
    files: files.length,
    megabytes,
    definitions,
    warnings,
    tokens,
    symbolMBps: megabytes / symbolSeconds,
    tokenMBps: megabytes / tokenSeconds,
    indexMBps: megabytes / indexSeconds,
    storedBytesPerMB: storedBytes / megabytes,
    gzippedBytesPerMB: gzippedBytes / megabytes,
    perFile,
    maxRssMB: maxRssMB(),
  };
}

/**
 * What a scan's per-blob indexer spends on symbols: the parse, the walk, definitions, references,
 * occurrences (packed as stored) and imports; not tokens or secrets. CPU time of this thread
 * (`process.cpuUsage`), so a busy machine slows the wall clock, not the figure.
 */
async function extract(root: string, list: string[], before: boolean) {
  const texts = readTexts(root, list)
    .filter((file) => !file.bytes.subarray(0, 8000).includes(0))
    .map((file) => ({ path: file.path, language: languageOf(file.path), text: decodeText(file.bytes), bytes: file.bytes.length }));
  const megabytes = texts.reduce((sum, file) => sum + file.bytes, 0) / 1e6;
  const cMegabytes = texts.filter((file) => file.language === 'C').reduce((sum, file) => sum + file.bytes, 0) / 1e6;
  const extractor = await SymbolExtractor.create(before ? { publicCursor: true, parseCBodies: true, nativeC: false } : {});
  // Warm up (the JIT, the grammars' first parses) on a few files, not timed.
  for (const file of texts.slice(0, 20)) extractor.extract(file.path, file.language, file.text);
  let definitions = 0;
  let occurrenceBytes = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const file of texts) {
    const symbols = extractor.extract(file.path, file.language, file.text);
    const references = [...symbols.references].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    occurrenceBytes += packOccurrences(symbols.occurrences, references.map(([name]) => name), file.text, symbols.lineStarts).length;
    definitions += symbols.definitions.length;
  }
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  return { files: texts.length, megabytes, cMegabytes, definitions, occurrenceBytes, cpuSeconds, wallSeconds: (performance.now() - started) / 1000, MBps: megabytes / cpuSeconds, maxRssMB: maxRssMB() };
}

function tokenize(root: string, list: string[], implementation: string) {
  const texts = readTexts(root, list)
    .filter((file) => !file.bytes.subarray(0, 8000).includes(0))
    .map((file) => decodeText(file.bytes));
  const megabytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1e6;
  let count: (text: string) => number;
  const loadStarted = performance.now();
  if (implementation === 'js-tiktoken') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { getEncoding } = require('js-tiktoken') as { getEncoding(name: string): { encode(text: string, allowed: string[], disallowed: string[]): number[] } };
    const encoding = getEncoding('o200k_base');
    count = (text) => encoding.encode(text, [], []).length;
  } else if (implementation === 'gpt-tokenizer') {
    // The library itself, as Repomix calls it (and as Quarry did), its cache cleared every 4 MB.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const gpt = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens(text: string, options: object): number; clearMergeCache(): void };
    const ordinary = { disallowedSpecial: new Set<string>() };
    let since = 0;
    count = (text) => {
      const n = gpt.countTokens(text, ordinary);
      since += text.length;
      if (since >= 4 << 20) {
        gpt.clearMergeCache();
        since = 0;
      }
      return n;
    };
  } else {
    count = (text) => countTokens(text);
  }
  count('warm up');
  const loadMs = performance.now() - loadStarted;
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const perFile = texts.map(count);
  const seconds = (performance.now() - started) / 1000;
  const rssGrowthMB = Math.round((process.memoryUsage().rss - rssBefore) / 1e6);
  return { implementation, megabytes, tokens: perFile.reduce((a, b) => a + b, 0), perFile, MBps: megabytes / seconds, loadMs, rssGrowthMB, maxRssMB: maxRssMB() };
}

async function pack(root: string, list: string[], out: string, indexed: boolean) {
  let started = performance.now();
  const files: PackFile[] = list.map((file) => ({
    path: file,
    language: languageOf(file),
    read: async () => decodeText(await fs.promises.readFile(path.join(root, file))),
  }));
  // Binary files are known to the scan before a pack; here the pack finds them itself, cheaply.
  for (const file of files) {
    const handle = fs.openSync(path.join(root, file.path), 'r');
    const head = Buffer.alloc(8000);
    const read = fs.readSync(handle, head, 0, head.length, 0);
    file.bytes = fs.fstatSync(handle).size;
    fs.closeSync(handle);
    file.binary = head.subarray(0, read).includes(0);
  }
  if (indexed) {
    // What the scan stores per blob: tokens and secret findings. Not timed.
    for (const file of files) {
      if (file.binary) continue;
      const text = await file.read();
      file.tokens = countTokens(text);
      file.encoding = 'o200k_base';
      file.secrets = findSecrets(text);
    }
    started = performance.now();
  }
  const stream = fs.createWriteStream(out);
  const sink = streamSink(stream);
  const result = await writePack(files, sink, { style: 'xml', title: path.basename(root) });
  await sink.end();
  return { ...result, seconds: (performance.now() - started) / 1000, maxRssMB: maxRssMB() };
}

async function main(argv: string[]): Promise<void> {
  const [mode, root, listFile, extra] = argv;
  const list = fs.readFileSync(listFile, 'utf8').split('\n').filter((line) => line !== '');
  const result = mode === 'index' ? await index(root, list) : mode === 'extract' ? await extract(root, list, extra === 'before') : mode === 'tokenize' ? tokenize(root, list, extra) : mode === 'pack' || mode === 'pack-indexed' ? await pack(root, list, extra, mode === 'pack-indexed') : undefined;
  if (result === undefined) throw new Error(`unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
