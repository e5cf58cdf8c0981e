import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { describeShardPaths, runShard, workerId, type ShardExecutor, type ShardOutcome, type ShardTask, type ThreadProviderOptions } from '@quarry/blob-scan';
import { QuarryError } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig, Logger } from '@quarry/config';
import { CodeIndexScanStep } from '@quarry/code-index';
import { BlobFactRepository, SearchIndexRepository } from '@quarry/db';
import { SegmentThread, shardIndexer } from '@quarry/search-index';
import { cancelChannel, redisOptions, SCAN_SHARD_OPTIONS, SCAN_SHARD_QUEUE, type ScanShardData } from '@quarry/queue';
import type { ResolvedSource } from '@quarry/snapshot';
import { JobSnapshots } from './job-snapshots';
import { WORKER_LOGGER } from './worker-logger';

/** How often a scan looks at its shards' state and progress. */
const POLL_MS = 200;
/**
 * The fields of a shard job's Redis hash the scan polls (BullMQ's own names): `timestamp` is set
 * when the job is added (absent: the job is gone), `finishedOn` once it completed or failed for
 * good, `pb` names the worker that took it.
 */
const SHARD_POLL_FIELDS = ['timestamp', 'finishedOn', 'progress', 'pb'] as const;
/** How often a running shard writes its progress to Redis. */
const PROGRESS_MS = 250;

/**
 * The distributed half of a sharded scan: shards are BullMQ jobs on the `scan-shard` queue, taken
 * by every worker that serves `scan` (this one included), each reading the shard's blobs from its
 * own snapshot cache and writing their facts to Postgres. The parent scan polls its shards' state
 * and progress; a shard that failed after its retries fails the scan with `scan_shard_failed`
 * naming its paths; cancelling the scan removes its waiting shards and stops its running ones.
 */
