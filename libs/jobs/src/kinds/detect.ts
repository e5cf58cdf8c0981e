import type { JobInput, JobResult } from '@quarry/contracts';
import { repoReaderOf } from '@quarry/snapshot';
import type { JobRun } from '../job-run';
import type { DetectPorts } from '../ports';

/** The detect job: the stack of every service; the commit it describes is on the job (`source`). */
export async function runDetect(input: JobInput<'detect'>, ports: DetectPorts, run: JobRun): Promise<JobResult<'detect'>> {
  return ports.repositories.withFiles(input, run, async (snapshot) => {
    run.progress({ stage: 'detecting', done: 0, total: 1, message: input.mode ?? ports.stack.mode });
    const services = await ports.stack.detect(repoReaderOf(snapshot), input.mode, run.signal);
    run.progress({ stage: 'detected', done: 1, total: 1, message: `${services.length} service${services.length === 1 ? '' : 's'}` });
    return services;
  });
}
