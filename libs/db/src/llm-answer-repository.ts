import type { LlmAnswerCache, LlmAnswerEntry } from '@quarry/llm';
import type { Prisma, PrismaClient } from './prisma-client';

/** Cached LLM answers in Postgres, shared by every worker and every run. */
export class LlmAnswerRepository implements LlmAnswerCache {
  constructor(private readonly prisma: PrismaClient) {}

  async get(key: string): Promise<unknown | undefined> {
    const row = await this.prisma.llmAnswer.findUnique({ where: { key }, select: { answer: true } });
    return row?.answer ?? undefined;
  }

  /** Two workers answering the same question at once both write; the answers are equivalent, the first stays. */
  async set(key: string, entry: LlmAnswerEntry): Promise<void> {
    await this.prisma.llmAnswer.upsert({
      where: { key },
      create: { key, purpose: entry.purpose, model: entry.model, subject: entry.subject, answer: entry.answer as Prisma.InputJsonValue },
      update: {},
    });
  }
}
