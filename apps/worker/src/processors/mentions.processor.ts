import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { JobInput, JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { expandMentions } from '@quarry/mentions';
import { closeSharedSearchPool } from '@quarry/search';
import { IndexedCommits, snapshotSearch } from '@quarry/search-index';
import { FileCache } from '@quarry/workspace';
import { CodeIndexCache, type BlobIndexStore } from '@quarry/code-index';
import { BlobCodeIndexRepository } from '@quarry/db';
import { ChildJobs } from '../child-jobs';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';
import { JobSnapshots } from '../job-snapshots';

/**
 * Expands the mentions of a prompt. Files are read through one cache per worker (keyed by real
 * path, size and mtime); URLs are fetched as child `fetch` jobs, so they share the fetch cache
 * and obey the per-domain limits like any other fetch.
 */
@Injectable()
@HandlesJob('mentions')
export class MentionsProcessor implements JobHandler<'mentions'>, OnApplicationShutdown {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly files: FileCache,
    private readonly children: ChildJobs,
    private readonly codeIndex: CodeIndexCache,
    private readonly snapshots: JobSnapshots,
    @Inject(BlobCodeIndexRepository) private readonly store: BlobIndexStore,
    private readonly commits: IndexedCommits,
  ) {}

  async run(input: JobInput<'mentions'>, context: JobContext): Promise<JobResult<'mentions'>> {
    // The file, listing and search tools read a file system: a git source is checked out in the cache.
    const { result } = await this.snapshots.run(input, context, async (snapshot) => {
      // @search and @grep of an indexed commit read only the files its trigram index selects.
      const { root, search } = await snapshotSearch(snapshot, this.commits, context.signal);
      return expandMentions(
      { prompt: input.prompt, maxBytes: input.budget?.maxBytes },
      {
        root,
        search,
        ...this.config.files,
        fileCache: this.files,
        codeIndex: this.codeIndex,
        // @symbol: reads the commit's per-blob rows (the scan's), not a parse of the checkout.
        symbolIndex: () => this.codeIndex.snapshotTree(snapshot, this.store, { signal: context.signal }),
        fetchUrl: (url) => this.children.fetch(context, url),
        signal: context.signal,
        onProgress: context.progress,
      },
    );
    });
    return result;
  }

  /** The search threads are shared by the process (mentions and interpret); retired after the jobs drained. */
  async onApplicationShutdown(): Promise<void> {
    await closeSharedSearchPool();
  }
}
