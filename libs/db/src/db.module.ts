import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { ApiKeyRepository } from './api-key-repository';
import { JobRepository } from './job-repository';
import { FetchedDocumentRepository } from './fetched-document-repository';
import { createPrismaClient, PrismaClient } from './prisma-client';

/**
 * Owns the Prisma client (and so the pg pool) for a Nest process. It closes last, in
 * onApplicationShutdown: a stopping worker drains its jobs in beforeApplicationShutdown and they
 * still need the database to write their outcome.
 */
@Injectable()
export class PrismaService implements OnApplicationShutdown {
  readonly client: PrismaClient;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig) {
    this.client = createPrismaClient(config.databaseUrl);
  }

  async ping(): Promise<void> {
    await this.client.$queryRaw`SELECT 1`;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.$disconnect();
  }
}

@Global()
@Module({
  providers: [
    PrismaService,
    { provide: JobRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new JobRepository(prisma.client) },
    { provide: ApiKeyRepository, inject: [PrismaService], useFactory: (prisma: PrismaService) => new ApiKeyRepository(prisma.client) },
    {
      provide: FetchedDocumentRepository,
      inject: [PrismaService],
      useFactory: (prisma: PrismaService) => new FetchedDocumentRepository(prisma.client),
    },
  ],
  exports: [PrismaService, JobRepository, ApiKeyRepository, FetchedDocumentRepository],
})
export class DbModule {}
