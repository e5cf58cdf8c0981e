import { Injectable } from '@nestjs/common';
import { QuarryError } from '@quarry/contracts';
import { ApiKeyRepository } from '@quarry/db';
import { Principal } from './principal';

/** How long "are keys configured?" is cached: creating the first key locks the door within this. */
const KEY_COUNT_TTL_MS = 2_000;

/** Turns a presented token (REST header or socket handshake) into a Principal, or refuses. */
@Injectable()
export class AccessService {
  private keyCount: { value: number; at: number } | undefined;

  constructor(private readonly keys: ApiKeyRepository) {}

  async authRequired(): Promise<boolean> {
    const now = Date.now();
    if (!this.keyCount || now - this.keyCount.at > KEY_COUNT_TTL_MS) {
      this.keyCount = { value: await this.keys.countActive(), at: now };
    }
    return this.keyCount.value > 0;
  }

  async authenticate(token: string | undefined): Promise<Principal> {
    // A presented key is checked even while "no keys yet" is cached: a job submitted with the first
    // key in the seconds after it was created is still that key's job, not nobody's.
    const key = token ? await this.keys.authenticate(token) : null;
    if (key) return { kind: 'key', keyId: key.id, name: key.name };
    if (!(await this.authRequired())) return { kind: 'anonymous' };
    if (!token) {
      throw new QuarryError('unauthorized', 'This Quarry requires an API key.', {
        suggestion: 'Send "Authorization: Bearer <key>" (REST) or auth.token (socket.io); create one with `quarry keys create NAME`.',
      });
    }
    throw new QuarryError('unauthorized', 'The API key is unknown or revoked.', {
      suggestion: 'Check the key, or create a new one with `quarry keys create NAME`.',
    });
  }
}

/** The token of an `Authorization: Bearer …` header (or Basic with the key as password, for browsers). */
export function tokenFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.split(' ', 2);
  if (!value) return undefined;
  if (scheme.toLowerCase() === 'bearer') return value.trim();
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1) || undefined;
  }
  return undefined;
}
