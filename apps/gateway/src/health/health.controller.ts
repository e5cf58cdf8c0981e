import { Controller, Get, HttpException, Inject } from '@nestjs/common';
import IORedis from 'ioredis';
import { PrismaService } from '@quarry/db';
import { REDIS_PUBLISHER } from '../gateway.tokens';

@Controller()
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(REDIS_PUBLISHER) private readonly redis: IORedis,
  ) {}

  /** Liveness: the process answers. */
  @Get('health')
  health() {
    return { status: 'ok' };
  }

  /** Readiness: Redis and Postgres both answer within a second. */
  @Get('ready')
  async ready() {
    const [redis, postgres] = await Promise.all([
      probe(() => this.redis.ping()),
      probe(() => this.prisma.ping()),
    ]);
    const body = { status: redis && postgres ? 'ready' : 'unavailable', redis: redis ? 'up' : 'down', postgres: postgres ? 'up' : 'down' };
    if (body.status !== 'ready') throw new HttpException(body, 503);
    return body;
  }
}

async function probe(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 1_000)));
  try {
    return await Promise.race([check().then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
