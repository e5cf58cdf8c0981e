/**
 * The per-blob cost of navigation data on Linux fs/, in a process of its own (bench (n)): index
 * MB/s per thread (texts in memory, CPU time) and stored bytes per MB of source, with the share of
 * the fields navigation added (occurrences, imports, packages, local scopes). Prints one JSON line.
 *
 *   node dist/bench/navigation-cost.js ROOT LIST
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { languageOf } from '@quarry/workspace';
import { BlobIndexer, encodeBlobIndex, toCompactBlobIndex, type CompactBlobIndex } from '@quarry/code-index';

async function main([root, listFile]: string[]): Promise<void> {
  const list = fs.readFileSync(listFile, 'utf8').split('\n').filter(Boolean);
  const files = list.map((file) => ({ file, bytes: fs.readFileSync(path.join(root, file)) })).filter(({ bytes }) => !bytes.subarray(0, 8000).includes(0));
  const megabytes = files.reduce((sum, { bytes }) => sum + bytes.length, 0) / 1e6;
  const indexer = await BlobIndexer.create();
  for (const { file, bytes } of files.slice(0, 50)) indexer.index({ path: file, language: languageOf(file), content: bytes });
  let cpu = 0;
  let compact = 0;
  let gzip = 0;
  let without = 0;
  let withoutGzip = 0;
  for (const { file, bytes } of files) {
    const before = process.cpuUsage();
    const index = indexer.index({ path: file, language: languageOf(file), content: bytes });
    const used = process.cpuUsage(before);
    cpu += (used.user + used.system) / 1e6;
    const row = toCompactBlobIndex(index);
    compact += Buffer.byteLength(JSON.stringify(row));
    gzip += encodeBlobIndex(index).length;
    // The same row without what navigation added: the stored form before it.
    const bare: CompactBlobIndex = { ...row, v: 1, d: row.d.map((definition) => definition.slice(0, 7).filter((value, position) => position < 6 || value !== 0)) };
    delete bare.o;
    delete bare.i;
    delete bare.p;
    const text = JSON.stringify(bare);
    without += Buffer.byteLength(text);
    withoutGzip += gzipSync(text, { level: 6 }).length;
  }
  process.stdout.write(`${JSON.stringify({ megabytes, indexMBps: megabytes / cpu, compactPerMB: compact / megabytes, gzipPerMB: gzip / megabytes, navigationCompactPerMB: (compact - without) / megabytes, navigationGzipPerMB: (gzip - withoutGzip) / megabytes })}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
