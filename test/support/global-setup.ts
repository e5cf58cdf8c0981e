import { randomBytes } from 'node:crypto';
import { applyMigrations, ensureDatabase } from '../../libs/db/src/migrator';
import { withDatabaseName } from './test-database';

/**
 * Integration and e2e tests share one database per run, created and migrated here. Unless
 * QUARRY_TEST_DATABASE_URL names one, it is a fresh `quarry_test_<random>` that globalTeardown
 * drops again.
 */
export default async function globalSetup(): Promise<void> {
  if (!process.env.QUARRY_TEST_DATABASE_URL) {
    const name = `quarry_test_${randomBytes(4).toString('hex')}`;
    process.env.QUARRY_TEST_DATABASE_URL = withDatabaseName('postgresql://postgres@127.0.0.1:5432/postgres', name);
    process.env.QUARRY_TEST_DATABASE_OWNED = '1';
  }
  const url = process.env.QUARRY_TEST_DATABASE_URL;
  await ensureDatabase(url);
  await applyMigrations(url);
}
