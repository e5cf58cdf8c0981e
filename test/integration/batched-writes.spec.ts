import { createDatabase, Database, JobRepository, JobWriteBatcher } from '../../libs/db/src';
import { TEST_DATABASE_URL } from '../support/test-database';

/**
 * The worker's group commit on real Postgres: many jobs' claims, progress and completions in one
 * statement keep each job's guards, history order and exactly-once outcome.
 */
describe('batched job writes (group commit)', () => {
  let database: Database;
  let jobs: JobRepository;
  beforeAll(() => {
    database = createDatabase(TEST_DATABASE_URL, 4);
    jobs = new JobRepository(database.prisma, database.pool);
  });
  afterAll(() => database.close());

  /** How many statements `work` sent through the pool. */
  async function countingStatements(work: () => Promise<void>): Promise<number> {
    let statements = 0;
    const query = database.pool.query.bind(database.pool);
    const spy = jest.spyOn(database.pool, 'query').mockImplementation(((...args: Parameters<typeof query>) => {
      statements++;
      return query(...args);
    }) as never);
    try {
      await work();
    } finally {
      spy.mockRestore();
    }
    return statements;
  }

  const create = (n: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => jobs.create({ kind: 'scan', input: { root: `/batch/${i}` }, queuePrefix: 'batched-writes-test' })));

  it('claims, records progress and completes 300 jobs in a few statements, each exactly once with a sane history', async () => {
    const created = await create(300);
    const statements = await countingStatements(async () => {
      const claimed = await Promise.all(created.map((job) => jobs.claim(job.id, 1)));
      expect(claimed.every((job, i) => job?.id === created[i].id && job.kind === 'scan')).toBe(true);
      expect(claimed[7]?.input).toEqual({ root: '/batch/7' });
      await Promise.all(created.map((job) => jobs.recordProgress(job.id, { stage: 'reading', done: 1, total: 2 }, true)));
      const written = await Promise.all(created.map((job, i) => jobs.complete(job.id, { n: i })));
      expect(written.every(Boolean)).toBe(true);
      // A second completion (a duplicate run) writes nothing.
      expect(await Promise.all(created.slice(0, 20).map((job) => jobs.complete(job.id, { n: -1 })))).toEqual(Array(20).fill(false));
    });
    expect(statements).toBeLessThan(30); // 300 jobs × 3 writes + 20 duplicates, one statement per batch
    const { rows } = await database.pool.query<{ id: string; status: string; result: { n: number }; types: string[] }>(
      `SELECT j.id::text, j.status::text, j.result,
              array(SELECT type FROM job_events e WHERE e.job_id = j.id ORDER BY e.id) AS types
         FROM jobs j WHERE j.id = ANY($1::uuid[])`,
      [created.map((job) => job.id)],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    created.forEach((job, i) => {
      const row = byId.get(job.id);
      expect(row?.status).toBe('succeeded');
      expect(row?.result).toEqual({ n: i });
      expect(row?.types).toEqual(['queued', 'started', 'progress', 'completed']);
    });
  });

  it('stores results, progress and sources exactly as given, whatever text they hold (quotes, backslashes, unicode, null)', async () => {
    const created = await create(4);
    await Promise.all(created.map((job) => jobs.claim(job.id, 1)));
    const tricky = (i: number) => ({ path: `a "quoted" \\ path\n${i}`, emoji: '🚀 café', nested: [{ x: null, y: [1.5, -2e-7] }], empty: '', n: i });
    await Promise.all(created.map((job, i) => jobs.recordProgress(job.id, { stage: 'reading', done: i, message: `"${i}" \\ ✓` }, true)));
    const written = await Promise.all(
      created.map((job, i) => jobs.complete(job.id, i === 3 ? null : tricky(i), i === 0 ? { path: '/a "b"\\c', ref: null, commit: 'f'.repeat(40), dirty: true } : undefined)),
    );
    expect(written).toEqual([true, true, true, true]);
    const views = await Promise.all(created.map((job) => jobs.find(job.id)));
    views.forEach((view, i) => {
      expect(view?.status).toBe('succeeded');
      expect(view?.result ?? null).toEqual(i === 3 ? null : tricky(i));
      expect(view?.progress).toEqual({ stage: 'reading', done: i, message: `"${i}" \\ ✓` });
    });
    const { rows } = await database.pool.query<{ source: unknown }>(`SELECT resolved_source AS source FROM jobs WHERE id = $1::uuid`, [created[0].id]);
    expect(rows[0].source).toEqual({ path: '/a "b"\\c', ref: null, commit: 'f'.repeat(40), dirty: true });
  });

  it('keeps the guards: no claim of a cancelled job, no progress or completion of a job that is not running', async () => {
    const [cancelled, queued] = await create(2);
    await jobs.cancel(cancelled.id);
    const [claim, progress, complete] = await Promise.all([
      jobs.claim(cancelled.id, 1),
      jobs.recordProgress(queued.id, { stage: 'x', done: 1 }, true),
      jobs.complete(queued.id, { never: true }),
    ]);
    expect(claim).toBeNull();
    expect(progress).toBeUndefined();
    expect(complete).toBe(false);
    expect((await jobs.find(queued.id))?.status).toBe('queued');
    expect((await jobs.history(queued.id)).map((event) => event.type)).toEqual(['queued']);
  });

  it('puts two writes of one job in successive statements, in order', async () => {
    const [job] = await create(1);
    const claim = jobs.claim(job.id, 1);
    const complete = jobs.complete(job.id, { done: true }); // queued behind the claim, same tick
    expect(await claim).not.toBeNull();
    expect(await complete).toBe(true);
    expect((await jobs.history(job.id)).map((event) => event.type)).toEqual(['queued', 'started', 'completed']);
  });

  it('pins sources in the group commit: before the work (git) or with the result (a directory), the first pin staying', async () => {
    const git = (commit: string) => ({ git: 'https://example.test/r.git', ref: 'main', commit });
    const directory = { path: '/batch/dir', commit: 'c'.repeat(40), dirty: false };
    const created = await create(40);
    await Promise.all(created.map((job) => jobs.claim(job.id, 1)));
    const statements = await countingStatements(async () => {
      // Half pin a commit while the other half complete with the directory they read: one batch.
      await Promise.all(created.map((job, i) => (i % 2 === 0 ? jobs.pinSource(job.id, git('a'.repeat(40))) : jobs.complete(job.id, { i }, directory as never))));
      // A later pin (a retry that resolved the ref again) keeps the first.
      await Promise.all(created.filter((_, i) => i % 2 === 0).map((job) => jobs.pinSource(job.id, git('b'.repeat(40)))));
    });
    expect(statements).toBeLessThanOrEqual(4);
    const rows = await Promise.all(created.map((job) => jobs.find(job.id)));
    rows.forEach((row, i) => {
      if (i % 2 === 0) {
        expect(row?.status).toBe('running');
        expect(row?.source).toEqual(git('a'.repeat(40)));
      } else {
        expect(row?.status).toBe('succeeded');
        expect(row?.source).toEqual(directory);
      }
    });
    // The claim of a retry, alone on an idle worker, hands the pinned commit back.
    expect((await jobs.claim(created[0].id, 2))?.resolvedSource).toEqual(git('a'.repeat(40)));
    const [pair1, pair2] = await Promise.all([jobs.claim(created[2].id, 2), jobs.claim(created[4].id, 2)]);
    expect([pair1?.resolvedSource, pair2?.resolvedSource]).toEqual([git('a'.repeat(40)), git('a'.repeat(40))]);
  });

  it('fails only the operation Postgres refuses, not its neighbours in the batch', async () => {
    const created = await create(5);
    await Promise.all(created.map((job) => jobs.claim(job.id, 1)));
    const outcomes = await Promise.allSettled(
      // jsonb refuses \u0000: the third result cannot be stored.
      created.map((job, i) => jobs.complete(job.id, i === 2 ? { text: 'nul \u0000 here' } : { ok: i })),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((await jobs.find(created[2].id))?.status).toBe('running');
    expect((await jobs.find(created[3].id))?.result).toEqual({ ok: 3 });
  });

  it('waits for a window when asked to, and drains', async () => {
    const batcher = new JobWriteBatcher(database.pool, { maxBatch: 2, windowMs: 5, maxInFlight: 1 });
    const created = await create(5);
    const claims = created.map((job) => batcher.claim(job.id, 1));
    await batcher.drain();
    expect((await Promise.all(claims)).filter(Boolean)).toHaveLength(5);
  });
});
