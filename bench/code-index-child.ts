/**
 * One measurement of bench (i) in a fresh process, so its peak RSS is its own:
 *
 *   node dist/bench/code-index-child.js index    ROOT LIST        symbols, tokens, full BlobIndex, stored size
 *   node dist/bench/code-index-child.js tokenize ROOT LIST IMPL   gpt-tokenizer or js-tiktoken, o200k_base
 *   node dist/bench/code-index-child.js pack     ROOT LIST OUT    read + redact + count + write XML (nothing stored before)
 *   node dist/bench/code-index-child.js pack-indexed ROOT LIST OUT the same with each file's tokens and secrets already
 *                                                                 known, as a pack job after a scan has them (only the pack is timed)
 *
 * LIST is a file of root-relative paths, one per line. Prints one JSON line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findSecrets, languageOf } from '@quarry/workspace';
import { BlobIndexer, PackFile, countTokens, decodeText, encodeBlobIndex, streamSink, toCompactBlobIndex, writePack } from '@quarry/code-index';

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
  } else {
    count = (text) => countTokens(text);
  }
  count('warm up');
  const loadMs = performance.now() - loadStarted;
  const started = performance.now();
  const perFile = texts.map(count);
  const seconds = (performance.now() - started) / 1000;
  return { implementation, megabytes, tokens: perFile.reduce((a, b) => a + b, 0), perFile, MBps: megabytes / seconds, loadMs, maxRssMB: maxRssMB() };
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
  const result = mode === 'index' ? await index(root, list) : mode === 'tokenize' ? tokenize(root, list, extra) : mode === 'pack' || mode === 'pack-indexed' ? await pack(root, list, extra, mode === 'pack-indexed') : undefined;
  if (result === undefined) throw new Error(`unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
