import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import IORedis from 'ioredis';
import { ConfigModule, QUARRY_CONFIG, QuarryConfig, createLogger } from '@quarry/config';
import { DbModule } from '@quarry/db';
import { redisOptions } from '@quarry/queue';
import { AccessService } from './auth/access.service';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ErrorFilter } from './errors/error.filter';
import { EventsGateway } from './events/events.gateway';
import { JobEventsEmitter } from './events/job-events.emitter';
import { JobRelayService } from './events/job-relay.service';
import { GATEWAY_LOGGER, REDIS_PUBLISHER } from './gateway.tokens';
import { HealthController } from './health/health.controller';
import { JobsController } from './jobs/jobs.controller';
import { MentionsController } from './jobs/mentions.controller';
import { McpController } from './mcp/mcp.controller';
import { McpSessions } from './mcp/mcp-sessions';
import { JobsService } from './jobs/jobs.service';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsService } from './metrics/metrics.service';
import { QueuesModule } from './queues/queues.module';
import { ReconcilerService } from './queues/reconciler.service';
import { RootController } from './root.controller';
import { RepositorySearch, SearchController } from './search/search.controller';
import { GatewayNavigation, NavigationController } from './navigation/navigation.controller';
import { WebModule } from './web/web.module';

/** Closes the publisher connection last, after everything that publishes has stopped. */
@Injectable()
class RedisPublisherCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS_PUBLISHER) private readonly redis: IORedis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

@Module({})
export class AppModule {
  static forRoot(config?: QuarryConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), DbModule, QueuesModule, WebModule],
      controllers: [JobsController, MentionsController, SearchController, NavigationController, McpController, HealthController, MetricsController, RootController],
      providers: [
        { provide: GATEWAY_LOGGER, inject: [QUARRY_CONFIG], useFactory: (c: QuarryConfig) => createLogger('quarry-gateway', c.logLevel) },
        {
          provide: REDIS_PUBLISHER,
          inject: [QUARRY_CONFIG],
          useFactory: (c: QuarryConfig) => new IORedis({ ...redisOptions(c.redisUrl), enableOfflineQueue: false, lazyConnect: false }),
        },
        { provide: APP_FILTER, useClass: ErrorFilter },
        AccessService,
        ApiKeyGuard,
        JobsService,
        JobEventsEmitter,
        EventsGateway,
        JobRelayService,
        MetricsService,
        ReconcilerService,
        RedisPublisherCloser,
        RepositorySearch,
        GatewayNavigation,
        McpSessions,
      ],
    };
  }
}
