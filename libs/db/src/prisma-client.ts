import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/client';

export { PrismaClient };
export type { Prisma } from './generated/client';

/** Prisma over a node-postgres pool that hot paths may also query directly (one pool, one set of connections). */
export interface Database {
  prisma: PrismaClient;
  pool: Pool;
  close(): Promise<void>;
}

export function createDatabase(databaseUrl: string, poolSize = 10): Database {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** A Prisma client alone, for short-lived commands (`quarry keys`). */
export function createPrismaClient(databaseUrl: string, poolSize = 10): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}
