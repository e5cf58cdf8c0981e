import { InProcessShardExecutor, ThreadShardExecutor, shardThreadsAvailable, type BlobDerivation, type BlobFactStore, type ShardExecutor, type ThreadProviderOptions } from '@quarry/blob-scan';
import type { Snapshot } from '@quarry/snapshot';

/** Shards of a directory run in the worker holding the scan this many at once when threads are unavailable. */
const IN_PROCESS_SHARDS = 2;

/**
 * Shards run by this process, on shard threads (one per core, at most 4; each opens its own
 * snapshot of the same commit or directory, with the process's settings), their facts recorded
 * here: a directory a worker scans (no other worker can read its disk) and every `--local` scan.
 * The threads record facts and, when the derivation can run in threads (the code index), its
 * rows too; otherwise those are derived on this thread when the result is summed. Without a compiled build to start threads from (tests running the sources), in this
 * thread.
 */
export function threadShards(snapshot: Snapshot, options: { facts: BlobFactStore; provider: ThreadProviderOptions; workerId: string; derive?: BlobDerivation }): ShardExecutor {
  if (!shardThreadsAvailable()) return new InProcessShardExecutor(snapshot, options.facts, IN_PROCESS_SHARDS, options.workerId, options.derive);
  const source = snapshot.kind === 'git' && 'git' in snapshot.source ? { git: snapshot.source.git, ref: snapshot.source.ref, commit: snapshot.source.commit } : { path: snapshot.root };
  return new ThreadShardExecutor(source, options.provider, options.facts, undefined, options.workerId, undefined, options.derive?.inThreads?.());
}
