/**
 * @quarry/blob-scan — a scan as shards over blobs: facts per blob id (lines, bytes, binary) kept
 * in a store shared by every worker, a planner balancing shards by bytes and skipping known
 * blobs, and the scan result assembled from the commit's entries and the facts of their blobs.
 */
export { type BlobFact, type BlobFactStore, MemoryBlobFacts, factOf, measureOf } from './blob-facts';
export { type BlobDerivation, type BlobPath, type DerivedTotals, type ThreadDerivation, type ThreadDerivationSpec, type ThreadDerivationModule } from './blob-derivation';
export { ScanMemory, StateMemory, type RememberedScan, type ScanStateStore, type StateKey } from './scan-memory';
export { assembleScan, type AssembleInput } from './assemble';
export { planShards, describeShardPaths, DEFAULT_SHARD_LIMITS, ESTIMATED_FILE_BYTES, type ShardFile, type ShardTask, type ShardLimits } from './plan';
export { runShard, type ShardOutcome, type RunShardOptions, type ShardIndexer, type ShardIndexBuild } from './run-shard';
export { shardedScan, derivedWorkLimits, INLINE_BELOW_FILES, type ShardExecutor, type ShardedScanOptions, type ShardedScanResult, type ScanChanges, type CommitIndexStep } from './sharded-scan';
export { InProcessShardExecutor, workerId } from './in-process-executor';
export { ThreadShardExecutor, MAX_SHARD_THREADS, shardThreadsAvailable } from './thread-executor';
export type { ThreadShardSource, ThreadProviderOptions } from './shard-thread-protocol';
