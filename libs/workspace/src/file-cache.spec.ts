import { FileCache, type CachedFile, type FileVersion } from './file-cache';

const version = (overrides: Partial<FileVersion> = {}): FileVersion => ({ size: 10, mtimeMs: 1_000.5, ctimeMs: 1_000.5, ino: 42, ...overrides });
const file = (text: string): CachedFile => ({ text, bytes: text.length, lines: 1, sha256: 'x', redactions: 0, redactedLines: [] });
/** What one entry costs, as FileCache counts it: two bytes per UTF-16 unit of text and path, plus overhead. */
const cost = (path: string, text: string) => text.length * 2 + path.length * 2 + 256;

describe('FileCache', () => {
  it('serves an unchanged file and counts hits and misses', () => {
    const cache = new FileCache();
    expect(cache.get('/r/a.ts', version())).toBeUndefined();
    cache.set('/r/a.ts', version(), file('hello'));
    expect(cache.get('/r/a.ts', version())?.text).toBe('hello');
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 1, misses: 1 });
  });

  it.each([
    ['size', { size: 11 }],
    ['mtime', { mtimeMs: 2_000 }],
    ['ctime (mtime put back by utimes)', { ctimeMs: 2_000 }],
    ['inode (atomic replace)', { ino: 43 }],
  ])('treats a changed %s as a miss and drops the stale entry', (_label, change) => {
    const cache = new FileCache();
    cache.set('/r/a.ts', version(), file('old'));
    expect(cache.get('/r/a.ts', version(change))).toBeUndefined();
    expect(cache.has('/r/a.ts')).toBe(false);
    expect(cache.stats().bytes).toBe(0);
  });

  it('stays within its byte bound, evicting the least recently used first', () => {
    const text = 'x'.repeat(1_000);
    const cache = new FileCache(cost('/r/a', text) * 3);
    cache.set('/r/a', version(), file(text));
    cache.set('/r/b', version(), file(text));
    cache.set('/r/c', version(), file(text));
    expect(cache.get('/r/a', version())).toBeDefined(); // a is now the most recent
    cache.set('/r/d', version(), file(text));
    expect(cache.has('/r/b')).toBe(false);
    expect(['/r/a', '/r/c', '/r/d'].every((key) => cache.has(key))).toBe(true);
    expect(cache.stats()).toMatchObject({ entries: 3, evictions: 1 });
    expect(cache.stats().bytes).toBeLessThanOrEqual(cache.maxBytes);
  });

  it('evicts as many entries as a large one needs', () => {
    const small = 'x'.repeat(100);
    const cache = new FileCache(5_000);
    for (const name of ['a', 'b', 'c', 'd']) cache.set(`/r/${name}`, version(), file(small));
    cache.set('/r/big', version(), file('y'.repeat(2_000)));
    expect(cache.has('/r/big')).toBe(true);
    expect(cache.stats().bytes).toBeLessThanOrEqual(5_000);
    expect(cache.stats().evictions).toBeGreaterThan(0);
  });

  it('does not store a file larger than the whole cache', () => {
    const cache = new FileCache(1_000);
    cache.set('/r/small', version(), file('a'));
    cache.set('/r/huge', version(), file('z'.repeat(1_000)));
    expect(cache.has('/r/huge')).toBe(false);
    expect(cache.has('/r/small')).toBe(true);
  });

  it('replaces an entry stored again under the same path without counting it twice', () => {
    const cache = new FileCache();
    cache.set('/r/a', version(), file('one'));
    cache.set('/r/a', version({ size: 11 }), file('three'));
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: cost('/r/a', 'three') });
    expect(cache.get('/r/a', version({ size: 11 }))?.text).toBe('three');
  });

  it('refuses a negative bound', () => {
    expect(() => new FileCache(-1)).toThrow(RangeError);
  });
});
