import { defineConfig } from 'prisma/config';

// Used by `prisma generate` (run on install). Migrations are applied by Quarry's own migrator,
// which reads prisma/migrations and keeps Prisma's `_prisma_migrations` bookkeeping.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.QUARRY_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/quarry' },
});
