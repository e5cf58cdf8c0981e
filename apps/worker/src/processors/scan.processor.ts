import { Inject, Injectable, Optional } from '@nestjs/common';
import type { JobResult, ScanInput, ScanResult } from '@quarry/contracts';
import { InProcessShardExecutor, ScanMemory, StateMemory, ThreadShardExecutor, shardThreadsAvailable, shardedScan, type BlobFactStore, type ScanChanges, type ScanStateStore, type ShardExecutor } from '@quarry/blob-scan';
import { CodeIndexScanStep } from '@quarry/code-index';
import { packageVersion } from '@quarry/config';
import { BlobFactRepository, ScanStateRepository, SearchIndexRepository } from '@quarry/db';
import { ScanIndexing, type ScannedCommit, type SearchIndexStore } from '@quarry/search-index';
import { detectRemembering, withStack } from '@quarry/detect';
import { repoReaderOf, type Snapshot } from '@quarry/snapshot';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';
import { JobSnapshots } from '../job-snapshots';
import { ScanShards } from '../scan-shards';
import { StackDetector } from '../stack-detector';

/** Shards of a directory scan run in this worker, this many at once: no other worker can read its disk. */
const LOCAL_SHARD_CONCURRENCY = 2;

/**
 * A scan as shards over blobs. A git commit's shards are child jobs any worker may take (each reads
 * from its own cache); a directory's run here. Blobs already in Postgres are not read again, by
 * anyone; the result is assembled from the commit's entries and the blob rows.
 */
@Injectable()
@HandlesJob('scan')
export class ScanProcessor implements JobHandler<'scan'> {
  /**
   * The last scan of each of a few repositories, and its commit's search index: the scan of a next
   * commit (a re-scan after a push) starts from them and works on the files that changed.
   */
  private readonly scans: ScanMemory;
  private readonly indexing: ScanIndexing;
  /** The stacks detected, with what each detection read: a commit whose changes touch none of it has the same stack. */
  private readonly stacks: StateMemory;

  constructor(
    private readonly snapshots: JobSnapshots,
    private readonly detector: StackDetector,
    @Inject(BlobFactRepository) private readonly facts: BlobFactStore,
    private readonly shards: ScanShards,
    @Inject(SearchIndexRepository) private readonly searchIndex: SearchIndexStore,
    /** Absent: scans without the code index (tests of the scan alone). */
    @Optional() private readonly codeIndex?: CodeIndexScanStep,
    /** Where remembered scans reach every worker (Postgres); absent: this worker's memory only. */
    @Optional() @Inject(ScanStateRepository) states?: ScanStateStore,
  ) {
    // A state made by another version of Quarry (other languages, other sums) is never read.
    const version = packageVersion();
    this.scans = new ScanMemory(states, { version });
    this.indexing = new ScanIndexing(searchIndex, states, { version });
    this.stacks = new StateMemory(states, { version });
  }

  /** The stack of a scan's commit: the previous commit's when the changes since touch nothing its detection read. */
  private async detectStack(snapshot: Snapshot, signal: AbortSignal): Promise<JobResult<'detect'>> {
    const reader = repoReaderOf(snapshot);
    if (snapshot.kind !== 'git' || !('git' in snapshot.source)) return this.detector.detect(reader, undefined, signal);
    const { result } = await detectRemembering({
      states: this.stacks,
      repository: snapshot.source.git,
      kind: this.detector.mode,
      commit: snapshot.source.commit,
      changes: snapshot.treeChangesSince?.(),
      reader,
      detect: (recording) => this.detector.detect(recording, undefined, signal),
    });
    return result;
  }

  async run(input: ScanInput, context: JobContext): Promise<ScanResult> {
    // The code index rides along in every shard (tokens, symbols, secrets per blob) unless turned off.
    const derive = input.codeIndex === false ? undefined : this.codeIndex;
    const indexed = (snapshot: Snapshot) => this.shards.searchIndex && snapshot.kind === 'git';
    // A path is checked again here: a worker on another machine has its own view of the allowed roots.
    const { result, source } = await this.snapshots.run(input, context, (snapshot) =>
      withStack(
        (signal) => this.detectStack(snapshot, signal),
        context.signal,
        async () => {
          let assembled: ScannedCommit['assembled'];
          let changed: ScanChanges | undefined;
          let segmentsBefore: Promise<Map<string, string>> | undefined;
          const repository = snapshot.kind === 'git' && 'git' in snapshot.source ? snapshot.source.git : undefined;
          const result = await shardedScan(snapshot, {
            store: this.facts,
            executor: snapshot.kind === 'git' ? this.shards.executorFor(context.jobId, snapshot.source, derive !== undefined) : this.directoryExecutor(snapshot, derive),
            // A few files left to read (a small commit's re-scan) are read here, not handed over.
            inline: new InProcessShardExecutor(snapshot, this.facts, 1, this.shards.id, derive, indexed(snapshot) ? this.shards.indexer : undefined),
            derive,
            signal: context.signal,
            limits: this.shards.limits,
            memory: this.scans,
            onProgress: (progress) => context.progress(progress),
            onAssembled: (files, facts) => {
              assembled = { files, facts };
            },
            onChanged: (changes) => {
              changed = changes;
            },
            // The search index's look-up of the commit's segments runs beside the scan.
            onListed: (blobs) => {
              if (!indexed(snapshot)) return;
              segmentsBefore = this.searchIndex.segmentsOf([...blobs]);
              segmentsBefore.catch(() => undefined); // awaited by indexCommit
            },
          });
          // A commit's search index: the shards built their blobs' segments; what they did not
          // (blobs scanned before) is built here, then the manifest says the commit is indexed.
          // A directory changes under the index, so only commits are indexed. No progress event:
          // the bar is full, and a new stage must not count it down again.
          if (indexed(snapshot) && repository) await this.indexing.afterScan(snapshot, repository, { assembled, changed, segmentsBefore }, { signal: context.signal });
          return result;
        },
      ),
    );
    return { ...result, source };
  }

  /**
   * A directory's shards run in this worker (no other worker can read its disk): on shard threads,
   * one per core (each opens its own snapshot of the directory; their facts are recorded here, and
   * the code index of what they read is derived when the result is assembled), or in this thread
   * when there is no compiled build to start threads from (tests running the sources).
   */
  private directoryExecutor(snapshot: Snapshot, derive: CodeIndexScanStep | undefined): ShardExecutor {
    if (!shardThreadsAvailable()) return new InProcessShardExecutor(snapshot, this.facts, LOCAL_SHARD_CONCURRENCY, this.shards.id, derive);
    return new ThreadShardExecutor({ path: snapshot.root }, this.shards.threadProvider, this.facts, undefined, this.shards.id);
  }
}

