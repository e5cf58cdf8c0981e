import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export { PrismaClient };
export type { Prisma } from './generated/client';

/** A Prisma client over node-postgres with an explicit pool (Prisma 7 driver adapters). */
export function createPrismaClient(databaseUrl: string, poolSize = 10): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}
