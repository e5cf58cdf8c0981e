import { Inject, Injectable } from '@nestjs/common';
import type { ScanInput, ScanResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { scanWithStack } from '@quarry/detect';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';
import { StackDetector } from '../stack-detector';

@Injectable()
@HandlesJob('scan')
export class ScanProcessor implements JobHandler<'scan'> {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly detector: StackDetector,
  ) {}

  async run(input: ScanInput, context: JobContext): Promise<ScanResult> {
    // Checked again here: a worker on another machine has its own view of the allowed roots.
    const root = await resolveWorkspaceRoot(input.root, this.config.workspaceRoots);
    return scanWithStack(root, {
      detect: (directory, signal) => this.detector.detect(directory, undefined, signal),
      signal: context.signal,
      onProgress: (progress) => context.progress(progress),
    });
  }
}
