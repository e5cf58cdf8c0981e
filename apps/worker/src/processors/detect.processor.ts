import { Inject, Injectable } from '@nestjs/common';
import type { JobInput, JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { repoReaderOf } from '@quarry/snapshot';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';
import { JobSnapshots } from '../job-snapshots';
import { StackDetector } from '../stack-detector';

/** The result is the list of services; the commit it describes is on the job (`source`). */
@Injectable()
@HandlesJob('detect')
export class DetectProcessor implements JobHandler<'detect'> {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly snapshots: JobSnapshots,
    private readonly detector: StackDetector,
  ) {}

  async run(input: JobInput<'detect'>, context: JobContext): Promise<JobResult<'detect'>> {
    const { result } = await this.snapshots.run(input, context, async (snapshot) => {
      context.progress({ stage: 'detecting', done: 0, total: 1, message: input.mode ?? this.config.detectionMode });
      const services = await this.detector.detect(repoReaderOf(snapshot), input.mode, context.signal);
      context.progress({ stage: 'detected', done: 1, total: 1, message: `${services.length} service${services.length === 1 ? '' : 's'}` });
      return services;
    });
    return result;
  }
}
