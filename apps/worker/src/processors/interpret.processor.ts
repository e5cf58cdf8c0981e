import { Inject, Injectable } from '@nestjs/common';
import type { JobInput, JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { interpretQuery, workspaceTools } from '@quarry/interpret';
import { LlmClient } from '@quarry/llm';
import { FileCache } from '@quarry/workspace';
import { IndexedCommits, snapshotSearch } from '@quarry/search-index';
import { ChildJobs } from '../child-jobs';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';
import { JobSnapshots } from '../job-snapshots';
import { StackDetector } from '../stack-detector';

/**
 * A question → a tool plan (the configured LLM first, the rules when it fails) → the tools run
 * through the same libraries as mentions and detect; fetch_url as a child fetch job.
 */
@Injectable()
@HandlesJob('interpret')
export class InterpretProcessor implements JobHandler<'interpret'> {
  private readonly llm: LlmClient | undefined;

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly files: FileCache,
    private readonly detector: StackDetector,
    private readonly children: ChildJobs,
    private readonly snapshots: JobSnapshots,
    private readonly commits: IndexedCommits,
  ) {
    this.llm = config.llm && new LlmClient(config.llm);
  }

  async run(input: JobInput<'interpret'>, context: JobContext): Promise<JobResult<'interpret'>> {
    const { result } = await this.snapshots.run(input, context, async (snapshot) => {
    // search and grep of an indexed commit read only the files its trigram index selects.
    const { root, search } = await snapshotSearch(snapshot, this.commits, context.signal);
    const host = workspaceTools({
      root,
      search,
      ...this.config.files,
      fileCache: this.files,
      detectStack: (directory, signal) => this.detector.detect(directory, undefined, signal ?? context.signal),
      fetchUrl: (url) => this.children.fetch(context, url),
    });
    return interpretQuery({
      query: input.query,
      context: input.context,
      root,
      llm: this.llm,
      ai: input.ai,
      execute: input.execute,
      host,
      signal: context.signal,
      onProgress: (progress) => context.progress(progress),
    });
    });
    return result;
  }
}
