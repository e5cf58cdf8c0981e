import { Injectable } from '@nestjs/common';
import type { ScanInput, ScanResult } from '../../libs/contracts/src';
import { QuarryError } from '../../libs/contracts/src';
import { runUseCase } from '../../libs/jobs/src';
import { HandlesJob, JobContext, JobHandler } from '../../apps/worker/src/job-handler';
import { WorkerPorts, runOf } from '../../apps/worker/src/worker-ports';

/** Fails the first attempt of every job with a transient error, then scans for real. */
@Injectable()
@HandlesJob('scan')
export class FlakyScanProcessor implements JobHandler<'scan'> {
  static readonly attemptsSeen: Array<{ jobId: string; attempt: number; at: number }> = [];

  constructor(private readonly ports: WorkerPorts) {}

  run(input: ScanInput, context: JobContext): Promise<ScanResult> {
    FlakyScanProcessor.attemptsSeen.push({ jobId: context.jobId, attempt: context.attempt, at: Date.now() });
    if (context.attempt === 1) throw new Error('transient: the disk hiccuped');
    return runUseCase('scan', input, this.ports.for('scan', context), runOf(context));
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

/** Fails the first run of every job permanently (as a root gone missing would); a retried run succeeds with an empty scan. */
@Injectable()
@HandlesJob('scan')
export class FailsFirstRunScanProcessor implements JobHandler<'scan'> {
  private static readonly ran = new Set<string>();

  async run(input: ScanInput, context: JobContext): Promise<ScanResult> {
    if (!FailsFirstRunScanProcessor.ran.has(context.jobId)) {
      FailsFirstRunScanProcessor.ran.add(context.jobId);
      throw new QuarryError('root_not_found', 'the root went away', { permanent: true });
    }
    return { root: input.root ?? '', files: 0, bytes: 0, lines: 0, languages: [], largestFiles: [], directories: [], skipped: { binary: 0, ignored: 0, symlinks: 0, unreadable: 0 }, durationMs: 0 };
  }
}
