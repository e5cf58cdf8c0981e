import { Inject, Injectable } from '@nestjs/common';
import type { ScanInput, ScanResult } from '../../libs/contracts/src';
import { QuarryError } from '../../libs/contracts/src';
import { QUARRY_CONFIG, QuarryConfig } from '../../libs/config/src';
import { HandlesJob, JobContext, JobHandler } from '../../apps/worker/src/job-handler';
import { ScanProcessor } from '../../apps/worker/src/processors/scan.processor';
import { StackDetector } from '../../apps/worker/src/stack-detector';
import { JobSnapshots } from '../../apps/worker/src/job-snapshots';
import { ScanShards } from '../../apps/worker/src/scan-shards';
import { BlobFactRepository, ScanStateRepository, SearchIndexRepository } from '../../libs/db/src';
import { CodeIndexScanStep } from '../../libs/code-index/src';

/** Fails the first attempt of every job with a transient error, then scans for real. */
@Injectable()
@HandlesJob('scan')
export class FlakyScanProcessor implements JobHandler<'scan'> {
  static readonly attemptsSeen: Array<{ jobId: string; attempt: number; at: number }> = [];
  private readonly real: ScanProcessor;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig, detector: StackDetector, snapshots: JobSnapshots, facts: BlobFactRepository, shards: ScanShards, searchIndex: SearchIndexRepository, codeIndex: CodeIndexScanStep, states: ScanStateRepository) {
    void config;
    this.real = new ScanProcessor(snapshots, detector, facts, shards, searchIndex, codeIndex, states);
  }

  run(input: ScanInput, context: JobContext): Promise<ScanResult> {
    FlakyScanProcessor.attemptsSeen.push({ jobId: context.jobId, attempt: context.attempt, at: Date.now() });
    if (context.attempt === 1) throw new Error('transient: the disk hiccuped');
    return this.real.run(input, context);
  }
}

/** Always fails with a transient (retryable) typed error. */
@Injectable()
@HandlesJob('scan')
export class AlwaysFailingScanProcessor implements JobHandler<'scan'> {
  async run(): Promise<ScanResult> {
    throw new QuarryError('internal', 'the backend is down', { permanent: false });
  }
}

/** Runs until cancelled, reporting progress; records when it saw the abort. */
@Injectable()
@HandlesJob('scan')
export class EndlessScanProcessor implements JobHandler<'scan'> {
  static readonly abortedAt = new Map<string, number>();
  static readonly runs: string[] = [];

  async run(_input: ScanInput, context: JobContext): Promise<ScanResult> {
    EndlessScanProcessor.runs.push(context.jobId);
    let done = 0;
    while (!context.signal.aborted) {
      context.progress({ stage: 'reading', done: ++done, total: 1_000_000 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    EndlessScanProcessor.abortedAt.set(context.jobId, Date.now());
    throw context.signal.reason ?? new Error('aborted');
  }
}
