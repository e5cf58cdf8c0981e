import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { QuarryError } from '@quarry/contracts';
import { parseContentEncoding, readCappedBody } from './capped-body';

const MiB = 1024 * 1024;

/** A source that hands out `chunks` on demand and counts what the reader actually pulled. */
function countingSource(chunks: Buffer[]): Readable & { pulled: number } {
  let index = 0;
  const source = new Readable({
    highWaterMark: 16 * 1024,
    read() {
      if (index === chunks.length) {
        this.push(null);
        return;
      }
      const chunk = chunks[index++];
      source.pulled += chunk.length;
      this.push(chunk);
    },
  }) as Readable & { pulled: number };
  source.pulled = 0;
  return source;
}

describe('readCappedBody', () => {
  it('passes a small identity body through', async () => {
    const result = await readCappedBody(Readable.from([Buffer.from('hello '), Buffer.from('world')]), [], 1024);
    expect(result).toEqual({ body: Buffer.from('hello world'), bytes: 11, truncated: false });
  });

  it('cuts inside a chunk and marks the body truncated', async () => {
    const result = await readCappedBody(Readable.from([Buffer.alloc(600, 'a'), Buffer.alloc(600, 'b')]), [], 1000);
    expect(result.bytes).toBe(1000);
    expect(result.truncated).toBe(true);
    expect(result.body.toString()).toBe('a'.repeat(600) + 'b'.repeat(400));
  });

  it('stops pulling a gzip bomb once the cap is reached: the rest is never inflated', async () => {
    // 1,000 gzip members of 1 MiB of zeros: 1,000 MiB decoded from ~1 MB, fed in 1 KB pieces.
    const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 1000 }, () => member));
    const pieces = Array.from({ length: Math.ceil(bomb.length / 1024) }, (_, i) => bomb.subarray(i * 1024, (i + 1) * 1024));
    const source = countingSource(pieces);
    const result = await readCappedBody(source, ['gzip'], MiB);
    expect(result).toMatchObject({ bytes: MiB, truncated: true });
    // Producing 1 MiB takes about one member; what was pulled beyond that is stream buffering.
    expect(source.pulled).toBeLessThan(bomb.length / 10);
    expect(source.destroyed).toBe(true);
  });

  it('undoes stacked encodings in reverse order of application', async () => {
    const twice = zlib.brotliCompressSync(zlib.gzipSync(Buffer.from('layered')));
    const result = await readCappedBody(Readable.from([twice]), parseContentEncoding('gzip, br'), 1024);
    expect(result.body.toString()).toBe('layered');
  });

  it('keeps what a truncated gzip stream decoded', async () => {
    const gz = zlib.gzipSync(Buffer.from('0123456789'.repeat(1000)));
    const result = await readCappedBody(Readable.from([gz.subarray(0, gz.length - 8)]), ['gzip'], MiB);
    expect(result.body.toString()).toBe('0123456789'.repeat(1000));
  });

  it('reports a corrupt body as a permanent url_http_error', async () => {
    const error = await readCappedBody(Readable.from([Buffer.from('definitely not deflate')]), ['deflate'], 1024).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuarryError);
    expect(error).toMatchObject({ kind: 'url_http_error', permanent: true });
  });

  it('passes the source\'s own error through (an abort is not a corrupt body)', async () => {
    const source = new Readable({ read() {} });
    const reading = readCappedBody(source, ['gzip'], 1024);
    source.destroy(new Error('socket hang up'));
    await expect(reading).rejects.toThrow('socket hang up');
  });
});

describe('parseContentEncoding', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['identity', []],
    ['gzip', ['gzip']],
    ['x-gzip', ['x-gzip']],
    ['GZIP', ['gzip']],
    ['deflate, br', ['deflate', 'br']],
  ])('%p → %p', (header, codings) => {
    expect(parseContentEncoding(header)).toEqual(codings);
  });

  it.each(['zstd', 'compress', 'gzip, zstd', 'gzip, gzip, gzip, gzip'])('refuses %p', (header) => {
    expect(() => parseContentEncoding(header)).toThrow(expect.objectContaining({ kind: 'content_type_refused' }));
  });
});
