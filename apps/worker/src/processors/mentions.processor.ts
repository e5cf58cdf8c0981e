import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { JobInput, JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { gateUrl, parseAllowList } from '@quarry/fetch';
import { expandMentions, type FetchedPage } from '@quarry/mentions';
import { closeSharedSearchPool } from '@quarry/search';
import { FileCache, resolveWorkspaceRoot } from '@quarry/workspace';
import { ChildJobs } from '../child-jobs';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';

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
  ) {}

  async run(input: JobInput<'mentions'>, context: JobContext): Promise<JobResult<'mentions'>> {
    const root = await resolveWorkspaceRoot(input.root, this.config.workspaceRoots);
    const { files, fetch } = this.config;
    const allow = parseAllowList(fetch.allow);
    // A child may wait for a queue slot and retry once; past this, the mention fails with url_timeout.
    const childTimeoutMs = fetch.timeoutMs * 2 + 30_000;
    const fetchUrl = async (url: string): Promise<FetchedPage> => {
      const gated = gateUrl(url, { allow }).toString(); // refuse what can never pass before making a job of it
      return this.children.run(context, 'fetch', { url: gated, force: false }, childTimeoutMs);
    };
    return expandMentions(
      { prompt: input.prompt, maxBytes: input.budget?.maxBytes },
      {
        root,
        fileCache: this.files,
        allowSecrets: files.allowSecrets,
        maxFileBytes: files.maxFileBytes,
        searchTimeoutMs: files.searchTimeoutMs,
        maxUrls: files.maxUrls,
        fetchUrl,
        signal: context.signal,
        onProgress: context.progress,
      },
    );
  }

  /** The search threads are shared by the process; they stop after the jobs drained. */
  async onApplicationShutdown(): Promise<void> {
    await closeSharedSearchPool();
  }
}
