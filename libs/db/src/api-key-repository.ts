import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { PrismaClient } from './prisma-client';

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

const SECRET_PREFIX = 'qk_';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * API keys. The secret is shown once at creation; only its sha256 is stored, so a database leak
 * does not leak keys. A long random secret needs no slow hash: there is nothing to brute-force.
 */
export class ApiKeyRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async create(name: string): Promise<{ key: ApiKeyView; secret: string }> {
    const secret = SECRET_PREFIX + randomBytes(24).toString('base64url');
    const row = await this.prisma.apiKey.create({
      data: { id: randomUUID(), name, hash: hashSecret(secret), prefix: secret.slice(0, 8) },
    });
    return { key: toView(row), secret };
  }

  /** The active key for a presented secret, or null. */
  async authenticate(secret: string): Promise<ApiKeyView | null> {
    if (!secret.startsWith(SECRET_PREFIX) || secret.length > 200) return null;
    const row = await this.prisma.apiKey.findUnique({ where: { hash: hashSecret(secret) } });
    return row && !row.revokedAt ? toView(row) : null;
  }

  async countActive(): Promise<number> {
    return this.prisma.apiKey.count({ where: { revokedAt: null } });
  }

  async list(): Promise<ApiKeyView[]> {
    const rows = await this.prisma.apiKey.findMany({ orderBy: { createdAt: 'asc' } });
    return rows.map(toView);
  }

  /** Revokes by id, name or the key's printed prefix; returns how many keys it revoked. */
  async revoke(idOrName: string): Promise<number> {
    const byId = /^[0-9a-f-]{36}$/i.test(idOrName) ? [{ id: idOrName }] : [];
    const result = await this.prisma.apiKey.updateMany({
      where: { revokedAt: null, OR: [...byId, { name: idOrName }, { prefix: idOrName }] },
      data: { revokedAt: new Date() },
    });
    return result.count;
  }
}

function toView(row: { id: string; name: string; prefix: string; createdAt: Date; revokedAt: Date | null }): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
