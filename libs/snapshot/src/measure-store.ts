import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import type { FileMeasure } from '@quarry/workspace';

/**
 * What scanning found in each blob (text bytes and lines, or binary), by blob id: a blob never
 * changes, so a measure taken once holds for every commit and every process that shares the data
 * directory. A repeat scan of a commit reads no content at all; a scan of the next commit reads
 * only the blobs that changed. Stored as an append-only text file beside the repository, one line
 * per blob (`<oid> t <bytes> <lines>` or `<oid> b`), read incrementally: lines appended by another
 * process are picked up at the next look.
 */
export class MeasureStore {
  private readonly measures = new Map<string, FileMeasure>();
  private offset = 0;
  private partial = '';

  constructor(private readonly file: string) {}

  get size(): number {
    return this.measures.size;
  }

  get(oid: string): FileMeasure | undefined {
    return this.measures.get(oid);
  }

  /** Reads what was appended since the last look. */
  refresh(): void {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= this.offset) return;
      const buffer = Buffer.allocUnsafe(size - this.offset);
      let read = 0;
      while (read < buffer.length) {
        const count = readSync(fd, buffer, read, buffer.length - read, this.offset + read);
        if (count === 0) break;
        read += count;
      }
      this.offset += read;
      const text = this.partial + buffer.toString('latin1', 0, read);
      const end = text.lastIndexOf('\n');
      this.partial = text.slice(end + 1);
      this.parse(text.slice(0, end + 1));
    } finally {
      closeSync(fd);
    }
  }

  /** Records new measures here and on disk (one append, so concurrent writers interleave whole lines). */
  async add(entries: ReadonlyArray<readonly [string, FileMeasure]>): Promise<void> {
    let text = '';
    for (const [oid, measure] of entries) {
      if (measure.kind === 'unreadable' || this.measures.has(oid)) continue;
      this.measures.set(oid, measure);
      text += measure.kind === 'text' ? `${oid} t ${measure.bytes} ${measure.lines}\n` : `${oid} b\n`;
    }
    if (text !== '') await appendFile(this.file, text, 'latin1');
  }

  private parse(text: string): void {
    let start = 0;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      const oid = text.slice(start, start + 40);
      if (text.charCodeAt(start + 41) === 0x74 /* t */) {
        const space = text.indexOf(' ', start + 43);
        this.measures.set(oid, { kind: 'text', bytes: Number(text.slice(start + 43, space)), lines: Number(text.slice(space + 1, end)) });
      } else if (text.charCodeAt(start + 41) === 0x62 /* b */) {
        this.measures.set(oid, { kind: 'binary' });
      }
      start = end + 1;
    }
  }
}
