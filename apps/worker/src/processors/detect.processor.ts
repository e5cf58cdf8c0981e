import { Inject, Injectable } from '@nestjs/common';
import type { JobInput, JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';
import { StackDetector } from '../stack-detector';

@Injectable()
@HandlesJob('detect')
export class DetectProcessor implements JobHandler<'detect'> {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly detector: StackDetector,
  ) {}

  async run(input: JobInput<'detect'>, context: JobContext): Promise<JobResult<'detect'>> {
    const root = await resolveWorkspaceRoot(input.root, this.config.workspaceRoots);
    context.progress({ stage: 'detecting', done: 0, total: 1, message: input.mode ?? this.config.detectionMode });
    const services = await this.detector.detect(root, input.mode, context.signal);
    context.progress({ stage: 'detected', done: 1, total: 1, message: `${services.length} service${services.length === 1 ? '' : 's'}` });
    return services;
  }
}
