import type { JobResult } from '@quarry/contracts';
import { detectStack, type DetectionMode, type DetectionStates, type RepoReader, type StructuredCompleter } from '@quarry/detect';
import type { LlmAnswerCache } from '@quarry/llm';
import type { StackDetection } from './ports';

/**
 * Stack detection as a process runs it, for the detect and scan jobs and interpret's detect step:
 * the configured LLM (if any) behind the deterministic detectors, its answers cached where the
 * process keeps them (Postgres in the worker, shared by every worker; this run only in-process).
 */
export class StackDetector implements StackDetection {
  constructor(
    readonly mode: DetectionMode,
    private readonly llm?: StructuredCompleter,
    private readonly llmCache?: LlmAnswerCache,
    readonly memory?: DetectionStates,
  ) {}

  detect(root: string | RepoReader, mode: DetectionMode | undefined, signal: AbortSignal): Promise<JobResult<'detect'>> {
    const chosen = mode ?? this.mode;
    return detectStack(root, { mode: chosen, llm: chosen === 'static' ? undefined : this.llm, llmCache: this.llmCache, signal });
  }
}
