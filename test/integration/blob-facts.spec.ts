import { createHash } from 'node:crypto';
import { BlobFactRepository } from '../../libs/db/src/blob-fact-repository';
import { createDatabase } from '../../libs/db/src/prisma-client';
import type { BlobFact } from '../../libs/blob-scan/src';
import { TEST_DATABASE_URL } from '../support/test-env';

const database = createDatabase(TEST_DATABASE_URL, 4);
const facts = new BlobFactRepository(database.prisma, database.pool);
/** The same table read through Prisma alone (the repository's fallback without a pool). */
const viaPrisma = new BlobFactRepository(database.prisma);
afterAll(() => database.close());

/** Blob ids of this run only: the table is shared by every test of the run. */
const blob = (name: string) => createHash('sha1').update(`${process.pid}:${Date.now()}:${name}`).digest('hex');

describe('per-blob facts in Postgres', () => {
  it('inserts once and keeps the first row, however often and concurrently a shard writes', async () => {
    const text: BlobFact = { blob: blob('a'), kind: 'text', bytes: 3_000_000_000, lines: 12 };
    const binary: BlobFact = { blob: blob('b'), kind: 'binary' };
    expect(await facts.record([text, binary])).toBe(2);
    expect(await facts.record([text, binary])).toBe(0);
    const many = Array.from({ length: 2_500 }, (_, index): BlobFact => ({ blob: blob(`m${index}`), kind: 'text', bytes: index, lines: 1 }));
    const added = await Promise.all([facts.record(many), facts.record(many), facts.record(many.slice(100))]);
    expect(added.reduce((sum, count) => sum + count, 0)).toBe(2_500);

    const found = await facts.lookup([text.blob, binary.blob, blob('absent'), many[7].blob]);
    expect(found.get(text.blob)).toEqual({ kind: 'text', bytes: 3_000_000_000, lines: 12 });
    expect(found.get(binary.blob)).toEqual({ kind: 'binary' });
    expect(found.get(many[7].blob)).toEqual({ kind: 'text', bytes: 7, lines: 1 });
    expect(found.size).toBe(3);
    expect(await viaPrisma.lookup([text.blob, binary.blob, blob('absent'), many[7].blob])).toEqual(found);
    expect(await facts.count(many.map((fact) => fact.blob))).toBe(2_500);
  });

  it('answers an empty look-up and an empty write without a query error', async () => {
    expect((await facts.lookup([])).size).toBe(0);
    expect(await facts.record([])).toBe(0);
  });

  it('remembers the facts it read or wrote, bounded, so a repeat scan on this worker makes no round trip', async () => {
    const small = new BlobFactRepository(database.prisma, database.pool, 2);
    const [a, b, c] = ['r1', 'r2', 'r3'].map((name): BlobFact => ({ blob: blob(name), kind: 'text', bytes: 1, lines: 1 }));
    expect(await small.record([a, b, c])).toBe(3);
    // Rows deleted behind its back (only a test does that): what it still remembers needs no query.
    await database.pool.query('DELETE FROM blob_facts WHERE blob = ANY($1::text[])', [[a.blob, b.blob, c.blob]]);
    const found = await small.lookup([a.blob, b.blob, c.blob]);
    expect([...found.keys()].sort()).toEqual([b.blob, c.blob].sort()); // the oldest was forgotten
    expect(await small.record([b, c])).toBe(0); // known here: not written again
    expect(await small.count([a.blob, b.blob, c.blob])).toBe(0); // count asks Postgres
    // Another worker remembers nothing of this one's.
    expect((await new BlobFactRepository(database.prisma, database.pool).lookup([b.blob])).size).toBe(0);
  });
});
