import type { JobResult, ScanInput, ScanResult } from '@quarry/contracts';
import { InProcessShardExecutor, shardedScan } from '@quarry/blob-scan';
import { detectRemembering } from '@quarry/detect';
import { repoReaderOf, type Snapshot } from '@quarry/snapshot';
import type { JobRun } from '../job-run';
import type { ScanPorts } from '../ports';

/**
 * The scan job: the repository as shards over blobs (blobs whose facts any earlier scan stored
 * are not read again), the code index riding along in every shard unless `codeIndex` is false,
 * the stack detected beside it, and — for a commit of a git URL — the commit's search index as
 * the scan's last step. Data flows one way: snapshot → shards → per-blob rows → assembly → the
 * commit's indexes.
 */
export async function runScan(input: ScanInput, ports: ScanPorts, run: JobRun): Promise<ScanResult> {
  const derive = input.codeIndex === false ? undefined : ports.codeIndex;
  const { result, source } = await ports.repositories.withSnapshot(input, run, (snapshot) => {
    const repository = snapshot.kind === 'git' && 'git' in snapshot.source ? snapshot.source.git : undefined;
    const searchIndex = repository ? ports.searchIndex : undefined;
    return withStack(
      (signal) => detectStack(snapshot, ports, signal),
      run.signal,
      () =>
        shardedScan(snapshot, {
          store: ports.facts,
          executor: ports.shards.executor(snapshot, run, derive),
          // A few files left to read (a small commit's re-scan) are read here, not handed over.
          inline: new InProcessShardExecutor(snapshot, ports.facts, 1, ports.shards.workerId, derive, searchIndex?.shardIndexer),
          derive,
          signal: run.signal,
          limits: ports.shards.limits,
          memory: ports.memory,
          indexes: searchIndex && repository ? [searchIndex.forCommit(repository)] : [],
          onProgress: (progress) => run.progress(progress),
        }),
    );
  });
  return { ...result, source };
}

/** The stack of the scan's commit: the previous commit's when the changes since touch nothing its detection read. */
async function detectStack(snapshot: Snapshot, ports: ScanPorts, signal: AbortSignal): Promise<JobResult<'detect'>> {
  const reader = repoReaderOf(snapshot);
  const { stack } = ports;
  if (!stack.memory || snapshot.kind !== 'git' || !('git' in snapshot.source)) return stack.detect(reader, undefined, signal);
  const { result } = await detectRemembering({
    states: stack.memory,
    repository: snapshot.source.git,
    kind: stack.mode,
    commit: snapshot.source.commit,
    changes: snapshot.treeChangesSince?.(),
    reader,
    detect: (recording) => stack.detect(recording, undefined, signal),
  });
  return result;
}

/**
 * A scan with stack detection beside it (it reads a few manifests near the top, so it runs during
 * the walk, not after): the result gains `stack` unless detection failed other than by
 * cancellation — a failed detection leaves a long scan without `stack` rather than failing it; the
 * detect job reports such failures in full.
 */
async function withStack<R extends ScanResult>(detect: (signal: AbortSignal) => Promise<JobResult<'detect'>>, signal: AbortSignal, scan: () => Promise<R>): Promise<R> {
  const stack = detect(signal).catch((error: unknown) => {
    if (signal.aborted) throw error;
    return undefined;
  });
  stack.catch(() => undefined); // awaited below; a walk failure must not leave it unhandled
  const summary = await scan();
  const services = await stack;
  return services ? { ...summary, stack: services } : summary;
}