@Injectable()
export class ScanShards implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly connection: IORedis;
  private readonly queue: Queue<ScanShardData, ShardOutcome>;
  private worker: Worker<ScanShardData, ShardOutcome> | undefined;
  private subscriber: IORedis | undefined;
  /** Running shards here, by shard job id → their scan's id. */
  private readonly running = new Map<string, string>();
  readonly id = workerId();
  /** The search index's hook into a shard: the segment of the shard's new blobs. */
  readonly indexer: ReturnType<typeof shardIndexer>;
  /** Builds the shards' trigram segments on another core while they go on reading. */
  private readonly segments = new SegmentThread();
  /** Whether scans build the search index (QUARRY_SEARCH_INDEX). */
  get searchIndex(): boolean {
    return this.config.searchIndex;
  }
  get limits(): QuarryConfig['shardLimits'] {
    return this.config.shardLimits;
  }
  /** What a shard thread of this worker opens its own snapshot with (a directory scan's threads). */
  get threadProvider(): ThreadProviderOptions {
    return { workspaceRoots: this.config.workspaceRoots, git: { dataDir: this.config.dataDir, allow: this.config.fetch.allow, ...this.config.git } };
  }

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    @Inject(WORKER_LOGGER) private readonly logger: Logger,
    private readonly snapshots: JobSnapshots,
    private readonly facts: BlobFactRepository,
    private readonly codeIndex: CodeIndexScanStep,
    searchIndexStore: SearchIndexRepository,
  ) {
    this.indexer = shardIndexer(searchIndexStore, this.segments.sink);
    this.connection = new IORedis(redisOptions(config.redisUrl));
    this.queue = new Queue(SCAN_SHARD_QUEUE, { connection: this.connection, prefix: config.queuePrefix });
  }

  /** The executor of one scan: its shards become jobs any worker may take (and index their blobs for the code index unless `codeIndex` is false). */
  executorFor(parentId: string, source: ResolvedSource, codeIndex = true): ShardExecutor {
    if (!('git' in source)) throw new Error('only a git source can be read by other workers');
    return { run: (tasks, options) => this.runShards(parentId, source, tasks, options, codeIndex) };
  }

  private async runShards(
    parentId: string,
    source: { git: string; ref: string; commit: string },
    tasks: readonly ShardTask[],
    options: { signal: AbortSignal; onProgress: (index: number, done: number, worker?: string) => void },
    codeIndex: boolean,
  ): Promise<ShardOutcome[]> {
    const { signal } = options;
    // The id names the scan and the shard's files: a scan run again (a retry, the reconciler) finds
    // its finished shards done, and re-plans only the blobs still missing.
    const ids = tasks.map((task) => `${parentId}-${task.index}-${createHash('sha1').update(task.files.map((file) => `${file.path}\0${file.blob ?? ''}`).join('\n')).digest('hex').slice(0, 16)}`);
    await this.queue.addBulk(
      tasks.map((task, index) => ({
        name: 'shard',
        data: { parentId, source: { git: source.git, ref: source.ref, commit: source.commit }, files: task.files.map(({ path, blob }) => ({ path, blob })), index: task.index, count: tasks.length, codeIndex },
        opts: { ...SCAN_SHARD_OPTIONS, jobId: ids[index] },
      })),
    );
    const outcomes = new Array<ShardOutcome | undefined>(tasks.length);
    try {
      for (;;) {
        // One round trip for every open shard, and only the small fields of its hash: reading whole
        // jobs (each carries its few thousand paths) five times a second made the scan's own worker
        // parse megabytes of JSON per poll, which cost a core and most of its memory on a big tree.
        const open = tasks.map((_, index) => index).filter((index) => !outcomes[index]);
        if (open.length === 0) return outcomes as ShardOutcome[];
        const pipeline = this.connection.pipeline();
        for (const index of open) pipeline.hmget(this.queue.toKey(ids[index]), ...SHARD_POLL_FIELDS);
        const answers = (await pipeline.exec()) ?? [];
        for (const [position, index] of open.entries()) {
          const [error, fields] = answers[position] ?? [new Error('no answer')];
          if (error) throw error;
          const [timestamp, finishedOn, progress, processedBy] = fields as Array<string | null>;
          const task = tasks[index];
          if (timestamp === null) {
            throw new QuarryError('job_lost', `Shard ${index + 1} of ${tasks.length} vanished from the queue (Redis lost its data?).`, {
              suggestion: 'The scan is retried: shards already written are not read again.',
              permanent: false,
            });
          }
          if (finishedOn !== null) {
            // Finished for good (a retried attempt is not finished): read it whole, once.
            const job = await Job.fromId<ScanShardData, ShardOutcome>(this.queue, ids[index]);
            const state = job ? await job.getState() : 'unknown';
            if (job && state === 'completed') {
              outcomes[index] = job.returnvalue;
              options.onProgress(task.index, task.files.length, job.returnvalue?.worker);
              continue;
            }
            if (job && state === 'failed') {
              throw new QuarryError(
                'scan_shard_failed',
                `Shard ${index + 1} of ${tasks.length} (${describeShardPaths(task.files)}) failed after ${job.attemptsMade} attempts: ${job.failedReason}`,
                { suggestion: 'Retry the scan: the shards that succeeded are not read again.' },
              );
            }
          }
          const done = progress === null ? 0 : Number(progress);
          if (Number.isFinite(done) && (done > 0 || processedBy)) options.onProgress(task.index, done, processedBy ?? undefined);
        }
        await sleep(POLL_MS, undefined, { signal });
      }
    } catch (error) {
      if (signal.aborted) await this.cancelShards(parentId, ids);
      throw signal.aborted ? signal.reason : error;
    }
  }

  /** Drops the shards still waiting; tells the workers running the others to stop. */
  private async cancelShards(parentId: string, ids: readonly string[]): Promise<void> {
    await Promise.all(ids.map((id) => this.queue.remove(id).catch(() => 0)));
    await this.connection.publish(cancelChannel(this.config.queuePrefix), parentId).catch(() => 0);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.workerQueues.includes('scan')) return;
    this.worker = new Worker<ScanShardData, ShardOutcome>(SCAN_SHARD_QUEUE, (job, _token, signal) => this.runOne(job, signal), {
      connection: redisOptions(this.config.redisUrl, true),
      prefix: this.config.queuePrefix,
      name: this.id,
      concurrency: this.config.shardConcurrency,
      lockDuration: this.config.jobLockMs,
      stalledInterval: this.config.stalledIntervalMs,
    });
    this.worker.on('error', (error) => this.logger.error({ err: error, queue: SCAN_SHARD_QUEUE }, 'shard worker error'));
    this.subscriber = new IORedis(redisOptions(this.config.redisUrl, true));
    this.subscriber.on('message', (_channel, jobId: string) => {
      for (const [shardId, parentId] of this.running) if (parentId === jobId) this.worker?.cancelJob(shardId, 'cancelled');
    });
    await this.subscriber.subscribe(cancelChannel(this.config.queuePrefix));
  }

  private async runOne(job: Job<ScanShardData, ShardOutcome>, signal: AbortSignal | undefined): Promise<ShardOutcome> {
    const shardId = job.id as string;
    this.running.set(shardId, job.data.parentId);
    const abort = signal ?? new AbortController().signal;
    let lastProgress = 0;
    try {
      const snapshot = await this.snapshots.provider.open(job.data.source, abort);
      try {
        const outcome = await runShard(snapshot, job.data.files, this.facts, {
          worker: this.id,
          derive: job.data.codeIndex === false ? undefined : this.codeIndex,
          // Each shard builds the trigram segment of its blobs (a commit's shards are always git).
          index: this.config.searchIndex ? this.indexer : undefined,
          signal: abort,
          onProgress: (done) => {
            const now = Date.now();
            if (now - lastProgress < PROGRESS_MS) return;
            lastProgress = now;
            void job.updateProgress(done).catch(() => undefined);
          },
        });
        this.logger.debug?.({ shard: shardId, files: job.data.files.length, processed: outcome.processed }, 'shard done');
        return outcome;
      } finally {
        snapshot.close();
      }
    } finally {
      this.running.delete(shardId);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    if (worker) {
      // Like the job workers: finish the running shards, up to the timeout; past it they run again elsewhere.
      const timedOut = await Promise.race([
        worker.close().then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), this.config.shutdownTimeoutMs).unref()),
      ]);
      if (timedOut) await worker.close(true);
    }
    await this.subscriber?.quit().catch(() => undefined);
    await this.queue.close();
    await this.segments.close();
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
