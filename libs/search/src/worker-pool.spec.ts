import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SearchWorkerPool } from './worker-pool';

/**
 * A process that ends while a search thread is still loading re2 can die of a segmentation fault
 * (`quarry search` refusing a cursor or a pattern right after warming its threads: 5 of 300 runs).
 * So `close` keeps the threads it started until they say they have loaded. Stand-in threads here:
 * plain scripts that say so late, or never.
 */
describe('SearchWorkerPool.close', () => {
  let directory: string;
  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-search-pool-'));
    fs.writeFileSync(path.join(directory, 'slow.js'), "const { parentPort } = require('node:worker_threads');\nsetTimeout(() => parentPort.postMessage({ ready: true }), 400);\n");
    fs.writeFileSync(path.join(directory, 'dies.js'), 'process.exit(3);\n');
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('waits for warmed threads to finish loading before letting them go', async () => {
    const pool = new SearchWorkerPool(2, path.join(directory, 'slow.js'));
    pool.warm();
    const started = performance.now();
    await pool.close();
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
  });

  it('does not wait for a thread that exited without loading', async () => {
    const pool = new SearchWorkerPool(1, path.join(directory, 'dies.js'));
    pool.warm();
    const started = performance.now();
    await pool.close();
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
