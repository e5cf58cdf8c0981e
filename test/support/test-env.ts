import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, QuarryConfig } from '../../libs/config/src';

import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-database';

export { TEST_DATABASE_URL, TEST_REDIS_URL };

/** A BullMQ prefix no other test run shares, so tests never see each other's jobs. */
export function uniquePrefix(label: string): string {
  return `quarry-test-${label}-${randomBytes(4).toString('hex')}`;
}

/** Configuration for a test: the test database, a private queue prefix, quiet logs, port 0. */
export function testConfig(overrides: Partial<QuarryConfig> = {}): QuarryConfig {
  const base = loadConfig({
    QUARRY_DATABASE_URL: TEST_DATABASE_URL,
    QUARRY_REDIS_URL: TEST_REDIS_URL,
    QUARRY_LOG_LEVEL: 'silent',
    QUARRY_PORT: '0',
  });
  // Pack documents of tests go to the temp directory, never into the checkout. A test's teardown
  // waits at most 5 s per worker for a job still running (30 s by default, twice: jobs and shards),
  // so a straggler on a busy machine cannot outlast jest's 60 s hook timeout.
  return { ...base, queuePrefix: uniquePrefix('x'), artifactDir: path.join(os.tmpdir(), 'quarry-test-artifacts'), shutdownTimeoutMs: 5_000, ...overrides };
}
