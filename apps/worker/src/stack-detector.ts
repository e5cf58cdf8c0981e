import { Inject, Injectable } from '@nestjs/common';
import type { JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { LlmAnswerRepository } from '@quarry/db';
import { detectStack, type DetectionMode, type RepoReader } from '@quarry/detect';
import { LlmClient } from '@quarry/llm';

/**
 * Stack detection as the worker runs it, for the detect and scan jobs: the configured LLM (if
 * any) behind the fallbacks, and its answers cached in Postgres so every worker shares them.
 */
@Injectable()
export class StackDetector {
  private readonly llm: LlmClient | undefined;

  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly answers: LlmAnswerRepository,
  ) {
    this.llm = config.llm && new LlmClient(config.llm);
  }

  /** The configured detection mode (what a remembered detection's answer depends on besides what it read). */
  get mode(): DetectionMode {
    return this.config.detectionMode;
  }

  /** `root` must already be resolved inside the workspace roots, or be a snapshot's reader. */
  detect(root: string | RepoReader, mode: DetectionMode | undefined, signal: AbortSignal): Promise<JobResult<'detect'>> {
    return detectStack(root, { mode: mode ?? this.config.detectionMode, llm: this.llm, llmCache: this.answers, signal });
  }
}
