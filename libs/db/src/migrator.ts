import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { projectRoot } from './project-root';

/*
 * Applies prisma/migrations in order. Prisma's own `migrate deploy` needs a native schema engine
 * that is downloaded at run time, which offline machines cannot do; this migrator does the same
 * job with the same bookkeeping table, so either tool can take over from the other.
 */

const PRISMA_LOCK_ID = 72707369; // the advisory lock id Prisma Migrate uses

const BOOKKEEPING_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = path.join(projectRoot(), 'prisma', 'migrations')): MigrationFile[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
    });
}

/** Applies every migration not yet applied; returns the names it applied. Safe to run concurrently. */
export async function applyMigrations(databaseUrl: string, migrations = readMigrations()): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_LOCK_ID]);
    await client.query(BOOKKEEPING_TABLE);
    const applied = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const byName = new Map(applied.rows.map((row) => [row.migration_name, row]));
    const done: string[] = [];
    for (const migration of migrations) {
      const previous = byName.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} was changed after it was applied; add a new migration instead`);
        }
        continue;
      }
      if (previous) throw new Error(`migration ${migration.name} failed earlier; fix the database, then mark it rolled back`);
      await applyOne(client, migration);
      done.push(migration.name);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

async function applyOne(client: Client, migration: MigrationFile): Promise<void> {
  const id = crypto.randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** Creates the database named in the URL when it does not exist (needs rights on `postgres`). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`unsupported database name "${name}"`);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } catch (error) {
      // Another process created it between our check and our create.
      if ((error as { code?: string }).code !== '42P04') throw error;
      return false;
    }
    return true;
  } finally {
    await client.end();
  }
}
