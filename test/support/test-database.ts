/** Kept free of path-aliased imports: jest's globalSetup does not apply moduleNameMapper. */
export const TEST_DATABASE_URL = process.env.QUARRY_TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/quarry_test';
export const TEST_REDIS_URL = process.env.QUARRY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
