import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import type { PrismaClient } from './generated/client';

export type { PrismaClient };
export type { Prisma } from './generated/client';

/** Prisma over a node-postgres pool that hot paths may also query directly (one pool, one set of connections). */
export interface Database {
  /** Made on first use (see lazyPrismaClient). */
  prisma: PrismaClient;
  pool: Pool;
  close(): Promise<void>;
}

/**
 * Prisma's generated client, required when first needed: loading it and compiling its query
 * engine (WebAssembly) costs a process ~120 MB of memory, and a worker whose jobs only take the
 * node-postgres paths (scans, shards, the job lifecycle) never needs it.
 */
function generatedClient(): typeof import('./generated/client') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./generated/client') as typeof import('./generated/client');
}

export function createDatabase(databaseUrl: string, poolSize = 10): Database {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  let client: PrismaClient | undefined;
  const prisma = lazyPrismaClient(() => (client ??= new (generatedClient().PrismaClient)({ adapter: new PrismaPg(pool) })));
  return {
    prisma,
    pool,
    async close() {
      await client?.$disconnect();
      await pool.end();
    },
  };
}

/** A Prisma client alone, for short-lived commands (`quarry keys`). */
export function createPrismaClient(databaseUrl: string, poolSize = 10): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 5_000 });
  return new (generatedClient().PrismaClient)({ adapter });
}

/** A stand-in that makes the real client on the first property anyone reads from it. */
function lazyPrismaClient(make: () => PrismaClient): PrismaClient {
  return new Proxy({} as PrismaClient, {
    get(_target, property) {
      // Not a thenable: awaiting or returning the stand-in from an async function must not load Prisma.
      if (property === 'then') return undefined;
      const client = make();
      const value = Reflect.get(client, property, client) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(client) : value;
    },
  });
}
