/**
 * The peer of the service figures: a bare BullMQ worker with a trivial processor, in its own
 * process (like Quarry's worker), so a bare add→completed round trip crosses the same process
 * boundary. Spawned by service.bench.ts; prints "bare worker ready" once it takes jobs.
 *
 *   BENCH_PREFIX=… BENCH_REDIS_URL=redis://127.0.0.1:6379 BENCH_CONCURRENCY=50 node dist/bench/bare-worker.js
 */
import { Worker } from 'bullmq';
import { redisOptions } from '../libs/queue/src';

export const BARE_QUEUE = 'bare';

async function main(): Promise<void> {
  const prefix = process.env.BENCH_PREFIX;
  if (!prefix) throw new Error('BENCH_PREFIX is required');
  const worker = new Worker(BARE_QUEUE, async (job) => ({ ok: true, n: (job.data as { n?: number }).n ?? 0 }), {
    connection: redisOptions(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', true),
    prefix,
    concurrency: Number(process.env.BENCH_CONCURRENCY ?? 1),
    autorun: false,
  });
  worker.on('error', (error) => console.error(`bare worker error: ${error.message}`));
  await worker.waitUntilReady();
  void worker.run();
  console.log('bare worker ready');
  const stop = () => {
    void worker.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
