import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { assertBuilt, repoRoot } from '../support/processes';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * Prisma's client (its generated code and WebAssembly query engine: ~120 MB of a process) loads on
 * first use: a worker whose jobs take only the node-postgres paths never pays for it. Run in a
 * child process of the compiled build, whose module cache shows what was loaded.
 */
describe('Prisma on demand', () => {
  it('a database opened, pinged, and used for blob facts loads no Prisma; the first Prisma query loads it', () => {
    assertBuilt();
    const db = JSON.stringify(path.join(repoRoot(), 'dist', 'libs', 'db', 'src'));
    const output = execFileSync(
      process.execPath,
      [
        '-e',
        `
        const { createDatabase, BlobFactRepository } = require(${db});
        const loaded = () => Object.keys(require.cache).some((file) => file.includes('generated') && file.includes('client'));
        (async () => {
          const database = createDatabase(${JSON.stringify(TEST_DATABASE_URL)}, 2);
          await database.pool.query('SELECT 1');
          const facts = new BlobFactRepository(database.prisma, database.pool);
          const blob = require('node:crypto').randomBytes(20).toString('hex');
          await facts.record([{ blob, kind: 'text', bytes: 3, lines: 1 }]);
          const found = await facts.lookup([blob]);
          const before = loaded();
          const count = await database.prisma.blobFact.count({ where: { blob } });
          console.log(JSON.stringify({ before, after: loaded(), found: found.get(blob), count }));
          await database.close();
        })().catch((error) => { console.error(error); process.exit(1); });
        `,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(output.trim())).toEqual({ before: false, after: true, found: { kind: 'text', bytes: 3, lines: 1 }, count: 1 });
  });
});
