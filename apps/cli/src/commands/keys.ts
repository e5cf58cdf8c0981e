import { loadConfig } from '@quarry/config/settings';
import { ApiKeyRepository, createPrismaClient } from '@quarry/db';
import { EXIT } from '../cli-output';

/** `quarry keys …` talks to Postgres directly: it is an operator command, run where the database is. */
async function withKeys<T>(action: (keys: ApiKeyRepository) => Promise<T>): Promise<T> {
  const prisma = createPrismaClient(loadConfig().databaseUrl, 1);
  try {
    return await action(new ApiKeyRepository(prisma));
  } finally {
    await prisma.$disconnect();
  }
}

export async function createKey(name: string): Promise<number> {
  const { key, secret } = await withKeys((keys) => keys.create(name));
  console.log(secret);
  console.error(`created key "${key.name}" (${key.id}). It is shown once: store it now. API keys are now required.`);
  return EXIT.ok;
}

export async function listKeys(json: boolean): Promise<number> {
  const all = await withKeys((keys) => keys.list());
  if (json) console.log(JSON.stringify(all, null, 2));
  else for (const key of all) console.log([key.id, key.prefix + '…', key.name, key.revokedAt ? `revoked ${key.revokedAt}` : 'active'].join('  '));
  if (!json && all.length === 0) console.log('no keys: the API is open to anyone who can reach it (loopback only by default)');
  return EXIT.ok;
}

export async function revokeKey(idOrName: string): Promise<number> {
  const count = await withKeys((keys) => keys.revoke(idOrName));
  if (count === 0) {
    console.error(`no active key matches "${idOrName}"`);
    return EXIT.failed;
  }
  console.log(`revoked ${count} key(s)`);
  return EXIT.ok;
}
