import { Client } from 'pg';
import { withDatabaseName } from './test-database';

/** Drops the run's own database (never one named by the caller). */
export default async function globalTeardown(): Promise<void> {
  const url = process.env.QUARRY_TEST_DATABASE_URL;
  if (!url || process.env.QUARRY_TEST_DATABASE_OWNED !== '1') return;
  const name = new URL(url).pathname.slice(1);
  if (!/^quarry_test_[0-9a-f]{8}$/.test(name)) return;
  const admin = new Client({ connectionString: withDatabaseName(url, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
