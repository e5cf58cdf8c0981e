import { createDatabase } from '../../libs/db/src/prisma-client';
import { KEPT_STATES_PER_REPOSITORY, ScanStateRepository } from '../../libs/db/src/scan-state-repository';
import { TEST_DATABASE_URL } from '../support/test-env';

const database = createDatabase(TEST_DATABASE_URL, 4);
const states = new ScanStateRepository(database.pool);
afterAll(() => database.close());

/** A repository of this run only: the table is shared by every test of the run. */
const repository = `https://example.test/${process.pid}-${Date.now()}.git`;

describe('remembered scan states in Postgres', () => {
  it('loads what was saved by repository, kind and commit, keeps the latest of each, and only the last few commits', async () => {
    expect(await states.load(repository, 'scan facts 20', 'c0')).toBeUndefined();
    await states.save(repository, 'scan facts 20', 'c0', { totals: { files: 1 }, name: 'ünïcode' });
    await states.save(repository, 'search-index', 'c0', { segments: 2 });
    expect(await states.load(repository, 'scan facts 20', 'c0')).toEqual({ totals: { files: 1 }, name: 'ünïcode' });
    expect(await states.load(repository, 'search-index', 'c0')).toEqual({ segments: 2 });
    // Saved again (two workers scanning the same commit): the latest wins, nothing doubles.
    await Promise.all([states.save(repository, 'scan facts 20', 'c0', { totals: { files: 2 } }), states.save(repository, 'scan facts 20', 'c0', { totals: { files: 2 } })]);
    expect(await states.load(repository, 'scan facts 20', 'c0')).toEqual({ totals: { files: 2 } });
    for (let index = 1; index <= KEPT_STATES_PER_REPOSITORY + 2; index++) await states.save(repository, 'scan facts 20', `c${index}`, { index });
    const kept = await database.pool.query<{ commit: string }>('SELECT "commit" FROM scan_states WHERE repository = $1 AND kind = $2', [repository, 'scan facts 20']);
    expect(kept.rows.map((row) => row.commit).sort()).toEqual(Array.from({ length: KEPT_STATES_PER_REPOSITORY }, (_, index) => `c${index + 3}`).sort());
    // The other kind's commits are not counted against it.
    expect(await states.load(repository, 'search-index', 'c0')).toEqual({ segments: 2 });
  });
});
