/**
 * Kept free of path-aliased imports: jest's globalSetup does not apply moduleNameMapper.
 *
 * Each jest run gets a database of its own (created and migrated by globalSetup, dropped by
 * globalTeardown) and passes its URL to tests and spawned processes through this variable, so
 * two runs on one machine — a developer's and CI's — never see each other's jobs or API keys.
 */
export const TEST_DATABASE_URL = process.env.QUARRY_TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/quarry_test';
export const TEST_REDIS_URL = process.env.QUARRY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The server URL with another database name. */
export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}
