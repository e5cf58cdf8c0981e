import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { ResolvedSourceBody, SourceInputBody } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { openPinned, snapshotProviderFor, SnapshotProvider, sourceOf, type Snapshot } from '@quarry/snapshot';
import type { JobContext } from './job-handler';

/**
 * How every job that reads a repository gets it: this worker's own snapshot provider (its git
 * cache under QUARRY_DATA_DIR), the source pinned on the job row at start (a git ref → a commit),
 * or after the work for a directory (its identity is computed beside the work).
 */
@Injectable()
export class JobSnapshots implements OnApplicationShutdown {
  readonly provider: SnapshotProvider;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig) {
    this.provider = snapshotProviderFor(config);
  }

  async run<R>(input: { root?: string; source?: SourceInputBody }, context: JobContext, work: (snapshot: Snapshot) => Promise<R>): Promise<{ result: R; source: ResolvedSourceBody }> {
    const requested = sourceOf(input);
    const pinned = await openPinned(this.provider, requested, context.pinnedSource ?? undefined, context.signal);
    try {
      if ('git' in requested) {
        const source = await pinned.source();
        context.progress({ stage: 'resolved', done: 0, message: `${'git' in source ? source.ref : ''} → ${source.commit.slice(0, 12)}` });
        await context.pinSource?.(source);
      }
      const result = await work(pinned.snapshot);
      const source = await pinned.source();
      // A git commit was pinned before the work; a directory's identity goes with the result.
      if (!('git' in requested)) {
        if (context.recordSource) context.recordSource(source);
        else await context.pinSource?.(source);
      }
      return { result, source };
    } finally {
      pinned.snapshot.close();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.provider.close();
  }
}
