import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { ApiKeyRepository } from './api-key-repository';
import { JobRepository } from './job-repository';
import { FetchedDocumentRepository } from './fetched-document-repository';
import { LlmAnswerRepository } from './llm-answer-repository';
import { BlobFactRepository } from './blob-fact-repository';
import { BlobCodeIndexRepository } from './blob-code-index-repository';
import { SearchIndexRepository } from './search-index-repository';
import { ScanStateRepository } from './scan-state-repository';
import { ChunkEmbeddingRepository } from './chunk-embedding-repository';
import type { Pool } from 'pg';
import { createDatabase, type Database, type PrismaClient } from './prisma-client';

/**
 * Owns the Prisma client (and so the pg pool) for a Nest process. It closes last, in
 * onApplicationShutdown: a stopping worker drains its jobs in beforeApplicationShutdown and they
 * still need the database to write their outcome.
 */
@Injectable()
export class PrismaService implements OnApplicationShutdown {
  readonly client: PrismaClient;
  readonly pool: Pool;
  private readonly database: Database;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig) {
    this.database = createDatabase(config.databaseUrl);
    this.client = this.database.prisma;
    this.pool = this.database.pool;
  }

  /** Through the pool: asking Prisma would load it, which a worker may never otherwise need. */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}

@Global()
@Module({
  providers: [
    PrismaService,
    { provide: JobRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new JobRepository(prisma.client, prisma.pool) },
    { provide: ApiKeyRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new ApiKeyRepository(prisma.client) },
    {
      provide: FetchedDocumentRepository,
      inject: [PrismaService],
      useFactory: (prisma: PrismaService) => new FetchedDocumentRepository(prisma.client),
    },
    { provide: LlmAnswerRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new LlmAnswerRepository(prisma.client) },
    { provide: BlobFactRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new BlobFactRepository(prisma.client, prisma.pool) },
    { provide: BlobCodeIndexRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new BlobCodeIndexRepository(prisma.client, prisma.pool) },
    { provide: SearchIndexRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new SearchIndexRepository(prisma.pool) },
    { provide: ScanStateRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new ScanStateRepository(prisma.pool) },
    { provide: ChunkEmbeddingRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new ChunkEmbeddingRepository(prisma.pool) },
  ],
  exports: [PrismaService, JobRepository, ApiKeyRepository, FetchedDocumentRepository, LlmAnswerRepository, BlobFactRepository, BlobCodeIndexRepository, SearchIndexRepository, ScanStateRepository, ChunkEmbeddingRepository],
})
export class DbModule {}
