/**
 * Where LLM answers are kept between runs. The key is a hash of everything that determines the
 * answer (purpose, model, prompt version, the inputs' content); callers build it. The worker
 * passes the Postgres store (LlmAnswerRepository in @quarry/db); the CLI and tests use memory.
 */
export interface LlmAnswerEntry {
  /** What the answer is for, e.g. "detect.service". */
  purpose: string;
  model: string;
  /** What was asked about, for people reading the table (e.g. "build.zig, build.zig.zon"). */
  subject: string;
  answer: unknown;
}

export interface LlmAnswerCache {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, entry: LlmAnswerEntry): Promise<void>;
}

/** A process-local cache: good for one CLI run or a test. */
export class MemoryAnswerCache implements LlmAnswerCache {
  readonly entries = new Map<string, LlmAnswerEntry>();

  async get(key: string): Promise<unknown | undefined> {
    return this.entries.get(key)?.answer;
  }

  async set(key: string, entry: LlmAnswerEntry): Promise<void> {
    if (!this.entries.has(key)) this.entries.set(key, entry);
  }
}
