import { Inject, Injectable } from '@nestjs/common';
import type { ScanInput, ScanResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { resolveWorkspaceRoot, scanRepository } from '@quarry/workspace';
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
    // Detection reads a few manifests near the top; it runs beside the walk, not after it. A
    // detection that fails (other than by cancellation) leaves the scan without `stack` rather
    // than failing a long scan; the detect job reports such failures in full.
    const stack = this.detector.detect(root, undefined, context.signal).catch((error: unknown) => {
      if (context.signal.aborted) throw error;
      return undefined;
    });
    stack.catch(() => undefined); // awaited below; a walk failure must not leave it unhandled
    const summary = await scanRepository(root, {
      signal: context.signal,
      onProgress: (progress) =>
        // The listing stage has no total; report it as a message so `done` only ever grows.
        context.progress(
          progress.stage === 'listing' ? { stage: 'listing', done: 0, message: `${progress.done} files found` } : progress,
        ),
    });
    const services = await stack;
    return services ? { ...summary, stack: services } : summary;
  }
}
