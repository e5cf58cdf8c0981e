import { applyMigrations, ensureDatabase } from '../../libs/db/src/migrator';
import { TEST_DATABASE_URL } from './test-database';

/** Integration and e2e tests share one database of their own, migrated once per run. */
export default async function globalSetup(): Promise<void> {
  await ensureDatabase(TEST_DATABASE_URL);
  await applyMigrations(TEST_DATABASE_URL);
}
