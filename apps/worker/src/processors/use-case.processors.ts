import { Injectable, type Type } from '@nestjs/common';
import { BUILT_KINDS, type JobInput, type JobKind, type JobResult } from '@quarry/contracts';
import { runUseCase } from '@quarry/jobs';
import { HandlesJob, type JobContext, type JobHandler } from '../job-handler';
import { WorkerPorts, runOf } from '../worker-ports';

/**
 * The handler of one job kind: the kind's use case (@quarry/jobs) with this worker's ports. What
 * a kind does lives there, shared with the CLI and `quarry mcp`; a handler only builds ports.
 */
export function useCaseProcessor<K extends JobKind>(kind: K): Type<JobHandler<K>> {
  @Injectable()
  @HandlesJob(kind)
  class UseCaseProcessor implements JobHandler<K> {
    constructor(readonly ports: WorkerPorts) {}

    run(input: JobInput<K>, context: JobContext): Promise<JobResult<K>> {
      return runUseCase(kind, input, this.ports.for(kind, context), runOf(context));
    }
  }
  Object.defineProperty(UseCaseProcessor, 'name', { value: `${kind[0].toUpperCase()}${kind.slice(1)}Processor` });
  return UseCaseProcessor;
}

/** Every job handler this worker build has; the registry checks them against BUILT_KINDS. */
export const PROCESSORS: Type[] = BUILT_KINDS.map((kind) => useCaseProcessor(kind));
