import { Injectable } from '@nestjs/common';
import type { ScanInput, ScanResult } from '@quarry/contracts';
import { scanWithStack } from '@quarry/detect';
import { repoReaderOf } from '@quarry/snapshot';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';
import { JobSnapshots } from '../job-snapshots';
import { StackDetector } from '../stack-detector';

@Injectable()
@HandlesJob('scan')
export class ScanProcessor implements JobHandler<'scan'> {
  constructor(
    private readonly snapshots: JobSnapshots,
    private readonly detector: StackDetector,
  ) {}

  async run(input: ScanInput, context: JobContext): Promise<ScanResult> {
    // A path is checked again here: a worker on another machine has its own view of the allowed roots.
    const { result, source } = await this.snapshots.run(input, context, (snapshot) =>
      scanWithStack(snapshot, {
        detect: (signal) => this.detector.detect(repoReaderOf(snapshot), undefined, signal),
        signal: context.signal,
        onProgress: (progress) => context.progress(progress),
      }),
    );
    return { ...result, source };
  }
}
