import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createPrismaClient } from '../../libs/db/src/prisma-client';
import { applyMigrations, ensureDatabase, readMigrations } from '../../libs/db/src/migrator';
import { TEST_DATABASE_URL } from '../support/test-env';

/** A database of this test's own, created and dropped here. */
const migratorDatabase = `${new URL(TEST_DATABASE_URL).pathname.slice(1)}_migrator`;
const url = TEST_DATABASE_URL.replace(/\/[^/]+$/, `/${migratorDatabase}`);

async function admin<T>(action: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_DATABASE_URL.replace(/\/[^/]+$/, '/postgres') });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

describe('the migrator', () => {
  beforeAll(() => admin((client) => client.query(`DROP DATABASE IF EXISTS "${migratorDatabase}"`)));
  afterAll(() => admin((client) => client.query(`DROP DATABASE IF EXISTS "${migratorDatabase}"`)));

  it('creates the database, applies every migration once and keeps Prisma bookkeeping', async () => {
    expect(await ensureDatabase(url)).toBe(true);
    expect(await ensureDatabase(url)).toBe(false);
    const migrations = readMigrations();
    expect(await applyMigrations(url)).toEqual(migrations.map((migration) => migration.name));
    // Concurrent starts are serialised by the advisory lock and find nothing left to do.
    expect(await Promise.all([applyMigrations(url), applyMigrations(url)])).toEqual([[], []]);

    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const rows = await client.query('SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name');
      expect(rows.rows.map((row) => row.migration_name)).toEqual(migrations.map((migration) => migration.name));
      expect(rows.rows.every((row) => row.finished_at !== null)).toBe(true);
      const tables = await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
      expect(tables.rows.map((row) => row.table_name)).toEqual(['_prisma_migrations', 'api_keys', 'blob_code_index', 'blob_facts', 'chunk_embeddings', 'fetched_documents', 'job_events', 'jobs', 'llm_answers', 'scan_states', 'search_index_blobs', 'search_index_commits', 'search_index_segments', 'workspaces']);
    } finally {
      await client.end();
    }
  });

  it('builds every table and column the Prisma client expects', async () => {
    const prisma = createPrismaClient(url, 1);
    try {
      const key = await prisma.apiKey.create({ data: { id: randomUUID(), name: 'k', hash: 'h'.repeat(64), prefix: 'qk_abcde' } });
      const parent = await prisma.job.create({ data: { id: randomUUID(), kind: 'scan', input: { root: '/r' }, ownerId: key.id } });
      const child = await prisma.job.create({
        data: {
          id: randomUUID(),
          kind: 'fetch',
          status: 'succeeded',
          input: { url: 'https://example.org' },
          result: { ok: true },
          error: { kind: 'x', message: 'y' },
          progress: { stage: 's', done: 1 },
          attempts: 2,
          parentId: parent.id,
          startedAt: new Date(),
          finishedAt: new Date(),
          events: { create: [{ type: 'queued' }, { type: 'completed', data: { n: 1 } }] },
        },
        include: { events: true, parent: true },
      });
      expect(child.parent?.ownerId).toBe(key.id);
      expect(child.events.map((event) => event.type)).toEqual(['queued', 'completed']);
      const workspace = await prisma.workspace.create({ data: { id: randomUUID(), name: 'w', root: '/srv/w' } });
      expect(await prisma.workspace.findUnique({ where: { root: '/srv/w' } })).toEqual(workspace);
      await prisma.job.delete({ where: { id: parent.id } }); // cascades to the child and its events
      expect(await prisma.jobEvent.count()).toBe(0);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('refuses a migration edited after it was applied', async () => {
    const edited = readMigrations().map((migration, i) => (i === 0 ? { ...migration, checksum: 'f'.repeat(64) } : migration));
    await expect(applyMigrations(url, edited)).rejects.toThrow(/was changed after it was applied/);
  });

  it('rolls back a failing migration and reports it', async () => {
    const broken = [...readMigrations(), { name: '99999999999999_broken', sql: 'CREATE TABLE ok_table (id int); SELECT nope FROM nowhere;', checksum: 'x' }];
    await expect(applyMigrations(url, broken)).rejects.toThrow(/99999999999999_broken failed/);
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const table = await client.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'ok_table'");
      expect(table.rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });
});
